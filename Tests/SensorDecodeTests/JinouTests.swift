import SensorDecode
import Testing

/// Mirrors Decoders/Jinou.swift.
@Suite struct JinouTests {
    let decoder = JinouDecoder()
    let address = BDAddress("F8:81:D2:BE:06:93")!
    let value = Kit.bytes("00120700360264f881d2be0693")

    /// The UUID list and the 13-byte value as a manufacturer structure.
    func ad(_ value: [UInt8]) -> [UInt8] { Kit.ad(0x03, [0x20, 0xAA]) + Kit.ad(0xFF, value) }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(value), from: address)))
        #expect(Kit.values(.reading(r)) == ["temperature_c": 18.7, "humidity_pct": 54.2])
        #expect(r.warnings.isEmpty)
    }

    @Test func theSignByteMakesItNegative() {
        #expect(Kit.values(Kit.decode(decoder, ad([0x01] + value.dropFirst()), from: address))["temperature_c"] == -18.7)
    }

    @Test func withoutTheServiceUUIDItIsNotMine() {
        #expect(Kit.decode(decoder, Kit.ad(0xFF, value), from: address) == .notMine)
    }

    @Test func impossibleDigitsAreMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, ad([0x00, 0x12, 0x0A] + value.dropFirst(3)), from: address)))
        #expect(Kit.isMalformed(Kit.decode(decoder, ad([0x02] + value.dropFirst()), from: address)))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: value, from: address) { ad($0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device.hasPrefix("Jinou / ") })
    }
}
