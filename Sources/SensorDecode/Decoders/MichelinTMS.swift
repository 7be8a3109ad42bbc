/// Michelin TMS tyre sensors (tyre pressure and temperature for fleets).
/// Models: TMS
///
/// Where: manufacturer-specific data, company 0x0828, 14 bytes after the id. Numbers
/// little-endian; offsets after the company id.
///
/// | offset | size | field                                                      |
/// |--------|------|------------------------------------------------------------|
/// | 0      | 1    | not decoded (0x01)                                         |
/// | 1      | 1    | frame type: 0x03, 0x04 (measurement)                       |
/// | 2      | 1    | temperature + 60, °C                                       |
/// | 3      | 1    | battery: value / 100 + 1.0 V                               |
/// | 4      | 2    | absolute pressure, mbar                                    |
/// | 6      | 3    | tyre id (ASCII, not decoded)                               |
/// | 9      | 1    | steps (not decoded)                                        |
/// | 10     | 4    | frame counter                                              |
///
/// The pressure is stored as `pressure_kpa` (absolute: an unmounted sensor reads the air, ~98 kPa).
/// Other frame types are `notMine`; a measurement frame of another length is `malformed`.
///
/// Integrity check: none.
///
/// Sample: `11 ff 28 08 01 03 4f c8 d4 03 50 56 43 01 7d 51 1e 00` → temperature 19 °C, battery
/// 3.0 V, pressure 98.0 kPa, frame counter 1986941.
///
/// Source: custom-components/ble_monitor `michelin.py` (frame types, layout, offsets; its test is
/// among our vectors).
public struct MichelinTMSDecoder: SensorDecoder {
    public let id = "michelin_tms"
    public let selectors: [Selector] = [.manufacturer(company: 0x0828)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.manufacturerData(company: 0x0828), let type = d.u8(1), type == 0x03 || type == 0x04 else {
            return .notMine
        }
        guard d.count == 14, let t = d.u8(2), let volts = d.u8(3), let mbar = d.le16(4), let counter = d.le32(10) else {
            return .malformed("TMS frame of \(d.count) bytes, expected 14")
        }
        var r = ad.reading(decoder: id, model: "TMS")
        r.add(.temperatureC, Double(t) - 60)
        r.add(.voltageV, Double(volts) / 100 + 1)
        r.add(.pressureKPa, Double(mbar) / 10)
        r.add(.packetCount, Double(counter))
        return .reading(consume r)
    }
}
