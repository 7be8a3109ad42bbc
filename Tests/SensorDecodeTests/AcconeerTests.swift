import SensorDecode
import Testing

/// Mirrors Decoders/Acconeer.swift.
@Suite struct AcconeerTests {
    let decoder = AcconeerDecoder()
    let sample = Kit.bytes("806400160001000000000000000000")

    func ad(_ payload: [UInt8]) -> [UInt8] { Kit.manufacturer(0xACC0, payload) }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(sample))))
        #expect(r.model == "Acconeer XM122")
        #expect(Kit.values(.reading(r)) == ["battery_pct": 100, "temperature_c": 22, "presence": 1])
    }

    @Test func xm126BelowZeroWithoutPresence() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(Kit.bytes("915000f6ff00000000000000000000")))))
        #expect(r.model == "Acconeer XM126")
        #expect(Kit.values(.reading(r)) == ["battery_pct": 80, "temperature_c": -10, "presence": 0])
    }

    @Test func otherDevicesAndLengthsAreNotMine() {
        #expect(Kit.decode(decoder, ad([0x81] + sample.dropFirst())) == .notMine)
        #expect(Kit.decode(decoder, ad(sample + [0])) == .notMine)
        #expect(Kit.decode(decoder, Kit.manufacturer(0xACC1, sample)) == .notMine)
    }

    @Test func impossibleBatteryIsMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, ad([0x80, 0x65] + sample.dropFirst(2)))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: sample) { ad($0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device.hasPrefix("Acconeer / ") })
    }
}
