/// Jinou BEC07-5 temperature/humidity beacon.
/// Models: BEC07-5
///
/// Where: manufacturer-specific data of 13 bytes whose "company id" is already data, in an
/// advertisement that lists the 16-bit service UUID 0xAA20. Offsets from the first byte of the
/// value (company id bytes included).
///
/// | offset | size | field                                                    |
/// |--------|------|----------------------------------------------------------|
/// | 0      | 1    | temperature sign: 1 = below zero                         |
/// | 1      | 1    | temperature, whole °C                                    |
/// | 2      | 1    | temperature, tenths (0–9)                                |
/// | 3      | 1    | not decoded                                              |
/// | 4      | 1    | humidity, whole %                                        |
/// | 5      | 1    | humidity, tenths (0–9)                                   |
/// | 6      | 1    | not decoded (100 in every frame seen: perhaps battery)   |
/// | 7      | 6    | device MAC, most significant byte first                  |
///
/// Integrity check: none. Sanity: a tenths digit above 9, a sign byte other than 0/1 or humidity
/// > 100 % is `malformed`; the payload MAC is compared with the advertiser address (a warning).
///
/// Sample: `03 02 20 aa 0e ff 00 12 07 00 36 02 64 f8 81 d2 be 06 93` from F8:81:D2:BE:06:93 →
/// temperature 18.7 °C, humidity 54.2 %.
///
/// Source: custom-components/ble_monitor `jinou.py` (digit layout, sign byte, the 0xAA20 UUID;
/// its test is among our vectors).
public struct JinouDecoder: SensorDecoder {
    public let id = "jinou"
    public let selectors: [Selector] = [.manufacturerLength(13)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard ad.serviceUUID16s.contains(0xAA20),
            let d = ad.manufacturerData.first(where: { $0.value.count == 13 })?.frame,
            let sign = d.u8(0), let whole = d.u8(1), let tenths = d.u8(2), let hWhole = d.u8(4),
            let hTenths = d.u8(5), let mac = d.macBE(7)
        else { return .notMine }
        guard sign <= 1, tenths <= 9, hTenths <= 9 else { return .malformed("sign or decimal digit out of range") }
        let humidity = Double(hWhole) + Double(hTenths) / 10
        guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
        let magnitude = Double(whole) + Double(tenths) / 10
        var r = ad.reading(decoder: id, model: "BEC07-5")
        r.add(.temperatureC, sign == 1 ? -magnitude : magnitude)
        r.add(.humidityPercent, humidity)
        r.checkPayloadAddress(mac)
        return .reading(consume r)
    }
}
