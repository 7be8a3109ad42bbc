/// SwitchBot Meter (type `T`), Meter Plus (`i`) and Outdoor Meter / Indoor-Outdoor
/// Thermo-Hygrometer (`w`).
/// Models: Meter (T), Meter Plus (i), Outdoor Meter (w)
///
/// Where: service data 0xFD3D (older firmware: 0x0D00), byte 0 the device type; the Outdoor Meter
/// puts its measurements in manufacturer data of company 0x0969 (Woan Technology) instead, and
/// newer firmware repeats them there for every model.
///
/// Service data (6 bytes for `T`/`i`, 3 for `w`):
/// | offset | field                                                                |
/// |--------|----------------------------------------------------------------------|
/// | 0      | device type, bits 6–0 ('T' 0x54, 'i' 0x69, 'w' 0x77)                 |
/// | 1      | status bits                                                          |
/// | 2      | bits 6–0: battery %                                                  |
/// | 3      | bits 3–0: tenths of °C                                               |
/// | 4      | bit 7: 1 = above zero, 0 = below; bits 6–0: whole °C                  |
/// | 5      | bit 7: display in °F; bits 6–0: humidity %                           |
///
/// Manufacturer data 0x0969 (after the company id): MAC(6), sequence, ?, then bytes 8–10 laid out
/// as service-data bytes 3–5 above.
///
/// Which copy: the service data when it has the six bytes, else (Outdoor Meter) the manufacturer
/// data. Without service data (a lone scan response), the local name (`WoSensorTH`,
/// `WoSensorTHP`, `WoIOSensorTH`) identifies the meter and the manufacturer copy is decoded, with
/// no battery. pySwitchbot prefers the manufacturer copy; on ble_monitor's test advertisement the two
/// copies disagree, and we follow the service data as ble_monitor and SwitchBot's BLE API document
/// (`devicetypes/meter.md`) do.
///
/// Events: none. No SwitchBot advertisement we know carries a button press: the Remote's
/// (pySwitchbot `adv_parsers/remote.py`) has its battery only, the Bot's its state.
///
/// Integrity check: none. Sanity: tenths > 9, humidity > 100 % or battery > 100 % is `malformed`.
///
/// Sample: `02 01 06 0e ff 69 09 c4 f9 26 75 df 22 dc 03 00 96 a9 09 16 3d fd 69 00 ba 03 19 38` →
/// Meter Plus, temperature −25.3 °C, humidity 56 %, battery 58 %.
///
/// Source: OpenWonderLabs SwitchBotAPI-BLE (meter.md), pySwitchbot `adv_parsers/meter.py`
/// (sign bit, the 0x0969 copy at 8–10), custom-components/ble_monitor tests.
public struct SwitchBotMeterDecoder: SensorDecoder {
    public let id = "switchbot_meter"
    public let selectors: [Selector] = [
        .serviceData(uuid16: 0xFD3D), .serviceData(uuid16: 0x0D00), .manufacturer(company: 0x0969),
    ]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        let service = ad.serviceData(uuid16: 0xFD3D) ?? ad.serviceData(uuid16: 0x0D00)
        let model: String
        if let service, service.count >= 3, let type = service.u8(0) {
            switch type & 0x7F {
            case 0x54: model = "Meter"
            case 0x69: model = "Meter Plus"
            case 0x77: model = "Outdoor Meter"
            default: return .notMine  // other SwitchBot devices (bots, curtains, locks …)
            }
        } else if let named = Self.model(name: ad) {
            model = named  // a scan response without service data: the name says which device
        } else {
            return .notMine
        }
        // The three measurement bytes: in the service data after 3 bytes, else in the
        // manufacturer data at offset 8.
        let th: Frame
        if let service, service.count >= 6 {
            th = service.dropFirst(3)
        } else if let data = ad.manufacturerData(company: 0x0969), data.count >= 11 {
            th = data.dropFirst(8)
        } else {
            return .malformed("\(model) advertisement without its measurement bytes")
        }
        guard let b0 = th.u8(0), let b1 = th.u8(1), let b2 = th.u8(2) else { return .notMine }
        let tenths = b0 & 0x0F
        guard tenths <= 9 else { return .malformed("temperature tenths digit \(tenths) out of range") }
        let magnitude = Double(b1 & 0x7F) + Double(tenths) / 10
        let humidity = b2 & 0x7F
        guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
        var r = ad.reading(decoder: id, model: model)
        r.add(.temperatureC, b1 & 0x80 != 0 ? magnitude : -magnitude)
        r.add(.humidityPercent, Double(humidity))
        // The battery only in the service data.
        if let service, let level = service.u8(2) {
            let battery = level & 0x7F
            guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
            r.add(.batteryPercent, Double(battery))
        }
        return .reading(consume r)
    }

    /// The meter a local name names, for advertisements that carry only the 0x0969 copy.
    static func model(name ad: Advertisement) -> String? {
        if ad.localNameIs("WoSensorTH") { return "Meter" }
        if ad.localNameIs("WoSensorTHP") { return "Meter Plus" }
        if ad.localNameIs("WoIOSensorTH") { return "Outdoor Meter" }
        return nil
    }
}
