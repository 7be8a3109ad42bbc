/// MOKO (Mokosmart) BeaconX Pro beacons (MBXPRO): their own frames for device info,
/// accelerometer and temperature/humidity, next to iBeacon/Eddystone slots.
/// Models: BeaconX Pro
///
/// Where: service data, 16-bit UUID 0xFEAB; byte 0 is the frame type. Numbers big-endian.
///
/// | frame | length | fields decoded                                                       |
/// |-------|--------|----------------------------------------------------------------------|
/// | 0x40 device info | ≥ 5  | battery voltage mV at 3–4                                  |
/// | 0x60 accelerometer | 21 | battery voltage mV at 12–13 (the axes are not decoded)   |
/// | 0x70 T&H | ≥ 9   | temperature s16 / 10 °C at 3–4, humidity u16 / 10 % at 5–6, battery voltage mV at 7–8 |
///
/// The accelerometer frame has 21 bytes in every capture; the others' full lengths are not known,
/// so they are read as far as their fields go. Other frame types (0x50 iBeacon, 0x20 TLM, …) are
/// `notMine`.
///
/// Integrity check: none. Sanity: humidity > 100 % is `malformed`.
///
/// Sample: `18 16 ab fe 60 00 0a 01 00 07 15 40 39 c0 fa 00 0b f9 01 f4 0c 93 fe 34 87` →
/// accelerometer frame, battery 3.065 V.
///
/// Source: theengs decoder `MBXPRO` (frame types, offsets; its tests are among our vectors).
public struct MokoBeaconXProDecoder: SensorDecoder {
    public let id = "moko_beaconx_pro"
    public let selectors: [Selector] = [.serviceData(uuid16: 0xFEAB)]

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
