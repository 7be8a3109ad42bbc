import SensorDecode
import Testing

/// Mirrors Decoders/ChefIQ.swift.
@Suite struct ChefIQTests {
    let decoder = ChefIQDecoder()
    let sample = Kit.bytes("01406313c000c900c900ca00cb00c0008d11")

    func ad(_ payload: [UInt8]) -> [UInt8] { Kit.manufacturer(0x05CD, payload) }

    @Test func headerSampleDecodes() {
        #expect(Kit.values(Kit.decode(decoder, ad(sample))) == [
            "battery_pct": 99, "temperature_meat_c": 20.1, "temperature_tip_c": 20.1, "temperature_probe_1_c": 20.2,
            "temperature_probe_2_c": 20.3, "temperature_probe_3_c": 19, "temperature_c": 19.2,
        ])
    }

    @Test func aFrozenRoastReadsBelowZero() {
        var frame = sample
        frame[8] = 0x9C
        frame[9] = 0xFF  // tip −10.0 °C
        #expect(Kit.values(Kit.decode(decoder, ad(frame)))["temperature_tip_c"] == -10.0)
    }

    @Test func otherLengthsAreNotMineAndImpossibleBatteryMalformed() {
        #expect(Kit.decode(decoder, ad(sample + [0])) == .notMine)
        var frame = sample
        frame[2] = 0xC8
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(frame))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: sample) { ad($0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device.hasPrefix("Chef iQ / ") })
    }
}
