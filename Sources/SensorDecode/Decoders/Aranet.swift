/// Aranet (SAF Tehnika) monitors: Aranet4 (CO₂), Aranet2 (temperature, humidity), Aranet
/// Radon Plus and Aranet Radiation, with "Smart Home integrations" switched on in the Aranet app
/// (otherwise the advertisement carries no measurements).
/// Models: Aranet4, Aranet2, Aranet Radon Plus, Aranet Radiation
///
/// Where: manufacturer-specific data, company 0x0702 (SAF Tehnika). Numbers little-endian;
/// offsets after the company id. The Aranet4's frame (22 bytes) has no device-type byte; the
/// others start with one (1 Aranet2, 2 Aranet Radiation, 3 Aranet Radon Plus).
///
/// Aranet4, 22 bytes:
/// | offset | size | field                                                         |
/// |--------|------|---------------------------------------------------------------|
/// | 0      | 1    | flags: bit 0 disconnected, bits 2–3 calibration, bit 4 DFU, bit 5 integrations on |
/// | 1      | 3    | firmware version: patch, minor, major                         |
/// | 4      | 4    | not decoded                                                   |
/// | 8      | 2    | CO₂ ppm (bit 15 set: no valid reading)                        |
/// | 10     | 2    | temperature / 20 °C (bit 14 set: no valid reading)            |
/// | 12     | 2    | pressure / 10 hPa (bit 15 set: no valid reading)              |
/// | 14     | 1    | humidity % (above 100: no valid reading)                      |
/// | 15     | 1    | battery %                                                     |
/// | 16     | 1    | CO₂ status colour (1 green, 2 amber, 3 red)                   |
/// | 17     | 2    | measurement interval, s                                       |
/// | 19     | 2    | seconds since the measurement                                 |
/// | 21     | 1    | measurement counter                                           |
///
/// Aranet2 and Radon Plus, ≥ 24 bytes: type byte, then flags and version as above (1–4), three
/// bytes not decoded, then at 8 radon Bq/m³ (Radon; 0x1F00 and above: no valid reading), at 10
/// temperature / 20 °C, at 12 pressure / 10 hPa (Radon), at 14 humidity / 10 % (bit 15: no valid
/// reading), at 17 battery %.
///
/// Aranet Radiation, ≥ 24 bytes: type byte 2, flags and version (1–4), one byte not decoded, then
/// at 6 the dose since its last reset (u32, nSv), at 10 how long it has been counting (u32, s), at
/// 14 the dose rate (u16, nSv/h), at 17 battery %, at 18 the status colour, at 19 the interval, at
/// 21 the age, at 23 a counter. Stored as µSv/h and mSv, the units the Aranet app shows.
///
/// The temperature fields are unsigned with an "invalid" bit where a sign would be: the
/// Aranet4 is rated for 0…50 °C; how the Aranet2 sends frost is not documented, so a field with
/// the invalid bit is left out rather than read as negative. A frame with integrations off
/// (7 bytes) or of another length is `notMine`.
///
/// Integrity check: none. Sanity: battery > 100 %, or an Aranet2/Radon humidity above 100 %, is
/// `malformed`.
///
/// Sample: `19 ff 02 07 21 0e 04 01 00 0c 0f 01 6f 03 08 02 68 1f 13 62 01 2c 01 8c 00 b9` →
/// Aranet4 v1.4.14, CO₂ 879 ppm, temperature 26.0 °C, pressure 804.0 hPa, humidity 19 %,
/// battery 98 %.
///
/// Source: Anrijs Aranet4-Python (`client.py`: advertisement layouts per device type, scaling,
/// the invalid-value bits; the Radiation layout `<IIHBBBHHB` from byte 6); Home Assistant's
/// `aranet` integration (`sensor.py`: the Radiation rate × 0.001 → µSv/h, dose × 10⁻⁶ → mSv);
/// theengs decoder `ARANET4` (its tests are among our vectors). No peer vector has an Aranet2,
/// Radon Plus or Radiation frame: their tests use frames built from this layout.
public struct AranetDecoder: SensorDecoder {
    public let id = "aranet"
    public let selectors: [Selector] = [.manufacturer(company: 0x0702)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.manufacturerData(company: 0x0702) else { return .notMine }
        if d.count == 22 { return aranet4(d, ad) }
        if d.count >= 24, d.u8(0) == 2 { return radiation(d, ad) }
        guard d.count >= 24, let type = d.u8(0), type == 1 || type == 3, let flags = d.u8(1), flags & 0x20 != 0,
            let radon = d.le16(8), let t = d.le16(10), let p = d.le16(12), let h = d.le16(14), let battery = d.u8(17)
        else { return .notMine }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        let humidity = Double(h & 0x7FFF) / 10
        guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
        var r = ad.reading(decoder: id, model: type == 1 ? "Aranet2" : "Aranet Radon Plus")
        if type == 3, radon < 0x1F00 { r.add(.radonBqM3, Double(radon)) }
        if t & 0x4000 == 0 { r.add(.temperatureC, Double(t) / 20) }
        if type == 3, p & 0x8000 == 0 { r.add(.pressureHPa, Double(p) / 10) }
        if h & 0x8000 == 0 { r.add(.humidityPercent, humidity) }
        r.add(.batteryPercent, Double(battery))
        return .reading(consume r)
    }

    private func radiation(_ d: Frame, _ ad: Advertisement) -> DecodeOutcome {
        guard let flags = d.u8(1), flags & 0x20 != 0, let dose = d.le32(6), let seconds = d.le32(10),
            let rate = d.le16(14), let battery = d.u8(17)
        else { return .notMine }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        var r = ad.reading(decoder: id, model: "Aranet Radiation")
        r.add(.radiationDoseRateUSvH, Double(rate) / 1000)
        r.add(.radiationDoseMSv, Double(dose) / 1_000_000)
        r.add(.durationS, Double(seconds))
        r.add(.batteryPercent, Double(battery))
        return .reading(consume r)
    }

    private func aranet4(_ d: Frame, _ ad: Advertisement) -> DecodeOutcome {
        guard let flags = d.u8(0), flags & 0x20 != 0, let co2 = d.le16(8), let t = d.le16(10), let p = d.le16(12),
            let humidity = d.u8(14), let battery = d.u8(15)
        else { return .notMine }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        var r = ad.reading(decoder: id, model: "Aranet4")
        if co2 & 0x8000 == 0 { r.add(.co2PPM, Double(co2)) }
        if t & 0x4000 == 0 { r.add(.temperatureC, Double(t) / 20) }
        if p & 0x8000 == 0 { r.add(.pressureHPa, Double(p) / 10) }
        if humidity <= 100 { r.add(.humidityPercent, Double(humidity)) }
        r.add(.batteryPercent, Double(battery))
        return .reading(consume r)
    }
}
