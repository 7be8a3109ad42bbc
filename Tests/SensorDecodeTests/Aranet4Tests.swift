import SensorDecode
import Testing

/// Mirrors Decoders/Aranet4.swift.
@Suite struct Aranet4Tests {
    let decoder = Aranet4Decoder()
    /// The header's sample, after the company id.
    let sample = Kit.bytes("210e0401000c0f016f030802681f1362012c018c00b9")

    func ad(_ payload: [UInt8]) -> [UInt8] { Kit.manufacturer(0x0702, payload) }

    @Test func headerSampleDecodes() {
        #expect(Kit.values(Kit.decode(decoder, ad(sample)))
            == ["co2_ppm": 879, "temperature_c": 26.0, "pressure_hpa": 804.0, "humidity_pct": 19, "battery_pct": 98])
    }

    @Test func fieldsFlaggedInvalidAreLeftOut() {
        var frame = sample
        frame[9] |= 0x80  // CO₂ bit 15
        frame[11] |= 0x40  // temperature bit 14
        frame[14] = 0xFF  // humidity
        #expect(Kit.values(Kit.decode(decoder, ad(frame))) == ["pressure_hpa": 804.0, "battery_pct": 98])
    }

    @Test func otherLengthsAndCompaniesAreNotMine() {
        #expect(Kit.decode(decoder, ad(Array(sample.prefix(7)))) == .notMine)  // integrations off
        #expect(Kit.decode(decoder, ad(sample + [0])) == .notMine)
        #expect(Kit.decode(decoder, Kit.manufacturer(0x0703, sample)) == .notMine)
    }

    @Test func impossibleBatteryIsMalformed() {
        var frame = sample
        frame[15] = 101
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(frame))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: sample) { ad($0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device == "ARANET4" })
    }
}
