/// Blustream humidity/temperature sensors (the TaylorSense guitar case monitor and Blustream's
/// own instrument and cargo sensors).
/// Models: Blustream
///
/// Where: manufacturer-specific data, company 0x0194 (Blustream), 9 bytes after the id. Numbers
/// big-endian; offsets after the company id.
///
/// | offset | size | field                                                   |
/// |--------|------|---------------------------------------------------------|
/// | 0      | 4    | not decoded (bytes 1–2 repeat the address's last two)   |
/// | 4      | 1    | acceleration (movement intensity, unit not documented)  |
/// | 5      | 2    | humidity, u16 / 100 %                                   |
/// | 7      | 2    | temperature, s16 / 100 °C                               |
///
/// Integrity check: none. Sanity: humidity > 100 % is `malformed`; another length is `notMine`.
///
/// Sample: `0c ff 94 01 01 de f9 02 be 0f f1 07 d0` → humidity 40.81 %, temperature 20.00 °C.
///
/// Source: custom-components/ble_monitor `blustream.py` (length, layout, scaling; its test is
/// among our vectors).
public struct BlustreamDecoder: SensorDecoder {
    public let id = "blustream"
    public let selectors: [Selector] = [.manufacturer(company: 0x0194)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.manufacturerData(company: 0x0194), d.count == 9, let h = d.be16(5),
            let t = d.be16s(7)
        else { return .notMine }
        let humidity = Double(h) / 100
        guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
        var r = ad.reading(decoder: id, model: "Blustream")
        r.add(.humidityPercent, humidity)
        r.add(.temperatureC, Double(t) / 100)
        return .reading(consume r)
    }
}
