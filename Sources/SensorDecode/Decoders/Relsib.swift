/// Relsib EClerk Eco (EClerk-Eco-RHTC) CO₂ meters, and the Relsib WH52 thermo-hygrometer.
/// Models: EClerk Eco (EClerk-Eco-RHTC), WH52
///
/// Where: service data with one of three 16-bit UUIDs, 22 bytes each; numbers little-endian.
///
/// | UUID   | offset | size | field                                                      |
/// |--------|--------|------|------------------------------------------------------------|
/// | 0xAA20 | 0      | 4    | flags                                                      |
/// |        | 4      | 2    | temperature, s16 / 100 °C                                  |
/// |        | 6      | 2    | humidity, u16 / 100 %                                      |
/// |        | 8      | 2    | CO₂, ppm                                                   |
/// |        | 13     | 1    | bit 7: power adapter plugged in; bits 6–0: battery %       |
/// | 0xAA21 | 0      | 6    | temperature, humidity, CO₂ as above; then the name         |
/// | 0xAA22 | 0      | 6    | the same; then the maker's name (firmware v9a)             |
///
/// 0x8000 in a measurement means "sensor not ready": that measurement is left out. With the
/// power adapter plugged in the meter sends no battery level; it is reported as 100 %, as
/// ble_monitor does, since the meter runs from the mains.
///
/// WH52: three service data structures, 0x1809 (2 bytes: temperature raw, big-endian), 0x181A
/// (2 bytes: humidity raw) and 0xAAA2 (4 ASCII digits, its serial; it marks the WH52).
/// Temperature = −45 + 175 × raw / 65535 °C (Sensirion's scale). The humidity is left out: its
/// scale is not established (ble_monitor applies the temperature formula to it, 76.2 % where
/// Sensirion's humidity scale gives 69.3 % for the same raw value).
///
/// Integrity check: none. Sanity: humidity or battery above 100 % is `malformed`; a frame of
/// fewer than 22 bytes is `malformed`.
///
/// Sample: `19 16 20 aa 84 00 00 00 b2 0a 20 0a 15 03 00 80 f0 47 00 c2 eb 0b 01 0b 03 00` →
/// temperature 27.38 °C, humidity 25.92 %, CO₂ 789 ppm, battery 71 %.
///
/// Source: custom-components/ble_monitor `relsib.py` (UUIDs, offsets, 0x8000, the adapter bit)
/// and its and bleparser's tests.
public struct RelsibDecoder: SensorDecoder {
    public let id = "relsib"
    public let selectors: [Selector] = [0xAA20, 0xAA21, 0xAA22, 0xAAA2].map { .serviceData(uuid16: $0) }

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        let status: Frame?
        let measurements: Frame
        if let frame = ad.serviceData(uuid16: 0xAA20) {
            (status, measurements) = (frame, frame.dropFirst(4))
        } else if let frame = ad.serviceData(uuid16: 0xAA21) ?? ad.serviceData(uuid16: 0xAA22) {
            (status, measurements) = (nil, frame)
        } else if ad.serviceData(uuid16: 0xAAA2) != nil, let t = ad.serviceData(uuid16: 0x1809), t.count == 2,
            let raw = t.be16(0)
        {
            var r = ad.reading(decoder: id, model: "WH52")
            r.add(.temperatureC, -45 + 175 * Double(raw) / 65535)
            return .reading(consume r)
        } else {
            return .notMine
        }
        let length = status?.count ?? measurements.count
        guard length >= 22, let t = measurements.le16(0), let h = measurements.le16(2), let co2 = measurements.le16(4)
        else { return .malformed("frame of \(length) bytes, expected 22") }
        let notReady: UInt16 = 0x8000
        var r = ad.reading(decoder: id, model: "EClerk Eco")
        if t != notReady { r.add(.temperatureC, Double(Int16(bitPattern: t)) / 100) }
        if h != notReady {
            let humidity = Double(h) / 100
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            r.add(.humidityPercent, humidity)
        }
        if co2 != notReady { r.add(.co2PPM, Double(co2)) }
        if let power = status?.u8(13) {
            let battery = power & 0x80 != 0 ? 100 : power & 0x7F
            guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
            r.add(.batteryPercent, Double(battery))
        }
        return .reading(consume r)
    }
}
