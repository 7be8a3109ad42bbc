/// Mopeka Pro Check (M1017) ultrasonic tank-level sensors: Pro Check, Pro Plus, Pro Universal
/// (Lippert BottleCheck).
/// Models: Pro Check, Pro Plus, Pro Universal (M1017, Lippert BottleCheck)
///
/// Where: manufacturer-specific data, company 0x0059 (Nordic Semiconductor, whose id many devices
/// use: the length and hardware id must match), 10 bytes after the id:
///
/// | offset | size | field                                                            |
/// |--------|------|------------------------------------------------------------------|
/// | 0      | 1    | hardware id: 0x03 Pro Check, 0x06 Pro Plus, 0x0C Pro Universal   |
/// | 1      | 1    | bits 6–0: battery voltage, 1/32 V                                |
/// | 2      | 1    | bit 7: sync button pressed; bits 6–0: temperature + 40, °C       |
/// | 3      | 2    | little-endian; bits 13–0: echo time; bits 15–14: reading quality |
/// | 5      | 3    | last three bytes of the MAC                                      |
/// | 8      | 2    | accelerometer x, y, s8 (not stored)                              |
///
/// Tank level: echo time × (0.573045 − 0.002822 T − 0.00000535 T²) / 10 cm, where T is the raw
/// temperature byte (bits 6–0), the speed of sound in propane at that temperature; stored as
/// `distance_mm` only when the quality is above 0 (0 = no echo).
///
/// Battery: Mopeka's curve, (V − 2.2) / 0.65 × 100 % clamped to 0–100 (a CR2032 from 2.2 V empty
/// to 2.85 V full).
///
/// Integrity check: none; another length or hardware id is not this frame. Temperatures reach
/// −40 °C (raw 0).
///
/// Sample: `0d ff 59 00 03 5b 41 a4 c6 50 a8 cc 80 1b` → Pro Check, voltage 2.84375 V, battery
/// 99.04 %, temperature 25 °C, level 623.9 mm.
///
/// Source: theengs decoder `Mopeka_json.h` (layout, level coefficients, battery curve) and its
/// tests.
public struct MopekaProDecoder: SensorDecoder {
    public let id = "mopeka_pro"
    public let selectors: [Selector] = [.manufacturer(company: 0x0059)]

    static let models: [UInt8: String] = [0x03: "Pro Check", 0x06: "Pro Plus", 0x0C: "Pro Universal"]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let data = ad.manufacturerData(company: 0x0059), data.count == 10, let hardware = data.u8(0),
            let model = Self.models[hardware], let volts = data.u8(1), let temp = data.u8(2), let echo = data.le16(3)
        else { return .notMine }
        let voltage = Double(volts & 0x7F) / 32
        let t = Double(temp & 0x7F)
        var r = ad.reading(decoder: id, model: model)
        r.add(.temperatureC, t - 40)
        r.add(.voltageV, voltage)
        r.add(.batteryPercent, min(100, max(0, (voltage - 2.2) / 0.65 * 100)))
        if echo >> 14 > 0 {
            let centimetres = Double(echo & 0x3FFF) * (0.573045 - 0.002822 * t - 0.00000535 * t * t) / 10
            r.add(.distanceMm, centimetres * 10)
        }
        return .reading(consume r)
    }
}
