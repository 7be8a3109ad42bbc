/// SensorPush HT.w, HTP.xw, TC.x (current models) and HT1 (first generation).
/// Models: HT.w, HTP.xw, TC.x, HT1
///
/// Where: manufacturer-specific data, where the "company id" is the start of the payload. The
/// advertisement is recognised by the local name (`SensorPush HT.w 0CA1`, `HT1`'s name `s`) or by
/// SensorPush's 128-bit service UUID EF090000-11D6-42BA-93B8-9DD7EC090AB0 (HT1: …0AA9) in the
/// service UUID list. Offsets count from the first byte of the whole value.
///
/// Current models: byte 0 bits 1–0 are the page (0 carries measurements; other pages are not
/// decoded) and bits 7–2 the device type, 64 + (byte 0 >> 2): 64 HTP.xw, 65 HT.w, 66 TC.x. Bytes
/// 1… are one little-endian integer holding the values in mixed radix, least significant first:
/// value i = (N / Π(earlier counts)) mod count_i, count = (max − min) / step + 1, result
/// min + value × step.
///
/// | type      | fields (min, max, step)                                                      |
/// |-----------|------------------------------------------------------------------------------|
/// | 64 HTP.xw | temperature (−40, 140, 0.0025 °C), humidity (0, 100, 0.0025 %), pressure (30000, 125000, 1 Pa) |
/// | 65 HT.w   | temperature (−40, 125, 0.0025 °C), humidity (0, 100, 0.0025 %)                 |
/// | 66 TC.x   | thermocouple temperature (−200, 1800, 0.0625 °C)                              |
///
/// HT1, 4 bytes: humidity raw = byte 0 | (byte 1 & 0x0F) << 8 (12 bits), temperature raw = byte 1 >> 4
/// | byte 2 << 4 | (byte 3 & 0x03) << 12 (14 bits), device type = (byte 3 & 0x7C) >> 2 = 1.
/// Temperature = −46.85 + 175.72 · raw / 2¹⁴, humidity = −6 + 125 · raw / 2¹², clipped to 0–100 as
/// Sensirion's SHT2x datasheet prescribes.
///
/// Integrity check: none. Sanity: mixed radix keeps every field inside its range by
/// construction, but a packed number at or above the product of the counts encodes no values
/// (the modulo would read garbage as plausible ones): `malformed`. A page other than 0 or an
/// unknown device type is not ours (`notMine`).
///
/// Sample: `08 ff 00 89 e4 56 be a6 b4` with the SensorPush UUID → HTP.xw, temperature 22.66 °C,
/// humidity 46.07 %, pressure 989.65 hPa.
///
/// Source: SensorPush's packing scheme as implemented by custom-components/ble_monitor and
/// Bluetooth-Devices sensorpush-ble (`sensorpush.py`: types 64/65, pack parameters, the HT1 bit
/// layout); the TC.x step (0.0625 °C from −200 °C) was read off sensorpush-ble's TC.x tests, and its
/// upper bound of 1800 °C is our assumption (only the low field is ever non-zero in them).
public struct SensorPushDecoder: SensorDecoder {
    public let id = "sensorpush"
    public let selectors: [Selector] = (3...9).map { .manufacturerLength($0) }

    /// The 128-bit service UUIDs of the two generations, most-significant byte first.
    static let uuidV2 = ServiceUUID.uuid128([
        0xEF, 0x09, 0x00, 0x00, 0x11, 0xD6, 0x42, 0xBA, 0x93, 0xB8, 0x9D, 0xD7, 0xEC, 0x09, 0x0A, 0xB0,
    ])
    static let uuidHT1 = ServiceUUID.uuid128([
        0xEF, 0x09, 0x00, 0x00, 0x11, 0xD6, 0x42, 0xBA, 0x93, 0xB8, 0x9D, 0xD7, 0xEC, 0x09, 0x0A, 0xA9,
    ])

    /// (quantity, min, max, step) per packed field, for device types 64, 65, 66 in order.
    static let packings: [(model: String, fields: [(Quantity, Double, Double, Double)])] = [
        (
            "HTP.xw",
            [(.temperatureC, -40, 140, 0.0025), (.humidityPercent, 0, 100, 0.0025), (.pressureHPa, 30000, 125000, 1)]
        ),
        ("HT.w", [(.temperatureC, -40, 125, 0.0025), (.humidityPercent, 0, 100, 0.0025)]),
        ("TC.x", [(.temperatureC, -200, 1800, 0.0625)]),
    ]

    public init() {}

    /// The number of values of a packed field from `lo` to `hi` in steps of `step`.
    static func valueCount(_ lo: Double, _ hi: Double, _ step: Double) -> UInt64 { UInt64(((hi - lo) / step).rounded()) + 1 }

    /// The bytes a packed number of these fields needs: enough for the largest, the product of
    /// their value counts less one.
    static func packedBytes(_ fields: [(Quantity, Double, Double, Double)]) -> Int {
        var largest = fields.reduce(UInt64(1)) { $0 * valueCount($1.1, $1.2, $1.3) } - 1
        var bytes = 0
        while largest > 0 {
            largest >>= 8
            bytes += 1
        }
        return bytes
    }

    /// An HT1 value: 4 bytes whose last holds 1 in bits 2–6.
    static func isHT1(_ v: Frame) -> Bool { v.count == 4 && v.u8(3).map { ($0 & 0x7C) >> 2 } == 1 }
    /// A v2 value: 3 to 9 bytes, page 0 (bits 0–1 of the first byte), device type 64 to 66.
    static func isV2(_ v: Frame) -> Bool {
        (3...9).contains(v.count) && v.u8(0).map { $0 & 0x03 == 0 && $0 >> 2 < 3 } == true
    }

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        // A value neither layout could hold is not ours, whatever the name says.
        let mayBeHT1 = ad.manufacturerData.contains { Self.isHT1($0.frame) }
        let mayBeV2 = ad.manufacturerData.contains { Self.isV2($0.frame) }
        guard mayBeHT1 || mayBeV2 else { return .notMine }
        let values = ad.manufacturerData.map(\.frame)
        let isHT1 = ad.localNameIs("s") || ad.localNameIs("HT1") || ad.fields.listsServiceUUID(Self.uuidHT1)
        if isHT1 {
            guard let v = values.first(where: { $0.count == 4 }), Self.isHT1(v), let b0 = v.u8(0), let b1 = v.u8(1),
                let b2 = v.u8(2), let b3 = v.u8(3)
            else { return .notMine }
            let rawHumidity = Int(b0) | Int(b1 & 0x0F) << 8
            let rawTemperature = Int(b1 >> 4) | Int(b2) << 4 | Int(b3 & 0x03) << 12
            var r = ad.reading(decoder: id, model: "HT1")
            r.add(.temperatureC, -46.85 + 175.72 * Double(rawTemperature) / 16384)
            r.add(.humidityPercent, min(100, max(0, -6 + 125 * Double(rawHumidity) / 4096)))
            return .reading(consume r)
        }
        guard mayBeV2,
            ad.localNameHasPrefix("SensorPush") || ad.localNameContains("HT.w") || ad.localNameContains("HTP.xw")
                || ad.localNameContains("TC.x") || ad.fields.listsServiceUUID(Self.uuidV2)
        else { return .notMine }
        // Several manufacturer structures: the last page-0 one is the current measurement.
        guard let v = values.last(where: { (3...9).contains($0.count) && $0.u8(0).map { $0 & 0x03 == 0 } == true }),
            let first = v.u8(0)
        else { return .notMine }
        let typeIndex = Int(first >> 2)  // the device type − 64
        guard typeIndex < Self.packings.count else { return .notMine }
        let packing = Self.packings[typeIndex]
        // The packed number needs this many bytes after the first: fewer is a cut frame, whose
        // missing high bytes would read as zeros.
        guard v.count - 1 >= Self.packedBytes(packing.fields) else {
            return .malformed("\(packing.model) frame of \(v.count) bytes, expected \(Self.packedBytes(packing.fields) + 1)")
        }
        var packed: UInt64 = 0
        for (i, byte) in v.bytes.dropFirst().enumerated() { packed |= UInt64(byte) << (8 * UInt64(i)) }
        var r = ad.reading(decoder: id, model: packing.model)
        for (quantity, lo, hi, step) in packing.fields {
            let count = Self.valueCount(lo, hi, step)
            var value = lo + Double(packed % count) * step
            packed /= count
            if quantity == .pressureHPa { value /= 100 }  // the field is in Pa
            r.add(quantity, value)
        }
        guard packed == 0 else { return .malformed("\(packing.model) packed value beyond its fields' range") }
        return .reading(consume r)
    }
}
