import SensorDecode
import Testing

/// Mirrors Decoders/HHCC.swift.
@Suite struct HHCCTests {
    let decoder = HHCCDecoder()
    let sample = Kit.bytes("0e006e0134a428005b")

    @Test func headerSampleDecodes() {
        #expect(Kit.values(Kit.decode(decoder, Kit.serviceData(0xFD50, sample))) == [
            "moisture_pct": 14, "temperature_c": 11.0, "illuminance_lux": 79012, "battery_pct": 40,
            "conductivity_us_cm": 91,
        ])
    }

    @Test func negativeTemperature() {
        // −3.5 °C is −35 tenths = 0xFFDD.
        #expect(Kit.values(Kit.decode(decoder, Kit.serviceData(0xFD50, Kit.bytes("20ffdd00000a5a0000"))))["temperature_c"] == -3.5)
    }

    @Test func impossibleValuesAreMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0xFD50, Kit.bytes("65006e0134a428005b")))))
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0xFD50, Kit.bytes("0e006e0134a465005b")))))
    }

    @Test func otherLengthsAndUUIDsAreNotMine() {
        #expect(Kit.decode(decoder, Kit.serviceData(0xFD50, sample + [0])) == .notMine)
        #expect(Kit.decode(decoder, Kit.serviceData(0xFD51, sample)) == .notMine)
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: sample) { Kit.serviceData(0xFD50, $0) }
    }

    /// 5 vectors (theengs' three, ble_monitor's, xiaomi-ble's), all passing.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let vectors = PeerVector.all.filter { $0.device.contains("HHCCJCY10") }
        #expect(vectors.count == 5)
        Kit.checkVectors(vectors)
    }
}
