import SensorDecode
import Testing

/// Mirrors Decoders/ThermoPro.swift.
@Suite struct ThermoProTests {
    let decoder = ThermoProDecoder()
    let sample = Kit.bytes("c2100147022c")

    func ad(_ value: [UInt8], name: String = "TP357") -> [UInt8] { Kit.name(name) + Kit.ad(0xFF, value) }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(sample))))
        #expect(r.model == "TP357")
        #expect(Kit.values(.reading(r)) == ["temperature_c": 27.2, "humidity_pct": 71, "battery_low": 0])
    }

    @Test func negativeTemperature() {
        // −12.5 °C is −125 tenths = 0xFF83 little-endian; the company id becomes 0x83C2.
        let values = Kit.values(Kit.decode(decoder, ad(Kit.bytes("c283ff50002c"), name: "TP393")))
        #expect(values == ["temperature_c": -12.5, "humidity_pct": 80, "battery_low": 1])
    }

    @Test func modelComesFromTheName() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(Kit.bytes("c2d60043220b01"), name: "TP357S"))))
        #expect(r.model == "TP357S")
        #expect(r.value(.temperatureC) == 21.4)
        let named = try #require(Kit.reading(Kit.decode(decoder, ad(sample, name: "TP357 (2A01)"))))
        #expect(named.model == "TP357")
    }

    @Test func otherNamesAndShortValuesAreNotMine() {
        #expect(Kit.decode(decoder, ad(sample, name: "Govee")) == .notMine)
        #expect(Kit.decode(decoder, Kit.ad(0xFF, sample)) == .notMine)
        #expect(Kit.decode(decoder, ad(Kit.bytes("c3100147022c"))) == .notMine)
    }

    @Test func humidityAbove100IsMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(Kit.bytes("c2100165022c")))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: sample) { ad($0) }
    }

    /// 8 vectors (theengs' five, ble_monitor's and bleparser's TP357/TP359), all passing.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let vectors = PeerVector.all.filter { $0.device.hasPrefix("TP35X") || $0.device.hasPrefix("Thermopro") }
        #expect(vectors.count == 8)
        Kit.checkVectors(vectors)
    }
}
