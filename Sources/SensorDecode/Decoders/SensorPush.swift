/// SensorPush HT.w, HTP.xw, TC.x (current models) and HT1 (first generation).
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
/// construction, so nothing is out of range; a page other than 0 or an unknown device type is not
/// ours (`notMine`).
///
/// Sample: `08 ff 00 89 e4 56 be a6 b4` with the SensorPush UUID → HTP.xw, temperature 22.66 °C,
/// humidity 46.07 %, pressure 989.65 hPa.
///
/// Source: SensorPush's packing scheme as implemented by custom-components/ble_monitor and
/// Bluetooth-Devices sensorpush-ble (`sensorpush.py`: types 64/65, pack parameters, the HT1 bit
/// layout); the TC.x step (0.0625 °C from −200 °C) was read off sensorpush-ble's TC.x tests, and its
/// upper bound of 1800 °C is our assumption (only the low field is ever non-zero in them).
public struct SensorPushDecoder: SensorDecoder {
    public var id: StaticString { "sensorpush" }
    public let selectors: [DecoderSelector] = (3...9).map { .manufacturerValueLength($0) }

    // Stored in the decoder, not static: a static array was a `swift_initStaticObject` call per use,
    // twice for every advertisement with manufacturer data (callgrind).
    let uuidV2: [UInt8] = [
        0xEF, 0x09, 0x00, 0x00, 0x11, 0xD6, 0x42, 0xBA, 0x93, 0xB8, 0x9D, 0xD7, 0xEC, 0x09, 0x0A, 0xB0,
    ]
    let uuidHT1: [UInt8] = [
        0xEF, 0x09, 0x00, 0x00, 0x11, 0xD6, 0x42, 0xBA, 0x93, 0xB8, 0x9D, 0xD7, 0xEC, 0x09, 0x0A, 0xA9,
    ]

    /// (quantity, min, max, step) per packed field, for device types 64, 65, 66 in order. An array
    /// indexed by type − 64: a dictionary keyed by type hashed the key on every decode (callgrind).
    static let packings: [(model: StaticString, fields: [(Quantity, Double, Double, Double)])] = [
        (
            "HTP.xw",
            [(.temperatureC, -40, 140, 0.0025), (.humidityPercent, 0, 100, 0.0025), (.pressureHPa, 30000, 125000, 1)]
        ),
        ("HT.w", [(.temperatureC, -40, 125, 0.0025), (.humidityPercent, 0, 100, 0.0025)]),
        ("TC.x", [(.temperatureC, -200, 1800, 0.0625)]),
    ]

    public init() {}

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        // Index loops on the values: iterating `manufacturerData` copied the bytes and the index,
        // and destroyed them, on every call (callgrind).
        let fields = 0..<ad.manufacturerDataCount
        let bytes = ad.bytes
        // Every advertisement with a 3- to 9-byte manufacturer value reaches this decoder, nearly
        // all of them a phone's. Whether a value could hold either layout is a test of its length
        // and first bytes, made before the name tests, which walk the name: a frame that neither
        // layout could decode is not ours, whatever its name says (testing the name first cost
        // 450 instructions a call on the bench's vectors, this 227, callgrind).
        // One pass over the values, each read once (two passes, each reading the index twice a
        // value, cost ~40 instructions more a call, callgrind).
        var mayBeHT1 = false
        var mayBeV2 = false
        for k in fields {
            let value = ad.manufacturerValueRange(at: k)  // at least 2 bytes (the walk's rule)
            let first = bytes.u8(value.lowerBound)
            if value.count == 4 && (bytes.u8(value.lowerBound + 3) & 0x7C) >> 2 == 1 { mayBeHT1 = true }
            // Page 0, device type 64 to 66 (`packings`).
            if value.count >= 3 && value.count <= 9 && first & 0x03 == 0 && first >> 2 < 3 { mayBeV2 = true }
        }
        guard mayBeHT1 || mayBeV2 else { return .notMine }
        let isHT1 = ad.localNameEquals("s") || ad.localNameEquals("HT1") || ad.hasServiceUUID128(uuidHT1)
        if !isHT1 {
            guard mayBeV2,
                ad.localNameHasPrefix("SensorPush") || ad.localNameContains("HT.w") || ad.localNameContains("HTP.xw")
                    || ad.localNameContains("TC.x") || ad.hasServiceUUID128(uuidV2)
            else { return .notMine }
        }
        if isHT1 {
            guard let k = fields.first(where: { ad.manufacturerValueLength(at: $0) == 4 }) else { return .notMine }
            let v = bytes.extracting(ad.manufacturerValueRange(at: k))
            guard (v.u8(3) & 0x7C) >> 2 == 1 else { return .notMine }
            let rawHumidity = Int(v.u8(0)) | Int(v.u8(1) & 0x0F) << 8
            let rawTemperature = Int(v.u8(1) >> 4) | Int(v.u8(2)) << 4 | Int(v.u8(3) & 0x03) << 12
            let humidity = min(100, max(0, -6 + 125 * Double(rawHumidity) / 4096))
            readings.begin(ad, decoderID: id, model: "HT1")
            readings.add(.temperatureC, -46.85 + 175.72 * Double(rawTemperature) / 16384)
            readings.add(.humidityPercent, humidity)
            return .decoded
        }
        // Several manufacturer structures: the last page-0 one is the current measurement.
        for k in fields.reversed() {
            let v = bytes.extracting(ad.manufacturerValueRange(at: k))
            guard v.count >= 3, v.count <= 9, v.u8(0) & 0x03 == 0 else { continue }
            let typeIndex = Int(v.u8(0) >> 2)  // the device type − 64
            guard typeIndex < Self.packings.count else { return .notMine }
            let packing = Self.packings[typeIndex]
            var packed: UInt64 = 0
            for i in 1..<v.count { packed |= UInt64(v.u8(i)) << (8 * UInt64(i - 1)) }
            readings.begin(ad, decoderID: id, model: packing.model)
            for (quantity, lo, hi, step) in packing.fields {
                let count = UInt64(((hi - lo) / step).rounded()) + 1
                var value = lo + Double(packed % count) * step
                packed /= count
                if quantity == .pressureHPa { value /= 100 }  // the field is in Pa
                readings.add(quantity, value)
            }
            return .decoded
        }
        return .notMine
    }
}
