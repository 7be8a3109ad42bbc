import SensorDecode
import Testing

/// Mirrors Decoders/MichelinTMS.swift.
@Suite struct MichelinTMSTests {
    let decoder = MichelinTMSDecoder()
    let sample = Kit.bytes("01034fc8d403505643017d511e00")

    func ad(_ payload: [UInt8]) -> [UInt8] { Kit.manufacturer(0x0828, payload) }

    @Test func headerSampleDecodes() {
        #expect(Kit.values(Kit.decode(decoder, ad(sample)))
            == ["temperature_c": 19, "voltage_v": 3.0, "pressure_kpa": 98.0, "packet_count": 1_986_941])
    }

    @Test func belowZero() {
        var frame = sample
        frame[2] = 50  // −10 °C
        #expect(Kit.values(Kit.decode(decoder, ad(frame)))["temperature_c"] == -10)
    }

    @Test func otherFramesAreNotMineAndWrongLengthsMalformed() {
        #expect(Kit.decode(decoder, ad([0x01, 0x05] + sample.dropFirst(2))) == .notMine)
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(sample + [0]))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: sample) { ad($0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        // ble_monitor's pressure is hPa (mbar); we store kPa: compared as kPa · 10 (Kit.peerUnits).
        Kit.checkVectors(PeerVector.all.filter { $0.device == "TMS / TMS" }, unit: Kit.peerUnits["michelin_tms"])
    }
}
