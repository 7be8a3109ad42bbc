import SensorDecode
import Testing

/// Mirrors Decoders/MOCREO.swift.
@Suite struct MOCREOTests {
    let decoder = MOCREODecoder()
    let st10 = Kit.bytes("0187890181b092f70000000000da73000000")

    func ad(_ value: [UInt8], name: String = "MOCREO") -> [UInt8] { Kit.name(name) + Kit.ad(0xFF, value) }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(st10))))
        #expect(r.model == "ST10")
        #expect(Kit.values(.reading(r)) == ["temperature_c": -21.58, "battery_pct": 1])
    }

    @Test func humidityModelsAndTheLeakSensor() {
        // ST6: 21.5 °C (0x0866), 45.5 % (0x11C6), battery 90 %.
        #expect(Kit.values(Kit.decode(decoder, ad(Kit.bytes("01835a005ab06608c6110000000000000000")))) == [
            "temperature_c": 21.5, "humidity_pct": 45.5, "battery_pct": 90,
        ])
        #expect(Kit.values(Kit.decode(decoder, ad(Kit.bytes("0182000064b0000000000100000000000000")))) == [
            "moisture_detected": 1, "battery_pct": 100,
        ])
    }

    @Test func otherNamesAndTypesAreNotMine() {
        #expect(Kit.decode(decoder, ad(st10, name: "MOCREO2")) == .notMine)
        var unknown = st10
        unknown[1] = 0x95  // SD1: not decoded
        #expect(Kit.decode(decoder, ad(unknown)) == .notMine)
    }

    @Test func impossibleValuesAreMalformed() {
        var battery = st10
        battery[4] = 0xE5  // 101 %
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(battery))))
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(Kit.bytes("01835a005ab06608ffff0000000000000000")))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: st10) { ad($0) }
    }

    /// 6 vectors (ST5, ST8, ST10, MS1, MS2, MS3), all passing.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let vectors = PeerVector.all.filter { $0.device.hasPrefix("MOCREO") }
        #expect(vectors.count == 6)
        Kit.checkVectors(vectors)
    }
}
