import SensorDecode
import Testing

/// Mirrors Decoders/BlueMaestro.swift.
@Suite struct BlueMaestroTests {
    let decoder = BlueMaestroDecoder()
    /// The header's sample: Tempo Disc THD below zero.
    let thd = Kit.bytes("17550e10061eff2f02a6ff030100")

    func ad(_ payload: [UInt8]) -> [UInt8] { Kit.manufacturer(0x0133, payload) }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(thd))))
        #expect(r.model == "Tempo Disc THD")
        #expect(Kit.values(.reading(r))
            == ["battery_pct": 85, "temperature_c": -20.9, "humidity_pct": 67.8, "dewpoint_c": -25.3])
    }

    @Test func otherTempoDiscVersions() throws {
        let t = try #require(Kit.reading(Kit.decode(decoder, ad(Kit.bytes("0d640e100001ffec0000")))))
        #expect(t.model == "Tempo Disc T")
        #expect(Kit.values(.reading(t)) == ["battery_pct": 100, "temperature_c": -2.0])
        let thpd = try #require(Kit.reading(Kit.decode(decoder, ad(Kit.bytes("1b550e10061e00ef01b327af0100")))))
        #expect(thpd.model == "Tempo Disc THPD")
        #expect(Kit.values(.reading(thpd))
            == ["battery_pct": 85, "temperature_c": 23.9, "humidity_pct": 43.5, "pressure_hpa": 1015.9])
    }

    @Test func pebble() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(Kit.bytes("01cf00cf00cf002ec903b2d7009167fa0700")))))
        #expect(r.model == "Pebble")
        #expect(Kit.values(.reading(r)) == ["temperature_c": 20.7, "humidity_pct": 46, "pressure_hpa": 969])
    }

    @Test func unknownVersionsAreNotMineAndShortFramesMalformed() {
        #expect(Kit.decode(decoder, ad([0x20] + thd.dropFirst())) == .notMine)
        #expect(Kit.decode(decoder, Kit.manufacturer(0x0134, thd)) == .notMine)
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(Array(thd.prefix(12))))))
        var frame = thd
        frame[1] = 101
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(frame))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: thd) { ad($0) }
        Kit.truncations(decoder, value: Kit.bytes("01cf00cf00cf002ec903b2d7009167fa0700")) { ad($0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device.hasPrefix("BlueMaestro / ") || $0.device == "TD3in1" })
    }
}
