/// Amphiro / Oras Hydractiva digital hand showers (ADHS): per-shower water use, water
/// temperature and heating energy.
/// Models: Hydractiva Digital
///
/// Where: manufacturer-specific data, company 0xFAEE, 19 bytes after the id. Numbers
/// big-endian; offsets after the company id.
///
/// | offset | size | field                                     |
/// |--------|------|-------------------------------------------|
/// | 0      | 3    | shower session number (not stored)        |
/// | 3      | 2    | session duration, s                       |
/// | 5      | 3    | not decoded                               |
/// | 8      | 3    | water used: raw / 2560 L                  |
/// | 11     | 1    | water temperature, whole °C               |
/// | 12     | 2    | heating energy: raw / 100 kWh             |
/// | 14     | 5    | not decoded                               |
///
/// Integrity check: none. Another length is `notMine`.
///
/// Sample: `16 ff ee fa 00 00 24 00 15 00 00 15 00 1a 00 29 00 0c 19 4f 00 00 00` → 21 s,
/// 2.6 L, 41 °C, 0.12 kWh.
///
/// Source: theengs decoder `Amphiro` (model id ADHS: offsets and scaling; its test is among our
/// vectors).
public struct AmphiroDecoder: SensorDecoder {
    public let id = "amphiro"
    public let selectors: [Selector] = [.manufacturer(company: 0xFAEE)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.manufacturerData(company: 0xFAEE), d.count == 19, let seconds = d.be16(3),
            let litres = d.be24(8), let t = d.u8(11), let energy = d.be16(12)
        else { return .notMine }
        var r = ad.reading(decoder: id, model: "Hydractiva Digital")
        r.add(.durationS, Double(seconds))
        r.add(.waterL, Double(litres) / 2560)
        r.add(.temperatureC, Double(t))
        r.add(.energyKWh, Double(energy) / 100)
        return .reading(consume r)
    }
}
