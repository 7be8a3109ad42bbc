/// Jaalee JHT temperature/humidity beacons (theengs' "F525/F51C").
/// Models: Jaalee JHT
///
/// Where: an iBeacon (manufacturer data, company 0x004C) whose proximity UUID ends in `F5 25` or
/// `F5 1C`, one byte longer than a plain iBeacon: the major and minor carry the measurements and
/// a battery byte follows the TX power. Offsets after the company id, numbers big-endian:
///
/// | offset | size | field                                          |
/// |--------|------|------------------------------------------------|
/// | 0      | 2    | 02 15 (iBeacon)                                |
/// | 2      | 16   | proximity UUID, ending F5 25 or F5 1C          |
/// | 18     | 2    | temperature raw (major)                        |
/// | 20     | 2    | humidity raw (minor)                           |
/// | 22     | 1    | TX power                                       |
/// | 23     | 1    | battery, %                                     |
///
/// Without that iBeacon, service data 0xF525 (11 bytes: battery %, MAC little-endian, temperature
/// raw, humidity raw) or 0xF51C (12 bytes: the same with one more byte before the measurements).
///
/// Scales (Sensirion SHT3x): temperature = −45 + 175 × raw / 65535 °C, humidity = 100 × raw /
/// 65535 %. (bleparser's test applied the SHT2x formula, −46.85 + 175.72 × raw / 65536, which
/// ble_monitor, theengs and Jaalee's API example no longer do.)
///
/// Integrity check: none. Sanity: battery above 100 % is `malformed`. The payload MAC of the
/// service-data frames is compared with the advertiser's (a warning).
///
/// Sample: `1b ff 4c 00 02 15 eb ef d0 83 70 a2 47 c8 98 37 e7 b5 63 4d f5 25 74 20 59 1a cb 64` →
/// temperature 34.38 °C, humidity 34.81 %, battery 100 %.
///
/// Source: custom-components/ble_monitor `jaalee.py` (iBeacon layout, scales, the 0xF525 frame),
/// theengs decoder `JAALEE_json.h` (UUID endings, scales) and their tests.
public struct JaaleeDecoder: SensorDecoder {
    public let id = "jaalee"
    public let selectors: [Selector] = [
        .manufacturer(company: 0x004C), .serviceData(uuid16: 0xF525), .serviceData(uuid16: 0xF51C),
    ]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        var payloadMAC: BDAddress?
        let battery: UInt8, t: UInt16, h: UInt16
        if let beacon = ad.manufacturerData(company: 0x004C), beacon.count == 24, beacon.u8(0) == 0x02,
            beacon.u8(1) == 0x15, beacon.u8(16) == 0xF5, beacon.u8(17) == 0x25 || beacon.u8(17) == 0x1C,
            let rawT = beacon.be16(18), let rawH = beacon.be16(20), let level = beacon.u8(23)
        {
            (battery, t, h) = (level, rawT, rawH)
        } else if let frame = ad.serviceData(uuid16: 0xF525) ?? ad.serviceData(uuid16: 0xF51C) {
            let length = ad.serviceData(uuid16: 0xF525) != nil ? 11 : 12
            guard frame.count == length, let level = frame.u8(0), let mac = frame.macLE(1),
                let rawT = frame.be16(length - 4), let rawH = frame.be16(length - 2)
            else { return .malformed("frame of \(frame.count) bytes, expected \(length)") }
            (battery, t, h, payloadMAC) = (level, rawT, rawH, mac)
        } else {
            return .notMine
        }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        var r = ad.reading(decoder: id, model: "JHT")
        r.add(.temperatureC, -45 + 175 * Double(t) / 65535)
        r.add(.humidityPercent, 100 * Double(h) / 65535)
        r.add(.batteryPercent, Double(battery))
        if let payloadMAC { r.checkPayloadAddress(payloadMAC) }
        return .reading(consume r)
    }
}
