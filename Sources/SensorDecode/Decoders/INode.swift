/// iNode Care Sensors with an SHT-type humidity sensor or a barometer: Care Sensor 3, HT, PT
/// and PHT. (The motion-only Care Sensors 1, 2, 4–6, T and the Energy Meter are not decoded.)
/// Models: iNode Care Sensor 3, iNode Care Sensor HT, iNode Care Sensor PT, iNode Care Sensor PHT
///
/// Where: manufacturer-specific data of 24 bytes; iNode puts its device type where the company
/// id's high byte would be (0x93, 0x9B, 0x9C, 0x9D) and flags in its low byte. Numbers
/// little-endian; offsets after those two bytes.
///
/// | offset | size | field                                                             |
/// |--------|------|-------------------------------------------------------------------|
/// | 0      | 2    | bits 15–12: battery step (1 = full, n = 10 · (n − 1) %, at most 100) |
/// | 2      | 2    | alarm bits (not decoded)                                          |
/// | 4      | 2    | pressure raw (PT, PHT): raw / 16 hPa                              |
/// | 6      | 2    | temperature raw: 175.72 · 4 · raw / 65536 − 46.85 °C (PT: 42.5 + s16 / 480) |
/// | 8      | 2    | humidity raw (3, HT, PHT): 125 · 4 · raw / 65536 − 6 %            |
/// | 10     | 4    | time (not decoded)                                                |
/// | 14     | 8    | signature (not checked: its key is the owner's)                   |
///
/// `voltage_v` is iNode's own mapping of the battery step, (level − 10) · 1.2 / 100 + 1.8 V,
/// not a measurement. Humidity is clamped to 0…100 % (the sensor's formula leaves it slightly).
///
/// Integrity check: none usable (the signature needs the owner's key).
///
/// Sample: `19 ff 90 9b 01 a0 00 00 00 00 7f 14 b9 29 8e 61 af 6c de 99 ef 79 78 70 ee 41` →
/// Care Sensor HT, battery 90 % (2.76 V), temperature 9.42 °C, humidity 75.49 %.
///
/// Source: custom-components/ble_monitor `inode.py`, which follows iNode's advertising document
/// (device types, formulas, battery steps; its tests are among our vectors).
public struct INodeDecoder: SensorDecoder {
    public let id = "inode"
    public let selectors: [Selector] = [.manufacturerLength(24)]

    static let models: [UInt8: String] = [
        0x93: "iNode Care Sensor 3", 0x9B: "iNode Care Sensor HT", 0x9C: "iNode Care Sensor PT",
        0x9D: "iNode Care Sensor PHT",
    ]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let m = ad.manufacturerData.first(where: { $0.value.count == 24 && Self.models[$0.frame.u8(1) ?? 0] != nil }),
            let type = m.frame.u8(1), let model = Self.models[type]
        else { return .notMine }
        let d = m.payload
        guard let groups = d.le16(0), let p = d.le16(4), let t = d.le16(6), let h = d.le16(8) else { return .notMine }
        let step = Int(groups >> 12)
        let battery = step == 1 ? 100 : 10 * (min(step, 11) - 1)
        guard battery >= 0 else { return .malformed("battery step 0") }
        var r = ad.reading(decoder: id, model: model)
        if type == 0x9C {
            r.add(.temperatureC, 42.5 + Double(Int16(bitPattern: t)) / 480)  // the barometer's own signed sensor
        } else {
            r.add(.temperatureC, 175.72 * 4 * Double(t) / 65536 - 46.85)
        }
        if type != 0x9C { r.add(.humidityPercent, min(100, max(0, 125 * 4 * Double(h) / 65536 - 6))) }
        if type == 0x9C || type == 0x9D { r.add(.pressureHPa, Double(p) / 16) }
        r.add(.batteryPercent, Double(battery))
        r.add(.voltageV, Double(battery - 10) * 1.2 / 100 + 1.8)
        return .reading(consume r)
    }
}
