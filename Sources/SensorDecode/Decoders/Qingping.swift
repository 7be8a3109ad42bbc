/// Qingping (ClearGrass) sensors in Qingping's own format: CGG1, CGDK2, CGP1W, CGP23W, CGD1, CGC1,
/// CGDN1 air monitor, CGP22C, CGF1W, CGM1, CGPR1, CGH1, CGR1PC.
///
/// Where: service data, 16-bit UUID 0xFDCD (Qingping's). Little-endian.
/// | offset | size | field                                                        |
/// |--------|------|--------------------------------------------------------------|
/// | 0      | 1    | frame control; bit 6 = event frame                           |
/// | 1      | 1    | device type (table `models`)                                 |
/// | 2      | 6    | MAC, reversed                                                |
/// | 8      | …    | TLVs: type(1), length(1), value(length)                      |
///
/// | type | length | value                                                            |
/// |------|--------|------------------------------------------------------------------|
/// | 0x01 | 4      | temperature s16 / 10 °C, humidity u16 / 10 %                     |
/// | 0x02 | 1      | battery % in bits 0–6 (bit 7 a flag); 0xFF = mains powered, omitted |
/// | 0x04 | 1      | door: 0 open, 1 closed, 2 left open → `door` 1 = open            |
/// | 0x07 | 2      | pressure u16 / 10 hPa                                            |
/// | 0x08 | 4      | motion u8, illuminance u24 lux (not valid in event frames)       |
/// | 0x09 | 4      | illuminance u32 lux                                              |
/// | 0x11 | 1      | light 0/1                                                        |
/// | 0x12 | 4      | PM2.5 u16, PM10 u16 µg/m³                                        |
/// | 0x13 | 2      | CO2 u16 ppm                                                      |
/// | 0x0F, 0x18, other | — | packet id, capability bits, unknown: skipped (lengths are given) |
/// A TLV of a known type with another length is skipped, as the peers do.
///
/// Integrity check: none; a TLV running past the frame ends the walk (kept what came before with a
/// warning; `malformed` if nothing came before). Sanity: humidity ≤ 100 %, battery ≤ 100 %.
///
/// Sample: `08 0c bf 65 52 34 2d 58 01 04 f1 00 ad 01 02 01 25` from 58:2D:34:52:65:BF → CGD1,
/// 24.1 °C, 42.9 %, battery 37 %.
///
/// Source: the TLV types and device types as documented by Bluetooth-Devices/qingping-ble and
/// custom-components/ble_monitor (`qingping.py`); the peers' tests in ../shared/vectors.
public struct QingpingDecoder: SensorDecoder {
    public var id: StaticString { "qingping" }
    public let selectors: [DecoderSelector] = [.serviceData16(0xFDCD)]

    public init() {}

    /// The model of a device type byte. A switch: a dictionary lookup hashed the byte per frame
    /// (callgrind).
    static func model(type: UInt8) -> StaticString? {
        switch type {
        case 0x01, 0x07, 0x16: "CGG1"
        case 0x04: "CGH1"
        case 0x09: "CGP1W"
        case 0x0C: "CGD1"
        case 0x0E, 0x24: "CGDN1"
        case 0x0F: "CGM1"
        case 0x10: "CGDK2"
        case 0x12: "CGPR1"
        case 0x15: "CGF1W"
        case 0x18, 0x26: "CGP23W"
        case 0x1E: "CGC1"
        case 0x33, 0x5D: "CGP22C"
        case 0x4F: "CGG3"
        case 0x52, 0x62: "CGR1PC"
        default: nil
        }
    }

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        guard let range = ad.serviceDataRange(uuid16: 0xFDCD) else { return .notMine }
        let frame = ad.bytes.extracting(range)
        guard frame.count >= 8 else { return .malformed("Qingping frame of \(frame.count) bytes, expected ≥ 8") }
        let isEvent = frame.u8(0) & 0x40 != 0
        let type = frame.u8(1)
        let model = Self.model(type: type)
        // The reading is begun before the walk, which adds to it; a value out of range returns
        // `.malformed`, and the registry drops the reading.
        readings.begin(ad, decoderID: id, model: model ?? "Qingping", frameKind: isEvent ? "event" : nil)
        if model == nil { readings.setModel("Qingping type 0x\(Hex.encode([type]))") }

        var stopped: MalformedReason? = nil
        // The TLVs walked by offset into the frame: a reader and a slice per value cost a retain
        // and a release each (callgrind).
        var at = 8
        while at < frame.count {
            let tlvType = frame.u8(at)
            guard at + 2 <= frame.count, at + 2 + Int(frame.u8(at + 1)) <= frame.count else {
                stopped = "TLV 0x\(hex: tlvType) runs past the \(frame.count)-byte frame"
                break
            }
            let length = Int(frame.u8(at + 1))
            let v = at + 2  // where the value starts
            at = v + length
            switch (tlvType, length) {
            case (0x01, 4):
                let humidity = Double(frame.le16(v + 2)) / 10
                guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
                readings.add(.temperatureC, Double(frame.le16s(v)) / 10)
                readings.add(.humidityPercent, humidity)
            case (0x02, 1):
                if frame.u8(v) == 0xFF { break }  // mains powered: no battery level to report
                // Bit 7 is not part of the level: theengs masks it (its test_uuid[61] has 0xAA for
                // 42 %); qingping-ble reads the whole byte. Masking keeps 0…100 unchanged.
                let battery = frame.u8(v) & 0x7F
                guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
                readings.add(.batteryPercent, Double(battery))
            case (0x04, 1):
                readings.add(.door, frame.u8(v) == 1 ? 0 : 1)
            case (0x07, 2):
                readings.add(.pressureHPa, Double(frame.le16(v)) / 10)
            case (0x08, 4):
                readings.add(.motion, frame.u8(v) == 0 ? 0 : 1)
                // In event frames the trailing bytes are not an illuminance (qingping-ble #84).
                if !isEvent { readings.add(.illuminanceLux, Double(frame.le24(v + 1))) }
            case (0x09, 4):
                readings.add(.illuminanceLux, Double(frame.le32(v)))
            case (0x11, 1):
                readings.add(.light, frame.u8(v) == 0 ? 0 : 1)
            case (0x12, 4):
                readings.add(.pm25UgM3, Double(frame.le16(v)))
                readings.add(.pm10UgM3, Double(frame.le16(v + 2)))
            case (0x13, 2):
                readings.add(.co2PPM, Double(frame.le16(v)))
            default:
                continue  // packet id (0x0F), capability bits (0x18), unknown types: length known, skipped
            }
        }
        if let why = stopped, readings.currentMeasurementCount == 0 { return .malformed(why) }
        readings.checkPayloadAddress(frame.macLE(2))
        if let why = stopped { readings.warn(.reason(why)) }
        return .decoded
    }
}
