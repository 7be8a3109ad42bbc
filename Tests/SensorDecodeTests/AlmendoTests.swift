import SensorDecode
import Testing

/// Mirrors Decoders/Almendo.swift.
@Suite struct AlmendoTests {
    let decoder = AlmendoDecoder()
    let sample = Kit.bytes("010a0a08011800fb09e511a6030f0203")

    func ad(_ payload: [UInt8]) -> [UInt8] { Kit.manufacturer(0x06E8, payload) }

    @Test func headerSampleDecodes() {
        #expect(Kit.values(Kit.decode(decoder, ad(sample))) == ["temperature_c": 25.55, "humidity_pct": 45.81, "co2_ppm": 934])
    }

    @Test func belowZero() {
        // −12.34 °C = 0xFB2E.
        var frame = sample
        frame[7] = 0x2E
        frame[8] = 0xFB
        #expect(Kit.values(Kit.decode(decoder, ad(frame)))["temperature_c"] == -12.34)
    }

    @Test func otherVersionsAndModelsAreNotMine() {
        #expect(Kit.decode(decoder, ad([0x02] + sample.dropFirst())) == .notMine)
        #expect(Kit.decode(decoder, ad([0x01, 0x0a, 0x0b] + sample.dropFirst(3))) == .notMine)
    }

    @Test func shortOrImpossibleFramesAreMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(Array(sample.prefix(15))))))
        var frame = sample
        frame[9] = 0x11
        frame[10] = 0x27  // 100.01 %
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(frame))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: sample) { ad($0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device.hasPrefix("Almendo V1") })
    }
}
