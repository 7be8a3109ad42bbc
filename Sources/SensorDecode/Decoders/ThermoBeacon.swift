/// ThermoBeacon / Brifit / ORIA / SensorBlue thermo-hygrometers (WS02, WS07, WS08, lanyard and
/// "smart hygrometer" models), sold also as Thermoplus.
/// Models: ThermoBeacon, Brifit, ORIA, SensorBlue, Thermoplus (WS02, WS07, WS08, lanyard)
///
/// Where: manufacturer-specific data, 18 bytes after a "company id" that names the model variant
/// (0x0010, 0x0011, 0x0014, 0x0015, 0x0018, 0x001B, 0x0030). Numbers little-endian; offsets after
/// the company id.
///
/// | offset | size | field                                                       |
/// |--------|------|-------------------------------------------------------------|
/// | 0      | 2    | 00, then 0x80 while the button is pressed, else 00           |
/// | 2      | 6    | MAC address, little-endian                                  |
/// | 8      | 2    | battery, u16 LE mV                                          |
/// | 10     | 2    | temperature, s16 LE / 16 °C                                 |
/// | 12     | 2    | humidity, u16 LE / 16 %                                     |
/// | 14     | 4    | uptime, u32 LE seconds                                      |
///
/// The other ThermoBeacon frame (20 bytes: maximum/minimum with time stamps) is not decoded.
/// Battery is reported as the measured voltage only: peers' "battery %" is their own linear
/// guess from it ((mV − 2000) / 10, capped), not something the device sends.
///
/// Integrity check: none. Sanity: bytes 0–1 other than 00 00/00 80 are not ours; humidity
/// > 100 % or a temperature above 100 °C (beyond any model's range; thermobeacon-ble drops such
/// frames too) is `malformed`; an all-0xFF payload is `malformed`; a payload MAC that differs
/// from the advertiser address is a warning.
///
/// Sample: `15 ff 10 00 00 00 dc 0e 00 00 f1 70 6a 0b 81 01 d7 02 83 27 05 00` from
/// 70:F1:00:00:0E:DC → temperature 24.0625 °C, humidity 45.4375 %, battery 2.922 V.
///
/// Source: custom-components/ble_monitor `thermobeacon.py`/`thermoplus.py` and Bluetooth-Devices
/// thermobeacon-ble (company ids, 0x0018 among its device types, offsets, /16 scaling, the 100 °C
/// bound); iskalchev ThermoBeacon-pyhap (button bit).
public struct ThermoBeaconDecoder: SensorDecoder {
    public static let companies: [UInt16] = [0x0010, 0x0011, 0x0014, 0x0015, 0x0018, 0x001B, 0x0030]
    public let id = "thermobeacon"
    public let selectors: [Selector] = ThermoBeaconDecoder.companies.map { .manufacturer(company: $0) }

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        // The first structure of one of our companies with 18 bytes after the id.
        guard
            let m = ad.manufacturerData.first(where: { $0.value.count == 20 && Self.companies.contains($0.companyID) })
        else { return .notMine }
        let data = m.payload
        guard data.u8(0) == 0, let flags = data.u8(1), flags & 0x7F == 0, let mac = data.macLE(2),
            let millivolts = data.le16(8), let t = data.le16s(10), let h = data.le16(12)
        else { return .notMine }
        guard !data.isAllFF(from: 8) else { return .malformed("all-0xFF frame") }
        let humidity = Double(h) / 16
        guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
        let celsius = Double(t) / 16
        guard celsius <= 100 else { return .malformed("temperature \(celsius) °C out of range") }
        var r = ad.reading(decoder: id, model: "ThermoBeacon 0x" + Hex.number(m.companyID, digits: 4))
        r.add(.temperatureC, celsius)
        r.add(.humidityPercent, humidity)
        r.add(.voltageV, Double(millivolts) / 1000)
        r.checkPayloadAddress(mac)
        return .reading(consume r)
    }
}
