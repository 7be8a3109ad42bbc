/// Oria T301 and T201 temperature/humidity sensors.
/// Models: T301, T201
///
/// Where: manufacturer-specific data under id 0xAA55 (bytes `55 AA`), in advertisements named
/// `T301` or `T201` (the name tells the model). Offsets after the id, numbers big-endian:
///
/// | offset | size | field                                        |
/// |--------|------|----------------------------------------------|
/// | 0      | 2    | 01 05 (T301), 01 01 (T201)                   |
/// | 2      | 6    | device MAC, display order                    |
/// | 8      | 2    | 01 07                                        |
/// | 10     | 2    | temperature, s16 / 100 °C                    |
/// | 12     | 2    | humidity, u16 / 100 %                        |
/// | 14     | 1    | battery, %                                   |
/// | 15     | 2    | 00 01 (T201: one byte more, ignored)         |
///
/// Integrity check: none. Sanity: humidity or battery above 100 % is `malformed`, as is a frame
/// shorter than 17 bytes from a device so named. The payload MAC is compared with the
/// advertiser's (a warning).
///
/// Sample: `05 09 54 33 30 31 14 ff 55 aa 01 05 aa bb cc dd ee ff 01 07 0a 00 15 e0 63 00 01` from
/// AA:BB:CC:DD:EE:FF → T301, temperature 25.6 °C, humidity 56 %, battery 99 %.
///
/// Source: theengs decoder `T301_json.h` and its T301/T201 tests (layout, signed temperature).
public struct OriaT301Decoder: SensorDecoder {
    public let id = "oria_t301"
    public let selectors: [Selector] = [.manufacturer(company: 0xAA55)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let model = ["T301", "T201"].first(where: { ad.localNameIs($0) }),
            let data = ad.manufacturerData(company: 0xAA55)
        else { return .notMine }
        guard data.count >= 17, let mac = data.macBE(2), let t = data.be16s(10), let h = data.be16(12),
            let battery = data.u8(14)
        else { return .malformed("\(model) frame of \(data.count) bytes, expected ≥ 17") }
        let humidity = Double(h) / 100
        guard humidity <= 100, battery <= 100 else {
            return .malformed("humidity \(humidity) % or battery \(battery) % out of range")
        }
        var r = ad.reading(decoder: id, model: model)
        r.add(.temperatureC, Double(t) / 100)
        r.add(.humidityPercent, humidity)
        r.add(.batteryPercent, Double(battery))
        r.checkPayloadAddress(mac)
        return .reading(consume r)
    }
}
