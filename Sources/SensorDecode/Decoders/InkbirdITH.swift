/// Inkbird ITH-11-B, ITH-13-B, ITH-21-B (thermo-hygrometers) and IBS-P02B (pool thermometer): the
/// newer Inkbird frame with a fixed tag.
/// Models: ITH-11-B, ITH-13-B, ITH-21-B, IBS-P02B
///
/// Where: manufacturer-specific data, "company" 0x2449, 16 bytes after it; the model is the local
/// name (`ITH-13-B`). Numbers little-endian; offsets after the company id.
///
/// | offset | size | field                                                     |
/// |--------|------|-----------------------------------------------------------|
/// | 0      | 1    | device kind (0x08 ITH-11-B, 0x12 ITH-13-B, 0x07 ITH-21-B,  |
/// |        |      | 0x11 IBS-P02B)                                            |
/// | 1      | 3    | unknown                                                   |
/// | 4      | 2    | temperature, s16 LE / 10 °C                               |
/// | 6      | 2    | humidity, u16 LE / 10 % (ITH models only)                  |
/// | 8      | 1    | battery %                                                 |
/// | 9      | 7    | unknown                                                   |
///
/// Integrity check: none. Sanity: humidity > 100 % or battery > 100 % is `malformed`, and so is
/// a temperature beyond ±200 °C (inkbird-ble's ceiling for its advertisement parsers); an
/// all-0xFF frame is `malformed`. Humidity is reported only for models known to measure it (by
/// name, or device kind 0x08/0x12/0x07 when there is no name).
///
/// Sample: `13 ff 49 24 12 23 05 2f 0e 01 10 02 64 00 00 00 00 00 00 00` (name `ITH-13-B`) →
/// temperature 27.0 °C, humidity 52.8 %, battery 100 %.
///
/// Source: offsets read off Bluetooth-Devices inkbird-ble's test advertisements for these models
/// (test_ith_11_b, test_ith_31_b, test_IBS_P02B), which are in our vectors, and test_ith_21_b
/// (ITH-21-B: kind 0x07, the same layout, with humidity).
public struct InkbirdITHDecoder: SensorDecoder {
    public let id = "inkbird_ith"
    public let selectors: [Selector] = [.manufacturer(company: 0x2449)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let data = ad.manufacturerData(company: 0x2449) else { return .notMine }
        guard data.count == 16, let kind = data.u8(0), let t = data.le16s(4), let h = data.le16(6),
            let battery = data.u8(8)
        else { return .malformed("0x2449 frame of \(data.count) bytes, expected 16") }
        guard !data.isAllFF() else { return .malformed("all-0xFF frame") }
        let hasName = ad.localName != nil
        let model: String
        let hasHumidity: Bool
        if ad.localNameIs("ITH-11-B") || (!hasName && kind == 0x08) {
            (model, hasHumidity) = ("ITH-11-B", true)
        } else if ad.localNameIs("ITH-13-B") || (!hasName && kind == 0x12) {
            (model, hasHumidity) = ("ITH-13-B", true)
        } else if ad.localNameIs("ITH-21-B") || (!hasName && kind == 0x07) {
            (model, hasHumidity) = ("ITH-21-B", true)
        } else if ad.localNameIs("IBS-P02B") || (!hasName && kind == 0x11) {
            (model, hasHumidity) = ("IBS-P02B", false)
        } else {
            (model, hasHumidity) = ("Inkbird 0x" + Hex.number(kind), false)
        }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        let celsius = Double(t) / 10
        guard abs(celsius) <= 200 else { return .malformed("temperature \(celsius) °C out of range") }
        var r = ad.reading(decoder: id, model: model)
        r.add(.temperatureC, celsius)
        if hasHumidity {
            let humidity = Double(h) / 10
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            r.add(.humidityPercent, humidity)
        }
        r.add(.batteryPercent, Double(battery))
        return .reading(consume r)
    }
}
