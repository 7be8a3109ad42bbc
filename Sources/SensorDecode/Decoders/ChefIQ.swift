/// Chef iQ smart cooking thermometer CQ60: one probe with several sensors along its shaft, and
/// the ambient sensor in its handle.
/// Models: CQ60
///
/// Where: manufacturer-specific data, company 0x05CD, 18 bytes after the id. Numbers
/// little-endian; offsets after the company id; temperatures s16 / 10 °C unless said.
///
/// | offset | size | field                                          | quantity                 |
/// |--------|------|------------------------------------------------|--------------------------|
/// | 0      | 2    | frame header (not decoded)                     |                          |
/// | 2      | 1    | battery %                                      | `battery_pct`            |
/// | 3      | 1    | probe sensor 3, whole °C (u8)                  | `temperature_probe_3_c`  |
/// | 4      | 2    | not decoded                                    |                          |
/// | 6      | 2    | meat (core) temperature, as the probe estimates| `temperature_meat_c`     |
/// | 8      | 2    | probe tip                                      | `temperature_tip_c`      |
/// | 10     | 2    | probe sensor 1                                 | `temperature_probe_1_c`  |
/// | 12     | 2    | probe sensor 2                                 | `temperature_probe_2_c`  |
/// | 14     | 2    | ambient (handle)                               | `temperature_c`          |
/// | 16     | 2    | not decoded                                    |                          |
///
/// Probe sensors keep Chef iQ's numbers (1–3), as ble_monitor does; the tip and the meat estimate
/// are named, not numbered, so the numbering stays stable.
///
/// Integrity check: none. Sanity: battery > 100 % is `malformed`; another length is `notMine`.
///
/// Sample: `15 ff cd 05 01 40 63 13 c0 00 c9 00 c9 00 ca 00 cb 00 c0 00 8d 11` → battery 99 %,
/// probe 3 19 °C, meat 20.1 °C, tip 20.1 °C, probe 1 20.2 °C, probe 2 20.3 °C, ambient 19.2 °C.
///
/// Source: custom-components/ble_monitor `chefiq.py` (length, field order and scaling; its test
/// is among our vectors).
public struct ChefIQDecoder: SensorDecoder {
    public let id = "chef_iq"
    public let selectors: [Selector] = [.manufacturer(company: 0x05CD)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.manufacturerData(company: 0x05CD), d.count == 18, let battery = d.u8(2),
            let probe3 = d.u8(3), let meat = d.le16s(6), let tip = d.le16s(8), let probe1 = d.le16s(10),
            let probe2 = d.le16s(12), let ambient = d.le16s(14)
        else { return .notMine }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        var r = ad.reading(decoder: id, model: "CQ60")
        r.add(.batteryPercent, Double(battery))
        r.add(.temperatureMeatC, Double(meat) / 10)
        r.add(.temperatureTipC, Double(tip) / 10)
        r.add(.temperatureProbeC(1), Double(probe1) / 10)
        r.add(.temperatureProbeC(2), Double(probe2) / 10)
        r.add(.temperatureProbeC(3), Double(probe3))
        r.add(.temperatureC, Double(ambient) / 10)
        return .reading(consume r)
    }
}
