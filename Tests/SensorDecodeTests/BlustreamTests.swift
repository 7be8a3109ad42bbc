import SensorDecode
import Testing

/// Mirrors Decoders/Blustream.swift.
@Suite struct BlustreamTests {
    let decoder = BlustreamDecoder()
    let sample = Kit.bytes("01def902be0ff107d0")

    func ad(_ payload: [UInt8]) -> [UInt8] { Kit.manufacturer(0x0194, payload) }

    @Test func headerSampleDecodes() {
        #expect(Kit.values(Kit.decode(decoder, ad(sample))) == ["humidity_pct": 40.81, "temperature_c": 20.0])
    }

    @Test func belowZero() {
        #expect(Kit.values(Kit.decode(decoder, ad(Kit.bytes("01def902be0ff1fe0c"))))["temperature_c"] == -5.0)
    }

    @Test func otherLengthsAreNotMineAndImpossibleHumidityMalformed() {
        #expect(Kit.decode(decoder, ad(sample + [0])) == .notMine)
        #expect(Kit.decode(decoder, Kit.manufacturer(0x0195, sample)) == .notMine)
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(Kit.bytes("01def902be271107d0")))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: sample) { ad($0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device.hasPrefix("Blustream / ") })
    }
}
