/// Ruuvi Air in Ruuvi's data format E1 ("Extended v1"): format 6's measurements at full
/// resolution, with every particulate size, in a Bluetooth 5 extended advertisement (a scanner
/// that asks only for legacy advertisements receives format 6 instead).
/// Models: Ruuvi Air (data format E1)
///
/// Where: manufacturer-specific data, company 0x0499 (Ruuvi Innovations), 40 bytes after the
/// company id, byte 0 = 0xE1. Every number is big-endian; "not available" values in brackets are
/// left out.
///
/// | offset | size | field                                                        |
/// |--------|------|--------------------------------------------------------------|
/// | 0      | 1    | 0xE1                                                         |
/// | 1      | 2    | temperature, s16 × 0.005 °C [0x8000]                          |
/// | 3      | 2    | humidity, u16 × 0.0025 % [0xFFFF]                             |
/// | 5      | 2    | pressure, u16 + 50000 Pa [0xFFFF]                             |
/// | 7      | 8    | PM1.0, PM2.5, PM4.0, PM10, u16 × 0.1 µg/m³ each [0xFFFF]      |
/// | 15     | 2    | CO₂, ppm [0xFFFF]                                             |
/// | 17     | 1    | VOC index, bits 8–1 (bit 0 in the flags) [0x1FF]              |
/// | 18     | 1    | NOx index, bits 8–1 (bit 0 in the flags) [0x1FF]              |
/// | 19     | 3    | luminosity, u24 × 0.01 lux [0xFFFFFF]                         |
/// | 22     | 3    | reserved (0xFF)                                               |
/// | 25     | 3    | measurement sequence number, u24 [0xFFFFFF]                   |
/// | 28     | 1    | flags: bit 0 calibrating, bit 6 VOC bit 0, bit 7 NOx bit 0    |
/// | 29     | 5    | reserved (0xFF)                                               |
/// | 34     | 6    | MAC address                                                   |
///
/// Integrity check: none. Sanity: another length, humidity above 100 % or no available field is
/// `malformed`; a MAC that differs from the advertiser address is a warning (as in format 5).
///
/// Sample: `2b ff 99 04 e1 f6 3c 47 18 c8 7d 00 34 00 49 00 50 00 5b 02 64 32 00 00 30 39 ff ff ff
/// 00 ab cd c0 ff ff ff ff ff 11 22 33 44 55 66` → temperature −12.5 °C, humidity 45.5 %, pressure
/// 1013.25 hPa, PM1.0 5.2, PM2.5 7.3, PM4.0 8.0, PM10 9.1 µg/m³, CO₂ 612 ppm, VOC index 101, NOx
/// index 1, 123.45 lux, sequence 43981.
///
/// Source: Ruuvi's documentation, docs.ruuvi.com "Data format E1" (layout, scales, "not
/// available" values, flag bits). No peer vector has an E1 frame: the tests use frames built from
/// this layout.
public struct RuuviE1Decoder: SensorDecoder {
    public let id = "ruuvi_e1"
    public let selectors: [Selector] = [.manufacturer(company: 0x0499)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let data = ad.manufacturerData(company: 0x0499), data.u8(0) == 0xE1 else { return .notMine }
        guard data.count == 40, let t = data.be16(1), let h = data.be16(3), let p = data.be16(5),
            let pm1 = data.be16(7), let pm25 = data.be16(9), let pm4 = data.be16(11), let pm10 = data.be16(13),
            let co2 = data.be16(15), let vocHigh = data.u8(17), let noxHigh = data.u8(18), let lux = data.be24(19),
            let sequence = data.be24(25), let flags = data.u8(28), let mac = data.macBE(34)
        else { return .malformed("format E1 frame of \(data.count) bytes, expected 40") }
        var r = ad.reading(decoder: id, model: "Ruuvi Air", frameKind: "e1")
        if let why = RuuviFields.addClimate(temperature: t, humidity: h, pressure: p, to: &r) { return .malformed(why) }
        for (raw, quantity) in [(pm1, Quantity.pm1UgM3), (pm25, .pm25UgM3), (pm4, .pm4UgM3), (pm10, .pm10UgM3)]
        where raw != 0xFFFF {
            r.add(quantity, Double(raw) / 10)
        }
        if co2 != 0xFFFF { r.add(.co2PPM, Double(co2)) }
        RuuviFields.addIndices(vocHigh: vocHigh, noxHigh: noxHigh, flags: flags, to: &r)
        if lux != 0xFF_FFFF { r.add(.illuminanceLux, Double(lux) / 100) }
        if sequence != 0xFF_FFFF { r.add(.packetCount, Double(sequence)) }
        guard !r.measurements.isEmpty else { return .malformed("every field is \"not available\"") }
        r.checkPayloadAddress(mac)
        return .reading(consume r)
    }
}
