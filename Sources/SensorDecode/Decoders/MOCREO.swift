/// MOCREO sensors — ST5, ST6, ST8, ST9, ST10 (probe thermometers, some with humidity), MS1, MS2,
/// MS3 (thermometers), SW2 (water leak).
/// Models: ST5, ST6, ST8, ST9, ST10, MS1, MS2, MS3, SW2
///
/// Where: manufacturer-specific data, 18 bytes including the "company id", in advertisements named
/// `MOCREO`. The first two bytes are not a company id: byte 1 is the device type. Offsets count
/// from the first byte of the whole value; numbers are little-endian:
///
/// | offset | size | field                                                     |
/// |--------|------|-----------------------------------------------------------|
/// | 0      | 1    | flags                                                     |
/// | 1      | 1    | device type (table below)                                 |
/// | 2–3    | 2    | flags, firmware version                                   |
/// | 4      | 1    | bits 6–0: battery %                                       |
/// | 5      | 1    | flags (connection state)                                  |
/// | 6      | 2    | temperature, s16 / 100 °C                                 |
/// | 8      | 2    | humidity, u16 / 100 % (ST6, ST9)                          |
/// | 10     | 1    | bit 0: water detected (SW2); bit 1: button state          |
///
/// | type | model | type | model | type | model |
/// |------|-------|------|-------|------|-------|
/// | 0x81 | ST5   | 0x84 | ST8   | 0x8B | MS1   |
/// | 0x82 | SW2   | 0x86 | ST9   | 0x94 | MS2   |
/// | 0x83 | ST6   | 0x87 | ST10  | 0x96 | MS3   |
///
/// Other device types (the ST7's frame, the SD1's dual probe) are "not mine": not guessed.
///
/// Integrity check: none. Sanity: battery or humidity above 100 % is `malformed`; a value shorter
/// than 18 bytes is `malformed` for a known type (a cut frame). Bytes 11–17 (zero on every device
/// seen) and any after them are ignored.
///
/// Sample: `07 09 4d 4f 43 52 45 4f 13 ff 01 87 89 01 81 b0 92 f7 00 00 00 00 00 da 73 00 00 00`
/// → ST10, battery 1 %, temperature −21.58 °C.
///
/// Source: custom-components/ble_monitor `mocreo.py` (type table, bit positions, scales) and its
/// tests.
public struct MOCREODecoder: SensorDecoder {
    public let id = "mocreo"
    public let selectors: [Selector] = [.localName("MOCREO")]

    static let models: [UInt8: String] = [
        0x81: "ST5", 0x82: "SW2", 0x83: "ST6", 0x84: "ST8", 0x86: "ST9", 0x87: "ST10", 0x8B: "MS1", 0x94: "MS2",
        0x96: "MS3",
    ]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard ad.localNameIs("MOCREO"), let value = ad.manufacturerData.first?.frame, let type = value.u8(1),
            let model = Self.models[type]
        else { return .notMine }
        guard value.count >= 18, let level = value.u8(4), let t = value.le16s(6), let h = value.le16(8),
            let flags = value.u8(10)
        else { return .malformed("\(model) frame of \(value.count) bytes, expected 18") }
        let battery = level & 0x7F
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        var r = ad.reading(decoder: id, model: model)
        if model == "SW2" {
            r.add(.moistureDetected, Double(flags & 0x01))
        } else {
            r.add(.temperatureC, Double(t) / 100)
        }
        if model == "ST6" || model == "ST9" {
            let humidity = Double(h) / 100
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            r.add(.humidityPercent, humidity)
        }
        r.add(.batteryPercent, Double(battery))
        return .reading(consume r)
    }
}
