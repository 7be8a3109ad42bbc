/// Inkbird IAM-T2 indoor air monitor (CO₂, temperature, humidity).
/// Models: IAM-T2
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
/// Integrity check: none. Sanity: humidity > 100 %, a temperature beyond ±200 °C or CO₂ above
/// 40,000 ppm (inkbird-ble's ceilings, which catch a garbage 0xFFFF field) is `malformed`. A °F
/// reading is converted to °C (we store one unit per quantity) and rounded to 0.1 °C, the step the
/// device sends in °C mode, as inkbird-ble does: a 0.1 °C step is 0.18 °F, so every °C-mode value
/// has its own °F tenth and the rounding gives it back exactly; a °F tenth's own width is 0.056 °C,
/// so the rounding moves a value by at most 0.05 °C.
///
/// Sample: `0b 09 49 6e 6b 40 49 41 4d 2d 54 32 12 ff 54 32 00 62 00 a1 3e 29 be d6 03 3c 01 c9 02
/// 40 91` → 82.8 °F = 28.2 °C, humidity 45.7 %, CO₂ 576 ppm.
///
/// Source: offsets and the °F flag read off Bluetooth-Devices inkbird-ble's IAM-T2 tests
/// (test_iam_t2_fahrenheit_mode, test_iam_t2_sub_zero_celsius), which are in our vectors; the
/// plausibility ceilings from its parser (MAX_PLAUSIBLE_AMBIENT_TEMPERATURE_CELSIUS, MAX_PLAUSIBLE_CO2_PPM).
public struct InkbirdIAMT2Decoder: SensorDecoder {
    public let id = "inkbird_iam_t2"
    public let selectors: [Selector] = [.localName("Ink@IAM-T2")]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard ad.localNameIs("Ink@IAM-T2"), let data = ad.manufacturerData.first?.payload else { return .notMine }
        guard data.count == 15, let unit = data.u8(7), let t = data.be16s(8), let h = data.be16(10),
            let co2 = data.be16(12)
        else { return .malformed("IAM-T2 frame of \(data.count) bytes, expected 15") }
        guard !data.isAllFF() else { return .malformed("all-0xFF frame") }
        let reading = Double(t) / 10
        let celsius = unit & 0x02 != 0 ? ((reading - 32) * 5 / 9 * 10).rounded() / 10 : reading
        let humidity = Double(h) / 10
        guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
        guard abs(celsius) <= 200 else { return .malformed("temperature \(celsius) °C out of range") }
        guard co2 <= 40_000 else { return .malformed("CO₂ \(co2) ppm out of range") }
        var r = ad.reading(decoder: id, model: "IAM-T2")
        r.add(.temperatureC, celsius)
        r.add(.humidityPercent, humidity)
        r.add(.co2PPM, Double(co2))
        return .reading(consume r)
    }
}
