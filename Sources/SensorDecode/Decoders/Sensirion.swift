/// Sensirion gadgets and boards running Sensirion's BLE gadget library (MyAmbience protocol):
/// SHT40/41/45 Gadget, MyCO2, SCD4x and SHT3x gadgets, DIY boards with `arduino-ble-gadget`.
/// Models: SHT40 Gadget, SHT41 Gadget, SHT45 Gadget, SHT4x gadget, MyCO2, SCD4x gadget, SHT3x gadget
///
/// Where: manufacturer-specific data, company 0x06D5 (Sensirion AG). Numbers little-endian;
/// offsets after the company id.
///
/// | offset | size | field                                                            |
/// |--------|------|------------------------------------------------------------------|
/// | 0      | 1    | advertisement type, 0x00 (measurement sample)                    |
/// | 1      | 1    | sample type, which fields follow (table below)                   |
/// | 2      | 2    | device id (the last two bytes of the MAC)                        |
/// | 4      | 2    | temperature raw: T = −45 + 175 · raw / 65535 °C                  |
/// | 6      | 2    | humidity raw: RH = 100 · raw / 65535 % (type 6: −6 + 125 · raw / 65535) |
/// | 8      | 2    | CO₂ ppm (types 8, 10, 12)                                        |
/// | 10     | 2    | PM2.5 raw: 1000 · raw / 65535 µg/m³ (type 12)                    |
///
/// | sample type | fields            | devices                        |
/// |-------------|-------------------|--------------------------------|
/// | 4           | T, RH             | SHT3x gadgets                  |
/// | 6           | T, RH (SHT4x RH)  | SHT40/41/45 Gadget             |
/// | 8           | T, RH, CO₂        | MyCO2                          |
/// | 10          | T, RH, CO₂        | SCD4x gadgets                  |
/// | 12          | T, RH, CO₂, PM2.5 | SCD4x + SPS30 boards           |
///
/// Other sample types (VOC/NOx indices, formaldehyde) are not decoded: `notMine`. Bytes after
/// the sample (SHT4x gadgets append their name; MyCO2 a reserved word) are ignored.
///
/// Integrity check: none. Sanity: the SHT4x humidity formula can leave 0…100 by a few percent at
/// the extremes; the result is clamped to 0…100 as Sensirion's SHT4x datasheet prescribes.
///
/// Sample: `0b ff d5 06 00 0a e2 e7 33 33 9d c4 e9 02` → SCD4x gadget, temperature −10.0 °C,
/// humidity 76.80 %, CO₂ 745 ppm.
///
/// Source: Sensirion `ble-services` (`ble-ad-sample-types.yml`: sample types, offsets and
/// conversions); custom-components/ble_monitor `sensirion.py` and theengs decoder `SHT4X`/`SCD4X`
/// (their tests are among our vectors).
public struct SensirionDecoder: SensorDecoder {
    public let id = "sensirion"
    public let selectors: [Selector] = [.manufacturer(company: 0x06D5)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.manufacturerData(company: 0x06D5), d.u8(0) == 0x00, let type = d.u8(1) else {
            return .notMine
        }
        let model: String
        let length: Int
        switch type {
        case 4: (model, length) = ("SHT3x gadget", 8)
        case 6: (model, length) = (Self.sht4xModel(ad), 8)
        case 8: (model, length) = ("MyCO2", 10)
        case 10: (model, length) = ("SCD4x gadget", 10)
        case 12: (model, length) = ("SCD4x gadget", 12)
        default: return .notMine  // a sample type whose fields we do not decode
        }
        guard d.count >= length, let t = d.le16(4), let h = d.le16(6) else {
            return .malformed("sample type \(type) of \(d.count) bytes, expected \(length)")
        }
        var r = ad.reading(decoder: id, model: model, frameKind: "sample-\(type)")
        r.add(.temperatureC, -45 + 175 * Double(t) / 65535)
        let humidity = type == 6 ? -6 + 125 * Double(h) / 65535 : 100 * Double(h) / 65535
        r.add(.humidityPercent, min(100, max(0, humidity)))
        if let co2 = d.le16(8), type >= 8 { r.add(.co2PPM, Double(co2)) }
        if let pm = d.le16(10), type == 12 { r.add(.pm25UgM3, 1000 * Double(pm) / 65535) }
        return .reading(consume r)
    }

    /// The SHT4x gadget's name says which sensor it carries (`SHT40 Gadget`, …).
    static func sht4xModel(_ ad: Advertisement) -> String {
        for model in ["SHT40 Gadget", "SHT41 Gadget", "SHT45 Gadget"] where ad.localNameIs(model) { return model }
        return "SHT4x gadget"
    }
}
