/// MOCREO sensors — ST5, ST6, ST7, ST7-CL, ST8, ST9, ST10 (probe thermometers, some with
/// humidity), MS1, MS2, MS3 (thermometers), SD1 (two probes, humidity, door contact), SW2 (water
/// leak).
/// Models: ST5, ST6, ST7, ST7-CL, ST8, ST9, ST10, MS1, MS2, MS3, SD1, SW2
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
/// | 8      | 2    | humidity, u16 / 100 % (ST6, ST9); SD1: second probe, s16 / 100 °C |
/// | 10     | 1    | bit 0: water detected (SW2); bit 1: button state; SD1: bit 2 door open, bits 7–4 humidity bits 11–8 |
/// | 11     | 1    | SD1: humidity bits 7–0 (12 bits / 10 %)                   |
///
/// The ST7-CL (type 0x85) has its temperature one byte earlier, at 5–6. The ST7 (type 0x10) sends
/// a 16-byte value of its own that starts with 0x4A: the fields above start at its byte 7 (type at
/// 8, battery at 11) and its temperature, as the ST7-CL's, at 5–6 of them (bytes 12–13).
///
/// | type | model  | type | model | type | model |
/// |------|--------|------|-------|------|-------|
/// | 0x10 | ST7    | 0x84 | ST8   | 0x8B | MS1   |
/// | 0x81 | ST5    | 0x85 | ST7-CL| 0x94 | MS2   |
/// | 0x82 | SW2    | 0x86 | ST9   | 0x95 | SD1   |
/// | 0x83 | ST6    | 0x87 | ST10  | 0x96 | MS3   |
///
/// Other device types are "not mine": not guessed.
///
/// Integrity check: none. Sanity: battery or humidity above 100 % is `malformed`; a value shorter
/// than 18 bytes is `malformed` for a known type (a cut frame); the ST7's is exactly 16. Bytes 11–17 (zero on every device
/// seen) and any after them are ignored.
///
/// Sample: `07 09 4d 4f 43 52 45 4f 13 ff 01 87 89 01 81 b0 92 f7 00 00 00 00 00 da 73 00 00 00`
/// → ST10, battery 1 %, temperature −21.58 °C.
///
/// Source: custom-components/ble_monitor `mocreo.py` (type table, bit positions, scales, the ST7's
/// own frame and the SD1's fields) and its tests (ST7, ST7-CL and SD1 have no peer vectors: their
/// tests use frames built from this layout).
public struct MOCREODecoder: SensorDecoder {
    public let id = "mocreo"
    public let selectors: [Selector] = [.localName("MOCREO")]

    static let models: [UInt8: String] = [
        0x10: "ST7", 0x81: "ST5", 0x82: "SW2", 0x83: "ST6", 0x84: "ST8", 0x85: "ST7-CL", 0x86: "ST9", 0x87: "ST10",
        0x8B: "MS1", 0x94: "MS2", 0x95: "SD1", 0x96: "MS3",
    ]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard ad.localNameIs("MOCREO"), let value = ad.manufacturerData.first?.frame else { return .notMine }
        // The ST7's own 16-byte frame carries the common fields from its byte 7.
        let isST7Frame = value.count == 16 && value.u8(0) == 0x4A
        let fields = isST7Frame ? value.dropFirst(7) : value
        guard let type = fields.u8(1), let model = Self.models[type], isST7Frame == (type == 0x10) else {
            return .notMine
        }
        // The ST7's frame is whole by its length (its fields end at byte 6); any other is 18 bytes or more.
        guard isST7Frame || value.count >= 18, let level = fields.u8(4),
            let t = fields.le16s(type == 0x10 || type == 0x85 ? 5 : 6)
        else { return .malformed("\(model) frame of \(value.count) bytes, expected 18") }
        let battery = level & 0x7F
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        var r = ad.reading(decoder: id, model: model)
        switch model {
        case "SW2":
            guard let flags = fields.u8(10) else { return .notMine }  // inside the 18 bytes
            r.add(.moistureDetected, Double(flags & 0x01))
        case "ST6", "ST9":
            guard let h = fields.le16(8) else { return .notMine }  // inside the 18 bytes
            let humidity = Double(h) / 100
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            r.add(.temperatureC, Double(t) / 100)
            r.add(.humidityPercent, humidity)
        case "SD1":
            // Inside the 18 bytes.
            guard let probe = fields.le16s(8), let flags = fields.u8(10), let low = fields.u8(11) else { return .notMine }
            let humidity = Double(Int(flags >> 4) << 8 | Int(low)) / 10
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            r.add(.temperatureC, Double(t) / 100)
            r.add(Self.secondProbe, Double(probe) / 100)
            r.add(.humidityPercent, humidity)
            r.add(.door, Double(flags >> 2 & 1))
        default:
            r.add(.temperatureC, Double(t) / 100)
        }
        r.add(.batteryPercent, Double(battery))
        return .reading(consume r)
    }

    /// The SD1's second probe: the second temperature of the frame (`temperature2_c`).
    static let secondProbe = Quantity.temperatureC.instance(2, unitSuffix: "c")
}
