/// b-parasite open-hardware soil moisture sensors (rbaron), firmware protocol versions 1 and 2
/// (the legacy 0x181A frame; newer firmware that speaks BTHome is decoded by the BTHome decoder).
/// Models: b-parasite
///
/// Where: service data, 16-bit UUID 0x181A (Environmental Sensing), 16 bytes, or 18 with the
/// light sensor. Numbers big-endian.
///
/// | offset | size | field                                                          |
/// |--------|------|----------------------------------------------------------------|
/// | 0      | 1    | bits 7–4: protocol version (1, 2); bit 0: illuminance present  |
/// | 1      | 1    | bits 3–0: packet counter                                       |
/// | 2      | 2    | battery voltage, mV                                            |
/// | 4      | 2    | temperature, s16: version 1 / 1000 °C, version 2 / 100 °C      |
/// | 6      | 2    | air humidity, u16 / 65535 × 100 %                              |
/// | 8      | 2    | soil moisture, u16 / 65535 × 100 %                             |
/// | 10     | 6    | device MAC, most significant byte first                        |
/// | 16     | 2    | illuminance, lux (when bit 0 of byte 0 is set)                 |
///
/// Other lengths of 0x181A service data belong to other formats (ATC/pvvx custom firmware):
/// `notMine`. A frame whose flag and length disagree is `malformed`.
///
/// Integrity check: none. The payload MAC is compared with the advertiser address (a warning).
///
/// Sample: `13 16 1a 18 20 c3 0c 1c 0a 00 e6 66 7f ff aa bb cc dd ee ff` from AA:BB:CC:DD:EE:FF →
/// battery 3.1 V, temperature 25.6 °C, humidity 90.0 %, soil moisture 50.0 %.
///
/// Source: custom-components/ble_monitor `bparasite.py` and theengs decoder `BPARASITE`
/// (protocol nibble, light flag, scaling; their tests are among our vectors).
public struct BParasiteDecoder: SensorDecoder {
    public let id = "b_parasite"
    public let selectors: [Selector] = [.serviceData(uuid16: 0x181A)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.serviceData(uuid16: 0x181A), d.count == 16 || d.count == 18, let head = d.u8(0),
            head >> 4 == 1 || head >> 4 == 2, let millivolts = d.be16(2), let t = d.be16s(4), let h = d.be16(6),
            let m = d.be16(8), let mac = d.macBE(10)
        else { return .notMine }
        let hasLight = head & 0x01 != 0
        guard hasLight == (d.count == 18) else {
            return .malformed("illuminance flag \(hasLight) in a frame of \(d.count) bytes")
        }
        let version = head >> 4
        var r = ad.reading(decoder: id, model: "b-parasite", frameKind: "v\(version)")
        r.add(.temperatureC, Double(t) / (version == 1 ? 1000 : 100))
        r.add(.humidityPercent, Double(h) / 65535 * 100)
        r.add(.moisturePercent, Double(m) / 65535 * 100)
        r.add(.voltageV, Double(millivolts) / 1000)
        if hasLight, let lux = d.be16(16) { r.add(.illuminanceLux, Double(lux)) }
        r.checkPayloadAddress(mac)
        return .reading(consume r)
    }
}
