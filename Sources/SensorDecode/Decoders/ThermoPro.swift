/// ThermoPro hygrometers — TP350, TP357, TP357S, TP358, TP359, TP393.
/// Models: TP350, TP357, TP357S, TP358, TP359, TP393
///
/// Where: manufacturer-specific data whose first byte (the low byte of the "company id") is 0xC2;
/// the temperature starts in the company id's high byte, so the id changes with every reading.
/// The local name (`TP357`, `TP357 (2A01)`, `TP393`, …) says it is a ThermoPro. Offsets count from
/// the first byte of the whole value:
///
/// | offset | size | field                                                    |
/// |--------|------|----------------------------------------------------------|
/// | 0      | 1    | 0xC2                                                     |
/// | 1      | 2    | temperature, s16 little-endian, tenths of °C             |
/// | 3      | 1    | humidity, %                                              |
/// | 4      | 1    | status; bit 1 set = battery good, clear = battery low    |
/// | 5…     |      | model-specific (`2C` on TP357/358/359/393; `0B 01` on TP357S), ignored |
///
/// Integrity check: none. Sanity: humidity above 100 % is `malformed`; a value shorter than 6
/// bytes is not a ThermoPro frame.
///
/// Sample: `06 09 54 50 33 35 37 07 ff c2 10 01 47 02 2c` (name `TP357`) → temperature 27.2 °C,
/// humidity 71 %, battery not low.
///
/// Source: theengs decoder `TPTH_json.h` (layout, s16 LE / 10, battery-low bit, names),
/// custom-components/ble_monitor `thermopro.py` (TP357/TP359) and their tests.
public struct ThermoProDecoder: SensorDecoder {
    public let id = "thermopro"
    /// Every company id whose low byte is 0xC2: the high byte is the temperature's low byte.
    public let selectors: [Selector] = (0...0xFF).map { .manufacturer(company: UInt16($0) << 8 | 0xC2) }

    static let models = ["TP357S", "TP350", "TP357", "TP358", "TP359", "TP393"]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let model = Self.models.first(where: { ad.localNameHasPrefix($0) }),
            let value = ad.manufacturerData.first(where: { $0.companyID & 0xFF == 0xC2 })?.frame
        else { return .notMine }
        guard value.count >= 6, let t = value.le16s(1), let humidity = value.u8(3), let status = value.u8(4) else {
            return .notMine
        }
        guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
        var r = ad.reading(decoder: id, model: model)
        r.add(.temperatureC, Double(t) / 10)
        r.add(.humidityPercent, Double(humidity))
        r.add(.batteryLow, status & 0x02 == 0 ? 1 : 0)
        return .reading(consume r)
    }
}
