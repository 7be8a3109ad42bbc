import SensorDecode
import Testing

/// Mirrors Decoders/MopekaPro.swift.
@Suite struct MopekaProTests {
    let decoder = MopekaProDecoder()
    let sample = Kit.bytes("035b41a4c650a8cc801b")

    func values(_ data: [UInt8]) -> [String: Double] { Kit.values(Kit.decode(decoder, Kit.manufacturer(0x0059, data))) }

    @Test func headerSampleDecodes() {
        let v = values(sample)
        #expect(v["temperature_c"] == 25)
        #expect(v["voltage_v"] == 2.84375)
        Kit.expectClose(v["battery_pct"], (2.84375 - 2.2) / 0.65 * 100)
        // Echo 0xC6A4 & 0x3FFF = 1700 at T = 65: theengs' 62.3919 cm.
        Kit.expectClose(v["distance_mm"], 623.919125, tolerance: 1e-6)
    }

    @Test func negativeTemperatureAndNoEcho() {
        // Raw temperature 30 (−10 °C) with the sync bit set; quality 0: no level.
        let v = values(Kit.bytes("03609e00000000000000"))
        #expect(v["temperature_c"] == -10)
        #expect(v["battery_pct"] == 100)
        #expect(v["distance_mm"] == nil)
    }

    @Test func otherNordicFramesAreNotMine() {
        #expect(Kit.decode(decoder, Kit.manufacturer(0x0059, [0x04] + sample.dropFirst())) == .notMine)
        #expect(Kit.decode(decoder, Kit.manufacturer(0x0059, sample + [0])) == .notMine)
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: [0x59, 0x00] + sample) { Kit.ad(0xFF, $0) }
    }

    /// 4 vectors (theengs'), all passing.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let vectors = PeerVector.all.filter { $0.device == "M1017" }
        #expect(vectors.count == 4)
        Kit.checkVectors(vectors)
    }
}
