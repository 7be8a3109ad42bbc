/// SmartDry laundry (cloth dryer) sensor, SDLS.
/// Models: SmartDry SDLS
///
/// Where: manufacturer-specific data, company 0x01AE, 12 bytes after the id; little-endian:
///
/// | offset | size | field                                                       |
/// |--------|------|-------------------------------------------------------------|
/// | 0      | 4    | temperature, IEEE 754 single, °C                            |
/// | 4      | 4    | humidity, IEEE 754 single, %                                |
/// | 8      | 2    | shake count / shake state (not stored)                      |
/// | 10     | 1    | battery voltage: mV above 2847                              |
/// | 11     | 1    | flags; bit 0: awake (not stored)                            |
///
/// The voltage follows theengs (byte 10 + 2847 mV: 2.93–2.96 V on every test frame). ble_monitor
/// reads bytes 10–11 as one u16 of mV instead, which gives 1.73 V for a running sensor; we do not.
/// SmartDry defines no battery curve: only `voltage_v` is stored.
///
/// Integrity check: none. Sanity: a non-finite float, or humidity outside 0–100 %, is
/// `malformed`. Another length is not this frame.
///
/// Sample: `0f ff ae 01 9b c8 af 41 08 d7 c3 42 08 01 68 07` → temperature 21.973 °C, humidity
/// 97.920 %, voltage 2.951 V.
///
/// Source: theengs decoder `SmartDry_json.h` (layout, voltage offset) and its tests;
/// custom-components/ble_monitor `smartdry.py` (the floats).
public struct SmartDryDecoder: SensorDecoder {
    public let id = "smartdry"
    public let selectors: [Selector] = [.manufacturer(company: 0x01AE)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let data = ad.manufacturerData(company: 0x01AE), data.count == 12, let t = data.float32LE(0),
            let h = data.float32LE(4), let volts = data.u8(10)
        else { return .notMine }
        guard t.isFinite, h.isFinite, h >= 0, h <= 100 else {
            return .malformed("temperature \(t) °C or humidity \(h) % impossible")
        }
        var r = ad.reading(decoder: id, model: "SDLS")
        r.add(.temperatureC, Double(t))
        r.add(.humidityPercent, Double(h))
        r.add(.voltageV, Double(2847 + Int(volts)) / 1000)
        return .reading(consume r)
    }
}
