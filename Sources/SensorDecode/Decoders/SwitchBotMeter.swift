/// SwitchBot Meter (type `T`), Meter Plus (`i`) and Outdoor Meter / Indoor-Outdoor
/// Thermo-Hygrometer (`w`).
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
/// Integrity check: none. Sanity: tenths > 9, humidity > 100 % or battery > 100 % is `malformed`.
///
/// Sample: `02 01 06 0e ff 69 09 c4 f9 26 75 df 22 dc 03 00 96 a9 09 16 3d fd 69 00 ba 03 19 38` →
/// Meter Plus, temperature −25.3 °C, humidity 56 %, battery 58 %.
///
/// Source: OpenWonderLabs SwitchBotAPI-BLE (meter.md), pySwitchbot `adv_parsers/meter.py`
/// (sign bit, the 0x0969 copy at 8–10), custom-components/ble_monitor tests.
public struct SwitchBotMeterDecoder: SensorDecoder {
    public var id: StaticString { "switchbot_meter" }
    public let selectors: [DecoderSelector] = [.serviceData16(0xFD3D), .serviceData16(0x0D00), .manufacturer(0x0969)]

    public init() {}

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        let bytes = ad.bytes
        // Where the service data lies, if any: read in `bytes`, counted from their start.
        let service = ad.serviceDataRange(uuid16: 0xFD3D) ?? ad.serviceDataRange(uuid16: 0x0D00)
        let model: StaticString
        if let service, service.count >= 3 {
            switch bytes.u8(service.lowerBound) & 0x7F {
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
        // Where the three measurement bytes start.
        let thStart: Int
        if let service, service.count >= 6 {
            thStart = service.lowerBound + 3
        } else if let data = ad.manufacturerPayloadRange(company: 0x0969), data.count >= 11 {
            thStart = data.lowerBound + 8  // data offset 8
        } else {
            return .malformed("\(model) advertisement without its measurement bytes")
        }
        let th = bytes.extracting(thStart..<(thStart + 3))
        let tenths = th.u8(0) & 0x0F
        guard tenths <= 9 else { return .malformed("temperature tenths digit \(tenths) out of range") }
        let magnitude = Double(th.u8(1) & 0x7F) + Double(tenths) / 10
        let humidity = th.u8(2) & 0x7F
        guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
        readings.begin(ad, decoderID: id, model: model)
        readings.add(.temperatureC, th.u8(1) & 0x80 != 0 ? magnitude : -magnitude)
        readings.add(.humidityPercent, Double(humidity))
        // The battery only in the service data; a bad one returns `.malformed`, and the registry
        // drops the reading begun above.
        if let service, service.count >= 3 {
            let battery = bytes.u8(service.lowerBound + 2) & 0x7F
            guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
            readings.add(.batteryPercent, Double(battery))
        }
        return .decoded
    }

    /// The meter a local name names, for advertisements that carry only the 0x0969 copy. Byte
    /// compares on the name, not a String and a dictionary lookup.
    static func model(name ad: ADView) -> StaticString? {
        if ad.localNameEquals("WoSensorTH") { return "Meter" }
        if ad.localNameEquals("WoSensorTHP") { return "Meter Plus" }
        if ad.localNameEquals("WoIOSensorTH") { return "Outdoor Meter" }
        return nil
    }
}
