/// Inkbird IAM-T2 indoor air monitor (CO₂, temperature, humidity).
///
/// Where: manufacturer-specific data of 15 bytes after a company id that is not fixed; recognised
/// by the local name `Ink@IAM-T2`. Numbers big-endian; offsets after the company id.
///
/// | offset | size | field                                                         |
/// |--------|------|---------------------------------------------------------------|
/// | 0      | 7    | unknown (device id)                                           |
/// | 7      | 1    | flags; bit 1 set: the temperature is in °F                    |
/// | 8      | 2    | temperature, s16 BE / 10, in °C or °F per the flag             |
/// | 10     | 2    | humidity, u16 BE / 10 %                                       |
/// | 12     | 2    | CO₂, u16 BE ppm                                               |
/// | 14     | 1    | unknown                                                       |
///
/// Integrity check: none. Sanity: humidity > 100 % is `malformed`. A °F reading is converted to
/// °C (we store one unit per quantity).
///
/// Sample: `0b 09 49 6e 6b 40 49 41 4d 2d 54 32 12 ff 54 32 00 62 00 a1 3e 29 be d6 03 3c 01 c9 02
/// 40 91` → 82.8 °F = 28.22 °C, humidity 45.7 %, CO₂ 576 ppm.
///
/// Source: offsets and the °F flag read off Bluetooth-Devices inkbird-ble's IAM-T2 tests
/// (test_iam_t2_fahrenheit_mode, test_iam_t2_sub_zero_celsius), which are in our vectors.
public struct InkbirdIAMT2Decoder: SensorDecoder {
    public var id: StaticString { "inkbird_iam_t2" }
    /// By the name's length: with `.anyManufacturer` every advertisement with manufacturer data
    /// (nearly every phone's) came here to have its name compared, ~45 instructions each.
    public let selectors: [DecoderSelector] = [.localNameLength(Self.name.utf8CodeUnitCount)]
    static let name: StaticString = "Ink@IAM-T2"

    public init() {}

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        // A byte compare (a generic `elementsEqual` walked the name, callgrind).
        guard ad.localNameEquals(Self.name) else { return .notMine }
        return decodeFrame(ad, into: &readings)
    }

    /// The rest of the decode, not inlined: the name test above is all most calls run, and with the
    /// frame decode inlined they paid its stack frame (saving six registers) too: 45 instructions
    /// a call on the bench's vectors, 36 apart (callgrind). (SensorPush, InkbirdBBQ and
    /// EddystoneTLM split the same way got no cheaper.)
    @inline(never) private func decodeFrame(
        _ ad: ADView, into readings: inout ReadingList
    ) -> DecodeVerdict {
        guard ad.manufacturerDataCount > 0 else { return .notMine }
        let data = ad.bytes.extracting(ad.manufacturerPayloadRange(at: 0))
        guard data.count == 15 else { return .malformed("IAM-T2 frame of \(data.count) bytes, expected 15") }
        guard !data.allFF() else { return .malformed("all-0xFF frame") }
        let reading = Double(data.be16s(8)) / 10
        let celsius = data.u8(7) & 0x02 != 0 ? (reading - 32) * 5 / 9 : reading
        let humidity = Double(data.be16(10)) / 10
        guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
        readings.begin(ad, decoderID: id, model: "IAM-T2")
        readings.add(.temperatureC, celsius)
        readings.add(.humidityPercent, humidity)
        readings.add(.co2PPM, Double(data.be16(12)))
        return .decoded
    }
}
