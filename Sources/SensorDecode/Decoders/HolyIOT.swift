/// HolyIOT BLE tracker / sensor beacons ("bin-tracker" and the other nRF52 tags HolyIOT sells),
/// which report one measurement per advertisement.
/// Models: HolyIOT BLE tracker (bin-tracker), HolyIOT nRF52 sensor tags
///
/// Where: service data, 16-bit UUID 0x5242, 13 bytes (the tags also send an iBeacon, decoded
/// by the iBeacon decoder):
///
/// | offset | size | field                                                         |
/// |--------|------|---------------------------------------------------------------|
/// | 0      | 1    | frame byte (0x41 on every tag seen)                           |
/// | 1      | 1    | battery, %                                                    |
/// | 2      | 6    | device MAC, display order (most significant first)            |
/// | 8      | 2    | unknown (06 06)                                               |
/// | 10     | 1    | measurement type                                              |
/// | 11     | 2    | the measurement, by type (below)                              |
///
/// | type | measurement                                                                   |
/// |------|-------------------------------------------------------------------------------|
/// | 1    | temperature: whole °C s8, then hundredths u8 with the whole part's sign (so −0.01 … −0.99 °C read as positive: the format cannot carry them) |
/// | 2    | pressure: s16 big-endian + 80 000, Pa (stored as hPa)                          |
/// | 3    | humidity, % u8                                                                 |
/// | 4    | vibration, u8 (nonzero = vibrating)                                            |
/// | 5, 6 | side of a cube / button press (events, not stored); other types: battery only |
///
/// The MAC must be the advertiser's: that check stands in for an integrity check (the UUID is
/// not HolyIOT's own), so a mismatch is "not mine". Sanity: battery above 100 % or a hundredths
/// byte above 99 is `malformed`. Bytes after the thirteenth are ignored.
///
/// Sample: `10 16 42 52 41 64 c6 b5 45 f6 f1 8e 06 06 01 ed 25` from C6:B5:45:F6:F1:8E →
/// battery 100 %, temperature −19.37 °C.
///
/// Source: custom-components/ble_monitor `holyiot.py` (layout, types, pressure offset, sign of
/// the temperature) and its tests.
public struct HolyIOTDecoder: SensorDecoder {
    public let id = "holyiot"
    public let selectors: [Selector] = [.serviceData(uuid16: 0x5242)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let frame = ad.serviceData(uuid16: 0x5242), frame.count >= 13, let battery = frame.u8(1),
            frame.macBE(2) == ad.address, let type = frame.u8(10), let b0 = frame.u8(11), let b1 = frame.u8(12)
        else { return .notMine }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        var r = ad.reading(decoder: id, model: "HolyIOT BLE tracker", frameKind: "type-\(type)")
        r.add(.batteryPercent, Double(battery))
        switch type {
        case 1:
            guard b1 <= 99 else { return .malformed("temperature hundredths \(b1) out of range") }
            let whole = Int8(bitPattern: b0)
            let magnitude = Double(whole.magnitude) + Double(b1) / 100
            r.add(.temperatureC, whole < 0 ? -magnitude : magnitude)
        case 2:
            let pascal = 80_000 + Int(Int16(bitPattern: UInt16(b0) << 8 | UInt16(b1)))
            r.add(.pressureHPa, Double(pascal) / 100)
        case 3:
            guard b0 <= 100 else { return .malformed("humidity \(b0) % out of range") }
            r.add(.humidityPercent, Double(b0))
        case 4:
            r.add(.vibration, b0 != 0 ? 1 : 0)
        default:
            break  // events or types we do not know: the battery only
        }
        return .reading(consume r)
    }
}
