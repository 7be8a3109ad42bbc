import SensorDecode
import Testing

/// Mirrors Decoders/SensorEasy.swift.
@Suite struct SensorEasyTests {
    let decoder = SensorEasyDecoder()
    let battery = Kit.manufacturer(0x0757, Kit.bytes("f2190c"))

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, Kit.name("P RHT 88888B") + Kit.serviceData(0x2A6F, [0x2F]) + battery)))
        #expect(r.model == "SE RHT")
        #expect(Kit.values(.reading(r)) == ["humidity_pct": 47, "voltage_v": 3.097])
    }

    @Test func negativeTemperatureAndTheModels() throws {
        let probe = try #require(Kit.reading(Kit.decode(decoder, Kit.name("P TPROBE 000000") + Kit.serviceData(0x2A6E, Kit.bytes("34f8")))))
        #expect(probe.model == "SE TEMP PROBE")
        #expect(probe.value(.temperatureC) == -19.96)
        let temp = try #require(Kit.reading(Kit.decode(decoder, Kit.name("C T 999999") + Kit.serviceData(0x2A6E, Kit.bytes("1301")))))
        #expect(temp.model == "SE TEMP")
        #expect(temp.value(.temperatureC) == 2.75)
    }

    @Test func notYetMeasuredIsLeftOut() {
        #expect(Kit.values(Kit.decode(decoder, Kit.name("P T EN 888888") + Kit.serviceData(0x2A6E, Kit.bytes("ff7f")) + battery))
            == ["voltage_v": 3.097])
        #expect(Kit.decode(decoder, Kit.name("P T EN 888888") + Kit.serviceData(0x2A6E, Kit.bytes("0080"))) == .readings([]))
    }

    @Test func otherNamesAreNotMine() {
        #expect(Kit.decode(decoder, Kit.name("Thermometer") + Kit.serviceData(0x2A6E, Kit.bytes("1301"))) == .notMine)
        #expect(Kit.decode(decoder, Kit.serviceData(0x2A6E, Kit.bytes("1301"))) == .notMine)
    }

    @Test func humidityAbove100IsMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.name("P RHT 1") + Kit.serviceData(0x2A6F, [101]))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: Kit.bytes("1301")) { Kit.name("C T 999999") + Kit.serviceData(0x2A6E, $0) }
        Kit.truncations(decoder, value: Kit.bytes("5707f2190c")) { Kit.name("P RHT 1") + Kit.ad(0xFF, $0) }
    }

    /// 9 vectors (theengs' SE_RHT ×4, SE_TEMP ×4, SE_TPROBE), all passing.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let vectors = PeerVector.all.filter { $0.device.hasPrefix("SE_") }
        #expect(vectors.count == 9)
        Kit.checkVectors(vectors)
    }
}
