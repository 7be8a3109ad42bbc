/// Qingping (ClearGrass) sensors in Qingping's own format: CGG1, CGDK2, CGP1W, CGP23W, CGD1, CGC1,
/// CGDN1 air monitor, CGP22C, CGF1W, CGM1, CGPR1, CGH1, CGR1PC.
/// Models: CGG1, CGG3, CGDK2, CGP1W, CGP23W, CGP22C, CGD1, CGC1, CGDN1 (air monitor), CGF1W, CGM1, CGPR1, CGH1, CGR1PC
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
    public let id = "qingping"
    public let selectors: [Selector] = [.serviceData(uuid16: 0xFDCD)]

    public init() {}

    /// The model of a device type byte.
    static func model(type: UInt8) -> String? {
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

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let frame = ad.serviceData(uuid16: 0xFDCD) else { return .notMine }
        guard frame.count >= 8, let flags = frame.u8(0), let type = frame.u8(1), let mac = frame.macLE(2) else {
            return .malformed("Qingping frame of \(frame.count) bytes, expected ≥ 8")
        }
        let isEvent = flags & 0x40 != 0
        var r = ad.reading(
            decoder: id, model: Self.model(type: type) ?? "Qingping type 0x\(Hex.number(type))",
            frameKind: isEvent ? "event" : nil)

        var stopped: String? = nil
        var at = 8
        while let tlvType = frame.u8(at) {
            guard let length = frame.u8(at + 1).map(Int.init), let v = frame.bytes((at + 2)..<(at + 2 + length)) else {
                stopped = "TLV 0x\(Hex.number(tlvType)) runs past the \(frame.count)-byte frame"
                break
            }
            at += 2 + length
            switch (tlvType, length) {
            case (0x01, 4):
                guard let t = v.le16s(0), let h = v.le16(2) else { continue }
                let humidity = Double(h) / 10
                guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
                r.add(.temperatureC, Double(t) / 10)
                r.add(.humidityPercent, humidity)
            case (0x02, 1):
                guard let level = v.u8(0), level != 0xFF else { break }  // 0xFF: mains powered, no level
                // Bit 7 is not part of the level: theengs masks it (its test_uuid[61] has 0xAA for
                // 42 %); qingping-ble reads the whole byte. Masking keeps 0…100 unchanged.
                let battery = level & 0x7F
                guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
                r.add(.batteryPercent, Double(battery))
            case (0x04, 1):
                r.add(.door, v.u8(0) == 1 ? 0 : 1)
            case (0x07, 2):
                if let p = v.le16(0) { r.add(.pressureHPa, Double(p) / 10) }
            case (0x08, 4):
                r.add(.motion, v.u8(0) == 0 ? 0 : 1)
                // In event frames the trailing bytes are not an illuminance (qingping-ble #84).
                if !isEvent, let lux = v.le24(1) { r.add(.illuminanceLux, Double(lux)) }
            case (0x09, 4):
                if let lux = v.le32(0) { r.add(.illuminanceLux, Double(lux)) }
            case (0x11, 1):
                r.add(.light, v.u8(0) == 0 ? 0 : 1)
            case (0x12, 4):
                guard let pm25 = v.le16(0), let pm10 = v.le16(2) else { continue }
                r.add(.pm25UgM3, Double(pm25))
                r.add(.pm10UgM3, Double(pm10))
            case (0x13, 2):
                if let co2 = v.le16(0) { r.add(.co2PPM, Double(co2)) }
            default:
                continue  // packet id (0x0F), capability bits (0x18), unknown types: length known, skipped
            }
        }
        if let why = stopped, r.measurements.isEmpty { return .malformed(why) }
        r.checkPayloadAddress(mac)
        if let why = stopped { r.warn(.text(why)) }
        return .reading(consume r)
    }
}
