/// ThermoBeacon / Brifit / ORIA / SensorBlue thermo-hygrometers (WS02, WS07, WS08, lanyard and
/// "smart hygrometer" models), sold also as Thermoplus.
///
/// Where: manufacturer-specific data, 18 bytes after a "company id" that names the model variant
/// (0x0010, 0x0011, 0x0014, 0x0015, 0x001B, 0x0030). Numbers little-endian; offsets after the
/// company id.
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
/// > 100 % is `malformed`; an all-0xFF payload is `malformed`; a payload MAC that differs from
/// the advertiser address is a warning.
///
/// Sample: `15 ff 10 00 00 00 dc 0e 00 00 f1 70 6a 0b 81 01 d7 02 83 27 05 00` from
/// 70:F1:00:00:0E:DC → temperature 24.0625 °C, humidity 45.4375 %, battery 2.922 V.
///
/// Source: custom-components/ble_monitor `thermobeacon.py`/`thermoplus.py` and Bluetooth-Devices
/// thermobeacon-ble (company ids, offsets, /16 scaling); iskalchev ThermoBeacon-pyhap (button bit).
public struct ThermoBeaconDecoder: SensorDecoder {
    public static let companies: [UInt16] = [0x0010, 0x0011, 0x0014, 0x0015, 0x001B, 0x0030]
    public var id: StaticString { "thermobeacon" }
    public let selectors: [DecoderSelector] = ThermoBeaconDecoder.companies.map { .manufacturer($0) }

    public init() {}

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        // The first structure of one of our companies with 18 bytes after the id: an index loop on
        // the company ids, as `first(where:)` made every element it passed (callgrind).
        var found: (range: Range<Int>, model: StaticString)? = nil
        for k in 0..<ad.manufacturerDataCount where ad.manufacturerValueLength(at: k) == 20 {
            guard let model = Self.model(company: ad.manufacturerCompany(at: k)) else { continue }
            found = (ad.manufacturerPayloadRange(at: k), model)
            break
        }
        guard let (range, model) = found else { return .notMine }
        let data = ad.bytes.extracting(range)
        guard data.u8(0) == 0, data.u8(1) & 0x7F == 0 else { return .notMine }
        guard !data.allFF(from: 8) else { return .malformed("all-0xFF frame") }
        let humidity = Double(data.le16(12)) / 16
        guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
        readings.begin(ad, decoderID: id, model: model)
        readings.add(.temperatureC, Double(data.le16s(10)) / 16)
        readings.add(.humidityPercent, humidity)
        readings.add(.voltageV, Double(data.le16(8)) / 1000)
        readings.checkPayloadAddress(data.macLE(2))
        return .decoded
    }

    /// The model name of a company id, `nil` for a company not ours. Literals: building
    /// "ThermoBeacon 0x" + hex per frame was a third of the decode (callgrind).
    static func model(company: UInt16) -> StaticString? {
        switch company {
        case 0x0010: "ThermoBeacon 0x0010"
        case 0x0011: "ThermoBeacon 0x0011"
        case 0x0014: "ThermoBeacon 0x0014"
        case 0x0015: "ThermoBeacon 0x0015"
        case 0x001B: "ThermoBeacon 0x001b"
        case 0x0030: "ThermoBeacon 0x0030"
        default: nil
        }
    }
}
