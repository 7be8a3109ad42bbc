import SensorDecode
import Testing

/// Mirrors Decoders/TPMS.swift.
@Suite struct TPMSTests {
    let decoder = TPMSDecoder()
    let address = BDAddress("80:EA:CA:DD:EE:FF")!
    let sample = Kit.bytes("80eacaddeefff46503007c0c00003300")

    func ad(_ payload: [UInt8]) -> [UInt8] { Kit.manufacturer(0x0100, payload) }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(sample), from: address)))
        #expect(r.frameKind == "wheel-1")
        #expect(Kit.values(.reading(r))
            == ["pressure_kpa": 222.708, "temperature_c": 31.96, "battery_pct": 51, "problem": 0])
    }

    @Test func belowZeroWithAlarm() {
        // −12.5 °C = −1250 = 0xFFFFFB1E.
        let frame = Kit.bytes("80eacaddeeff00000000" + "1efbffff" + "6401")
        #expect(Kit.values(Kit.decode(decoder, ad(frame), from: address))
            == ["pressure_kpa": 0, "temperature_c": -12.5, "battery_pct": 100, "problem": 1])
    }

    @Test func aFrameNotFromItsSensorIsNotMineUnlessNamed() {
        let other = BDAddress("11:22:33:44:55:66")!
        #expect(Kit.decode(decoder, ad(sample), from: other) == .notMine)
        #expect(Kit.values(Kit.decode(decoder, ad(sample) + Kit.name("TPMS1_10"), from: other))["battery_pct"] == 51)
    }

    @Test func impossibleBatteryIsMalformed() {
        var frame = sample
        frame[14] = 0xFF
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(frame), from: address)))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: sample, from: address) { ad($0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        // The vectors' pressure_hpa is theengs' bar: compared as kPa / 100 (Kit.peerUnits).
        Kit.checkVectors(PeerVector.all.filter { $0.device == "TPMS" }, unit: Kit.peerUnits["tpms"])
    }
}
