/// RuuviTag data formats 2 and 4 (early firmware): the measurements in an Eddystone-URL.
/// Models: RuuviTag (data formats 2 and 4)
///
/// Where: service data, 16-bit UUID 0xFEAA, Eddystone frame type 0x10 (URL):
///
/// | offset | size  | field                                                               |
/// |--------|-------|---------------------------------------------------------------------|
/// | 0      | 1     | 0x10                                                                |
/// | 1      | 1     | TX power at 0 m (not stored)                                        |
/// | 2      | 1     | URL scheme: 0x02 `http://` or 0x03 `https://`                        |
/// | 3      | 8     | `ruu.vi/#`                                                          |
/// | 11     | 8     | six bytes, base64 (URL-safe alphabet `-_`; `+/` also accepted)      |
/// | 19     | 0 / 1 | format 4: one more character, the tag's random id (ignored)         |
///
/// The six bytes, big-endian:
/// | offset | size | field                                                         |
/// |--------|------|---------------------------------------------------------------|
/// | 0      | 1    | format: 2 or 4                                                |
/// | 1      | 1    | humidity, u8 × 0.5 %                                          |
/// | 2      | 1    | temperature, whole °C, sign-magnitude (bit 7 = negative)       |
/// | 3      | 1    | temperature, hundredths (0 in these formats), same sign        |
/// | 4      | 2    | pressure, u16 + 50000 Pa                                       |
///
/// Integrity check: none. A `ruu.vi` URL whose characters are not base64, whose format byte is
/// not 2 or 4, or whose humidity is above 100 % is `malformed`. Other URLs are "not mine".
///
/// Sample: `17 16 aa fe 10 f6 03 72 75 75 2e 76 69 2f 23 42 47 51 59 41 4d 71 38 77`
/// (`https://ruu.vi/#BGQYAMq8w`) → format 4, humidity 50 %, temperature 24 °C, pressure 1019 hPa.
///
/// Source: Ruuvi's "Data format 2 and 4" documentation (docs.ruuvi.com); custom-components/
/// ble_monitor `ruuvitag.py` (URL-safe alphabet, the 9th character) and its test.
public struct RuuviEddystoneURLDecoder: SensorDecoder {
    public let id = "ruuvi_url"
    public let selectors: [Selector] = [.serviceData(uuid16: 0xFEAA)]

    static let host = Array("ruu.vi/#".utf8)

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let frame = ad.serviceData(uuid16: 0xFEAA), frame.u8(0) == 0x10, let scheme = frame.u8(2),
            scheme == 0x02 || scheme == 0x03, let host = frame.bytes(3..<11), host.bytes.elementsEqual(Self.host)
        else { return .notMine }
        guard frame.count == 19 || frame.count == 20, let text = frame.bytes(11..<19) else {
            return .malformed("ruu.vi URL of \(frame.count - 11) characters, expected 8 or 9")
        }
        guard let bytes = Self.base64(text) else { return .malformed("ruu.vi URL is not base64") }
        let data = Frame(bytes)
        guard let format = data.u8(0), format == 2 || format == 4, let h = data.u8(1), let whole = data.u8(2),
            let fraction = data.u8(3), let pressure = data.be16(4)
        else { return .malformed("ruu.vi URL of an unknown data format") }
        let humidity = Double(h) / 2
        guard humidity <= 100, fraction <= 99 else { return .malformed("humidity or temperature out of range") }
        let magnitude = Double(whole & 0x7F) + Double(fraction) / 100
        var r = ad.reading(decoder: id, model: "RuuviTag", frameKind: format == 2 ? "url-v2" : "url-v4")
        r.add(.humidityPercent, humidity)
        r.add(.temperatureC, whole & 0x80 != 0 ? -magnitude : magnitude)
        r.add(.pressureHPa, (Double(pressure) + 50000) / 100)
        return .reading(consume r)
    }

    /// Eight base64 characters as six bytes, or `nil` if one is not a base64 character.
    static func base64(_ text: Frame) -> [UInt8]? {
        var bits: UInt64 = 0
        for c in text.bytes {
            let v: UInt8
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = c - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = c - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"), UInt8(ascii: "+"): v = 62
            case UInt8(ascii: "_"), UInt8(ascii: "/"): v = 63
            default: return nil
            }
            bits = bits << 6 | UInt64(v)
        }
        return (0..<6).map { UInt8(truncatingIfNeeded: bits >> (8 * (5 - UInt64($0)))) }
    }
}
