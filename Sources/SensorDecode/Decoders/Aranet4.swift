/// Aranet4 CO₂ monitors (SAF Tehnika), with "Smart Home integrations" switched on in the Aranet
/// app (otherwise the advertisement carries no measurements).
/// Models: Aranet4
///
/// Where: manufacturer-specific data, company 0x0702 (SAF Tehnika), 22 bytes after the id.
/// Numbers little-endian; offsets after the company id.
///
/// | offset | size | field                                                         |
/// |--------|------|---------------------------------------------------------------|
/// | 0      | 1    | status flags (bit 5: integrations on)                         |
/// | 1      | 4    | firmware version                                              |
/// | 5      | 3    | device state (not decoded)                                    |
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
/// Frames of other lengths are other Aranet devices (Aranet2, Radon, Radiation) or a monitor
/// with integrations off: `notMine`. The temperature field is unsigned: the Aranet4 is rated for
/// 0…50 °C, and its "invalid" bit sits where a sign would. A field flagged invalid (during CO₂
/// calibration) is left out.
///
/// Integrity check: none. Sanity: battery > 100 % is `malformed`.
///
/// Sample: `19 ff 02 07 21 0e 04 01 00 0c 0f 01 6f 03 08 02 68 1f 13 62 01 2c 01 8c 00 b9` →
/// CO₂ 879 ppm, temperature 26.0 °C, pressure 804.0 hPa, humidity 19 %, battery 98 %.
///
/// Source: Anrijs Aranet4-Python (`client.py`: scaling and the invalid-value bits); theengs
/// decoder `ARANET4` (advertisement offsets; its tests are among our vectors).
public struct Aranet4Decoder: SensorDecoder {
    public let id = "aranet4"
    public let selectors: [Selector] = [.manufacturer(company: 0x0702)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.manufacturerData(company: 0x0702), d.count == 22, let co2 = d.le16(8),
            let t = d.le16(10), let p = d.le16(12), let humidity = d.u8(14), let battery = d.u8(15)
        else { return .notMine }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        var r = ad.reading(decoder: id, model: "Aranet4")
        if co2 & 0x8000 == 0 { r.add(.co2PPM, Double(co2)) }
        if t & 0x4000 == 0 { r.add(.temperatureC, Double(t) / 20) }
        if p & 0x8000 == 0 { r.add(.pressureHPa, Double(p) / 10) }
        if humidity <= 100 { r.add(.humidityPercent, Double(humidity)) }
        r.add(.batteryPercent, Double(battery))
        return .reading(r)
    }
}
