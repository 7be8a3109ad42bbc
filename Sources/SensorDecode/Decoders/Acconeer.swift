/// Acconeer radar modules running Acconeer's presence-detector Bluetooth beacon example
/// (XM122, XM126): presence, temperature and battery.
/// Models: Acconeer XM122, Acconeer XM126
///
/// Where: manufacturer-specific data, company 0xACC0 (as the firmware sets it), 15 bytes after
/// the id. Numbers little-endian; offsets after the company id.
///
/// | offset | size | field                                              |
/// |--------|------|----------------------------------------------------|
/// | 0      | 1    | device: 0x80 XM122, 0x91 XM126                     |
/// | 1      | 2    | battery %                                          |
/// | 3      | 2    | temperature, s16, whole °C                         |
/// | 5      | 2    | presence detected (0 no, else yes)                 |
/// | 7      | 8    | reserved                                           |
///
/// Integrity check: none. Sanity: battery > 100 % is `malformed`; another device byte or length
/// is `notMine`.
///
/// Sample: `12 ff c0 ac 80 64 00 16 00 01 00 00 00 00 00 00 00 00 00` → XM122, battery 100 %,
/// temperature 22 °C, presence 1.
///
/// Source: custom-components/ble_monitor `acconeer.py` (device bytes, layout; its tests are among
/// our vectors).
public struct AcconeerDecoder: SensorDecoder {
    public let id = "acconeer"
    public let selectors: [Selector] = [.manufacturer(company: 0xACC0)]

    static let models: [UInt8: String] = [0x80: "Acconeer XM122", 0x91: "Acconeer XM126"]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.manufacturerData(company: 0xACC0), d.count == 15, let device = d.u8(0),
            let model = Self.models[device], let battery = d.le16(1), let t = d.le16s(3), let presence = d.le16(5)
        else { return .notMine }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        var r = ad.reading(decoder: id, model: model)
        r.add(.batteryPercent, Double(battery))
        r.add(.temperatureC, Double(t))
        r.add(.presence, presence == 0 ? 0 : 1)
        return .reading(consume r)
    }
}
