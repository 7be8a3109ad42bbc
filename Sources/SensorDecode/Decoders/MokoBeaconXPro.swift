/// MOKO (Mokosmart) BeaconX Pro beacons (MBXPRO): their own frames for device info,
/// accelerometer and temperature/humidity, next to iBeacon/Eddystone slots.
/// Models: BeaconX Pro
///
/// Where: service data, 16-bit UUID 0xFEAB; byte 0 is the frame type. Numbers big-endian.
///
/// | frame | length | fields decoded                                                       |
/// |-------|--------|----------------------------------------------------------------------|
/// | 0x40 device info | ≥ 5  | battery voltage mV at 3–4                                  |
/// | 0x60 accelerometer | 21 | full-scale index at 4, axes x/y/z s16 at 6–11, battery voltage mV at 12–13 |
/// | 0x70 T&H | ≥ 9   | temperature s16 / 10 °C at 3–4, humidity u16 / 10 % at 5–6, battery voltage mV at 7–8 |
///
/// Accelerometer axes: each a left-justified 12-bit reading (the s16 shifted right by 4, keeping
/// its sign) times the resolution of the full scale at byte 4: 0 ±2 g → 1 mg, 1 ±4 g → 2 mg,
/// 2 ±8 g → 4 mg, 3 ±16 g → 12 mg (MOKO's SDK; the LIS3DH's high-resolution steps). Another
/// full-scale index leaves the axes out. Theengs reads the raw s16 / 10000 g, which puts a tag at
/// rest at 1.58 g and 1.61 g on its two captures; MOKO's reading gives 0.99 g and 1.00 g.
///
/// The accelerometer frame has 21 bytes in every capture; the others' full lengths are not known,
/// so they are read as far as their fields go. Other frame types (0x50 iBeacon, 0x20 TLM, …) are
/// `notMine`.
///
/// Integrity check: none. Sanity: humidity > 100 % is `malformed`.
///
/// Sample: `18 16 ab fe 60 00 0a 01 00 07 15 40 39 c0 fa 00 0b f9 01 f4 0c 93 fe 34 87` →
/// accelerometer frame (±2 g), x 0.340 g, y 0.924 g, z −0.096 g, battery 3.065 V.
///
/// Source: theengs decoder `MBXPRO` (frame types, offsets; its tests are among our vectors);
/// MOKO's BeaconX Pro Android SDK (`BeaconXParser.getAxis`: byte 3 sample rate, 4 full-scale
/// index, 5 motion threshold, the 4-bit shift and the resolution per full scale).
public struct MokoBeaconXProDecoder: SensorDecoder {
    public let id = "moko_beaconx_pro"
    public let selectors: [Selector] = [.serviceData(uuid16: 0xFEAB)]

    /// The accelerometer's resolution in mg per step, by the frame's full-scale index.
    static let milligPerStep: [Double] = [1, 2, 4, 12]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.serviceData(uuid16: 0xFEAB), let type = d.u8(0) else { return .notMine }
        switch type {
        case 0x40:
            guard d.count >= 5, let mv = d.be16(3) else { return .malformed("info frame of \(d.count) bytes") }
            var r = ad.reading(decoder: id, model: "BeaconX Pro", frameKind: "info")
            r.add(.voltageV, Double(mv) / 1000)
            return .reading(consume r)
        case 0x60:
            guard d.count == 21, let mv = d.be16(12) else { return .malformed("accelerometer frame of \(d.count) bytes") }
            var r = ad.reading(decoder: id, model: "BeaconX Pro", frameKind: "accelerometer")
            if let scale = d.u8(4), Int(scale) < Self.milligPerStep.count, let x = d.be16s(6), let y = d.be16s(8),
                let z = d.be16s(10)
            {
                let step = Self.milligPerStep[Int(scale)] / 1000
                r.add(.accelerationXG, Double(x >> 4) * step)
                r.add(.accelerationYG, Double(y >> 4) * step)
                r.add(.accelerationZG, Double(z >> 4) * step)
            }
            r.add(.voltageV, Double(mv) / 1000)
            return .reading(consume r)
        case 0x70:
            guard d.count >= 9, let t = d.be16s(3), let h = d.be16(5), let mv = d.be16(7) else {
                return .malformed("T&H frame of \(d.count) bytes")
            }
            let humidity = Double(h) / 10
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            var r = ad.reading(decoder: id, model: "BeaconX Pro", frameKind: "th")
            r.add(.temperatureC, Double(t) / 10)
            r.add(.humidityPercent, humidity)
            r.add(.voltageV, Double(mv) / 1000)
            return .reading(consume r)
        default:
            return .notMine
        }
    }
}
