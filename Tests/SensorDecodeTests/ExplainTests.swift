import SensorDecode
import Testing

/// Mirrors Registry/Explain.swift.
@Suite struct ExplainTests {
    let registry = Registry.standard()

    @Test func everyDecoderAskedIsListedInOrderWithItsSelectorAndAnswer() {
        let ad = Kit.advertisement(Kit.serviceData(0xFEAA, Kit.bytes("21010f0e5befbb42d1ffc200000407")))
        let asked = registry.explain(ad)
        #expect(asked.map(\.decoder) == ["eddystone_tlm", "kkm_sensor", "ruuvi_url"])
        #expect(asked.allSatisfy { $0.selectedBy == [.serviceData(uuid16: 0xFEAA)] })
        #expect(asked.map(\.outcome.summary) == [
            "not mine", "1 reading: voltage_v, temperature_c, humidity_pct", "not mine",
        ])
        #expect(asked[1].line == "kkm_sensor (service data 0xFEAA): 1 reading: voltage_v, temperature_c, humidity_pct")
        // The same readings as decoding it.
        let readings: [Reading] = asked.flatMap { e -> [Reading] in
            if case .readings(let r) = e.outcome { return r }
            return []
        }
        #expect(readings == registry.decode(ad).readings)
    }

    @Test func malformedSaysWhy() throws {
        let ad = Kit.advertisement(Kit.manufacturer(0x0499, [0x05, 0x12, 0xFC]))
        let ruuvi = try #require(registry.explain(ad).first { $0.decoder == "ruuvi" })
        #expect(ruuvi.selectedBy == [.manufacturer(company: 0x0499)])
        #expect(ruuvi.outcome.summary == "malformed: format 5 frame of 3 bytes, expected 24")
    }

    @Test func onlyTheSelectorsThatMatchAreNamed() throws {
        // Jaalee is selected by Apple's company id here, not by its service data UUIDs.
        let ad = Kit.advertisement(Kit.manufacturer(0x004C, Kit.bytes("0215ebefd08370a247c89837e7b5634df5257420591acb64")))
        let jaalee = try #require(registry.explain(ad).first { $0.decoder == "jaalee" })
        #expect(jaalee.selectedBy.map(\.description) == ["company 0x004C"])
    }

    @Test func nothingAskedListsTheKeysNoDecoderSelects() {
        let ad = Kit.advertisement(Kit.name("Mystery\u{1b}") + Kit.serviceData(0x1234, [1, 2]) + Kit.manufacturer(0xBEEF, [UInt8](repeating: 9, count: 30)))
        #expect(registry.explain(ad).isEmpty)
        #expect(Registry.keys(of: ad).map(\.description) == [
            "service data 0x1234", "company 0xBEEF", "manufacturer data of 32 bytes", "local name \"Mystery\\x1b\"",
        ])
    }
}
