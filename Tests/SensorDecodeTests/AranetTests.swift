import SensorDecode
import Testing

/// Mirrors Decoders/Aranet.swift.
@Suite struct AranetTests {
    let decoder = AranetDecoder()
    /// The header's sample (Aranet4), after the company id.
    let aranet4 = Kit.bytes("210e0401000c0f016f030802681f1362012c018c00b9")

    func ad(_ payload: [UInt8]) -> [UInt8] { Kit.manufacturer(0x0702, payload) }

    /// An Aranet2 (type 1) or Radon Plus (type 3) frame laid out as Aranet4-Python reads it.
    func typed(_ type: UInt8, radon: String = "0000", t: String, p: String = "0000", h: String, battery: UInt8 = 90)
        -> [UInt8]
    {
        [type] + Kit.bytes("21010201000000" + radon + t + p + h + "00") + [battery] + Kit.bytes("012c01100007")
    }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(aranet4))))
        #expect(r.model == "Aranet4")
        #expect(Kit.values(.reading(r))
            == ["co2_ppm": 879, "temperature_c": 26.0, "pressure_hpa": 804.0, "humidity_pct": 19, "battery_pct": 98])
    }

    @Test func fieldsFlaggedInvalidAreLeftOut() {
        var frame = aranet4
        frame[9] |= 0x80  // CO₂ bit 15
        frame[11] |= 0x40  // temperature bit 14
        frame[14] = 0xFF  // humidity
        #expect(Kit.values(Kit.decode(decoder, ad(frame))) == ["pressure_hpa": 804.0, "battery_pct": 98])
    }

    @Test func aranet2AndRadonPlus() throws {
        // 21.5 °C = 430 = 0x01AE, 45.6 % = 456 = 0x01C8.
        let two = try #require(Kit.reading(Kit.decode(decoder, ad(typed(1, t: "ae01", h: "c801")))))
        #expect(two.model == "Aranet2")
        #expect(Kit.values(.reading(two)) == ["temperature_c": 21.5, "humidity_pct": 45.6, "battery_pct": 90])
        // Radon 123 Bq/m³, 1013.2 hPa = 0x2794.
        let radon = try #require(Kit.reading(Kit.decode(decoder, ad(typed(3, radon: "7b00", t: "ae01", p: "9427", h: "c801")))))
        #expect(radon.model == "Aranet Radon Plus")
        #expect(Kit.values(.reading(radon))
            == ["radon_bq_m3": 123, "temperature_c": 21.5, "pressure_hpa": 1013.2, "humidity_pct": 45.6, "battery_pct": 90])
        // Radon "no data" (0x1F01) is left out.
        #expect(Kit.values(Kit.decode(decoder, ad(typed(3, radon: "011f", t: "ae01", h: "c801"))))["radon_bq_m3"] == nil)
    }

    /// Aranet Radiation: dose 1 234 567 nSv over 86 400 s, rate 110 nSv/h, battery 90 %.
    let radiation = Kit.bytes("022101020100" + "87d61200" + "80510100" + "6e00" + "00" + "5a" + "01" + "2c01" + "0a00" + "07")

    @Test func aranetRadiation() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(radiation))))
        #expect(r.model == "Aranet Radiation")
        #expect(Kit.values(.reading(r)) == [
            "radiation_dose_rate_usv_h": 0.11, "radiation_dose_msv": 1.234567, "duration_s": 86400, "battery_pct": 90,
        ])
        var flat = radiation
        flat[17] = 101
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(flat))))
    }

    @Test func otherLengthsTypesAndCompaniesAreNotMine() {
        #expect(Kit.decode(decoder, ad(Array(aranet4.prefix(7)))) == .notMine)  // integrations off
        #expect(Kit.decode(decoder, ad(aranet4 + [0])) == .notMine)
        #expect(Kit.decode(decoder, ad(typed(4, t: "ae01", h: "c801"))) == .notMine)  // no such type
        var integrationsOff = radiation
        integrationsOff[1] = 0x01
        #expect(Kit.decode(decoder, ad(integrationsOff)) == .notMine)
        #expect(Kit.decode(decoder, Kit.manufacturer(0x0703, aranet4)) == .notMine)
    }

    @Test func impossibleBatteryIsMalformed() {
        var frame = aranet4
        frame[15] = 101
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(frame))))
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(typed(1, t: "ae01", h: "c801", battery: 200)))))
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(typed(1, t: "ae01", h: "e903")))))  // 100.1 %
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: aranet4) { ad($0) }
        Kit.truncations(decoder, value: typed(3, radon: "7b00", t: "ae01", p: "9427", h: "c801")) { ad($0) }
        Kit.truncations(decoder, value: radiation) { ad($0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device == "ARANET4" })
    }
}
