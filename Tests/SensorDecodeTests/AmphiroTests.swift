import SensorDecode
import Testing

/// Mirrors Decoders/Amphiro.swift.
@Suite struct AmphiroTests {
    let decoder = AmphiroDecoder()
    let sample = Kit.bytes("0000240015000015001a0029000c194f000000")

    func ad(_ payload: [UInt8]) -> [UInt8] { Kit.manufacturer(0xFAEE, payload) }

    @Test func headerSampleDecodes() {
        #expect(Kit.values(Kit.decode(decoder, ad(sample)))
            == ["duration_s": 21, "water_l": 2.6, "temperature_c": 41, "energy_kwh": 0.12])
    }

    @Test func otherLengthsAreNotMine() {
        #expect(Kit.decode(decoder, ad(sample + [0])) == .notMine)
        #expect(Kit.decode(decoder, Kit.manufacturer(0xFAEF, sample)) == .notMine)
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: sample) { ad($0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device == "ADHS" })
    }
}
