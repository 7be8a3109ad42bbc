/// KKM KBeacon sensor frames — K6P, K9 (pallet tracker), K6 sensor beacon, and the beacons the
/// KKM "KSensor" app configures (the same frame with another sensor mask).
/// Models: K6P, K9, K6, KSensor beacons
///
/// Where: service data, 16-bit UUID 0xFEAA (Eddystone's), byte 0 the frame type 0x21 (KKM's
/// "sensor" frame; Eddystone's own TLM is 0x20). Bytes 1–2 are a big-endian sensor mask; the
/// fields it announces follow in bit order, each big-endian:
///
/// | mask bit | size | field                                                        |
/// |----------|------|--------------------------------------------------------------|
/// | 0x0001   | 2    | battery voltage, mV                                          |
/// | 0x0002   | 2    | temperature, signed 8.8 fixed point, °C                      |
/// | 0x0004   | 2    | humidity, 8.8 fixed point, %                                 |
/// | 0x0008   | 6    | acceleration x, y, z, s16 each (not stored)                  |
/// | 0x0010   | 1    | cut-off (tamper) state (not stored)                          |
/// | 0x0020   | 1    | PIR indication: nonzero = motion                             |
/// | 0x0040   | 2    | illuminance, lux                                             |
/// | 0x0080   | 5    | VOC: elapsed ×10 s u8, VOC index u16, NOx index u16 (not stored) |
/// | 0x0100   | 0    | set by every device seen; announces no field                 |
/// | 0x0200   | 3    | CO₂: elapsed ×10 s u8, CO₂ ppm u16                           |
/// | 0x0400   | 3    | record count: flags u8, count u16 (not stored)               |
///
/// Every device seen so far sends mask 0x0107 (K6P: voltage, temperature, humidity), 0x010F (K9:
/// plus acceleration) or 0x010B (KSensor beacons: voltage, temperature, acceleration). Bytes after
/// the announced fields are ignored (the K6 sends mask 0x0107 followed by six more bytes); higher,
/// unknown mask bits come after every known field, so they do not move the ones we read.
///
/// "8.8": `EF BB` is −16.27 °C (−4165 / 256), `FF C0` is −0.25 °C. (bleparser once read the low
/// byte as hundredths — `19 2A` as 25.42 °C rather than 25.16 — which its successor ble_monitor
/// and theengs do not.)
///
/// Integrity check: none. A frame shorter than its mask announces, or humidity above 100 %, is
/// `malformed`. Battery: KKM defines no voltage-to-percent curve, so only `voltage_v` is stored.
///
/// Sample: `12 16 aa fe 21 01 0f 0e 5b ef bb 42 d1 ff c2 00 00 04 07` → K9, voltage 3.675 V,
/// temperature −16.27 °C, humidity 66.82 %.
///
/// Source: KKM's kbeaconlib2 (Android/Python SDK, `KBAdvPacketSensor`: mask bits, field order and
/// sizes), theengs decoder `KKM_K6P_json.h`/`KKM_K9_json.h` (8.8 reading, model by mask),
/// custom-components/ble_monitor `kkm.py` tests.
public struct KKMSensorDecoder: SensorDecoder {
    public let id = "kkm_sensor"
    public let selectors: [Selector] = [.serviceData(uuid16: 0xFEAA)]

    /// The size of the field each mask bit announces, in frame order.
    static let fieldSizes: [(bit: UInt16, size: Int)] = [
        (0x0001, 2), (0x0002, 2), (0x0004, 2), (0x0008, 6), (0x0010, 1), (0x0020, 1), (0x0040, 2), (0x0080, 5),
        (0x0200, 3), (0x0400, 3),
    ]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let frame = ad.serviceData(uuid16: 0xFEAA), frame.u8(0) == 0x21, let mask = frame.be16(1) else {
            return .notMine
        }
        // How long the frame must be to hold every announced field.
        let end = Self.frameLength(mask: mask)
        guard frame.count >= end else {
            return .malformed("sensor frame of \(frame.count) bytes, mask \(Hex.number(mask, digits: 4)) needs \(end)")
        }
        func offset(_ bit: UInt16) -> Int? { Self.offset(of: bit, mask: mask) }
        var r = ad.reading(decoder: id, model: Self.model(mask: mask))
        if let at = offset(0x0001), let mv = frame.be16(at) { r.add(.voltageV, Double(mv) / 1000) }
        if let at = offset(0x0002), let t = frame.be16s(at) { r.add(.temperatureC, Double(t) / 256) }
        if let at = offset(0x0004), let h = frame.be16(at) {
            let humidity = Double(h) / 256
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            r.add(.humidityPercent, humidity)
        }
        if let at = offset(0x0020), let pir = frame.u8(at) { r.add(.motion, pir != 0 ? 1 : 0) }
        if let at = offset(0x0040), let lux = frame.be16(at) { r.add(.illuminanceLux, Double(lux)) }
        if let at = offset(0x0200), let co2 = frame.be16(at + 1) { r.add(.co2PPM, Double(co2)) }
        guard !r.measurements.isEmpty else { return .notMine }  // a mask of fields we do not store
        return .reading(consume r)
    }

    /// The length of a frame announcing `mask`: the header and every announced field.
    static func frameLength(mask: UInt16) -> Int {
        fieldSizes.reduce(3) { mask & $1.bit != 0 ? $0 + $1.size : $0 }
    }

    /// Where field `bit` starts in a frame announcing `mask`: after the header and every announced
    /// field before it; `nil` if `mask` does not announce it.
    static func offset(of bit: UInt16, mask: UInt16) -> Int? {
        guard mask & bit != 0 else { return nil }
        var at = 3
        for (earlier, size) in fieldSizes where earlier < bit && mask & earlier != 0 { at += size }
        return at
    }

    /// The model theengs names by the mask; others by the frame.
    static func model(mask: UInt16) -> String {
        switch mask {
        case 0x0107: "K6P"
        case 0x010F: "K9"
        case 0x010B: "KSensor beacon"
        default: "KBeacon sensor"
        }
    }
}
