/// Almendo bluSensor air-quality sensors (bluSensor Mini, BSP02AIQ) in their version-1 frame.
/// Models: bluSensor Mini
///
/// Where: manufacturer-specific data, company 0x06E8 (Almendo Technologies). Numbers
/// little-endian; offsets after the company id.
///
/// | offset | size | field                                                |
/// |--------|------|------------------------------------------------------|
/// | 0      | 1    | protocol version, 1                                  |
/// | 1      | 1    | device type                                          |
/// | 2      | 1    | device model, 0x0A (bluSensor V1 air quality)        |
/// | 3      | 1    | hardware revision                                    |
/// | 4      | 2    | status bits, status code                             |
/// | 6      | 1    | sensor state                                         |
/// | 7      | 2    | temperature, s16 / 100 °C                            |
/// | 9      | 2    | humidity, u16 / 100 %                                |
/// | 11     | 2    | CO₂ equivalent, ppm                                  |
/// | 13     | 2    | TVOC (unit not documented: not decoded)              |
/// | 15     | 1    | air-quality index (not decoded)                      |
///
/// Other versions and models are `notMine`; bytes after 16 are ignored.
///
/// Integrity check: none. Sanity: humidity > 100 % is `malformed`.
///
/// Sample: `13 ff e8 06 01 0a 0a 08 01 18 00 fb 09 e5 11 a6 03 0f 02 03` → temperature 25.55 °C,
/// humidity 45.81 %, CO₂ 934 ppm.
///
/// Source: custom-components/ble_monitor and Ernst79/bleparser `almendo.py` (layout, scaling;
/// their tests are among our vectors).
public struct AlmendoDecoder: SensorDecoder {
    public let id = "almendo"
    public let selectors: [Selector] = [.manufacturer(company: 0x06E8)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.manufacturerData(company: 0x06E8), d.u8(0) == 1, d.u8(2) == 0x0A else { return .notMine }
        guard d.count >= 16, let t = d.le16s(7), let h = d.le16(9), let co2 = d.le16(11) else {
            return .malformed("bluSensor frame of \(d.count) bytes, expected 16")
        }
        let humidity = Double(h) / 100
        guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
        var r = ad.reading(decoder: id, model: "bluSensor Mini")
        r.add(.temperatureC, Double(t) / 100)
        r.add(.humidityPercent, humidity)
        r.add(.co2PPM, Double(co2))
        return .reading(consume r)
    }
}
