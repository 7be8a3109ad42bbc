/// HHCC HHCCJCY10 plant sensor (Xiaomi / VegTrug "MiFlora" variant that advertises its
/// measurements in the clear).
/// Models: HHCCJCY10
///
/// Where: service data, 16-bit UUID 0xFD50, exactly 9 bytes; numbers big-endian:
///
/// | offset | size | field                        |
/// |--------|------|------------------------------|
/// | 0      | 1    | soil moisture, %             |
/// | 1      | 2    | temperature, s16 / 10 °C     |
/// | 3      | 3    | illuminance, lux             |
/// | 6      | 1    | battery, %                   |
/// | 7      | 2    | soil conductivity, µS/cm     |
///
/// Integrity check: none. Sanity: moisture or battery above 100 % is `malformed`. Another length
/// is not this frame.
///
/// Sample: `0c 16 50 fd 0e 00 6e 01 34 a4 28 00 5b` → moisture 14 %, temperature 11.0 °C,
/// illuminance 79 012 lx, battery 40 %, conductivity 91 µS/cm.
///
/// Source: theengs decoder `HHCCJCY10_json.h` (layout, signed temperature), custom-components/
/// ble_monitor `hhcc.py` (conductivity), their tests and xiaomi-ble's.
public struct HHCCDecoder: SensorDecoder {
    public let id = "hhcc_jcy10"
    public let selectors: [Selector] = [.serviceData(uuid16: 0xFD50)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let frame = ad.serviceData(uuid16: 0xFD50), frame.count == 9, let moisture = frame.u8(0),
            let t = frame.be16s(1), let lux = frame.be24(3), let battery = frame.u8(6), let conductivity = frame.be16(7)
        else { return .notMine }
        guard moisture <= 100, battery <= 100 else {
            return .malformed("moisture \(moisture) % or battery \(battery) % out of range")
        }
        var r = ad.reading(decoder: id, model: "HHCCJCY10")
        r.add(.moisturePercent, Double(moisture))
        r.add(.temperatureC, Double(t) / 10)
        r.add(.illuminanceLux, Double(lux))
        r.add(.batteryPercent, Double(battery))
        r.add(.conductivityUsCm, Double(conductivity))
        return .reading(consume r)
    }
}
