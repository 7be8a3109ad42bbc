/// Xiaomi / Qingping / Tuya thermometers running the custom firmware of ATC1441 or pvvx
/// (LYWSD03MMC, MHO-C401, CGG1, CGDK2, MJWSD05MMC, …) in its "custom" advertising formats.
/// Models: LYWSD03MMC, MHO-C401, CGG1, CGDK2, MJWSD05MMC … running ATC1441 or pvvx firmware ("custom" format)
///
/// Where: service data, 16-bit UUID 0x181A (the SIG "Environmental Sensing" UUID, which other
/// devices use too: b-parasite, Relsib). The two formats are told apart by length; any other length
/// is not ours (`notMine`).
///
/// ATC1441 format, 13 bytes, big-endian:
/// | offset | size | field                                   |
/// |--------|------|-----------------------------------------|
/// | 0      | 6    | MAC, display order                      |
/// | 6      | 2    | temperature, signed, 0.1 °C             |
/// | 8      | 1    | humidity, %                             |
/// | 9      | 1    | battery, %                              |
/// | 10     | 2    | battery, mV                             |
/// | 12     | 1    | frame counter                           |
///
/// pvvx format, 15 bytes, little-endian:
/// | offset | size | field                                   |
/// |--------|------|-----------------------------------------|
/// | 0      | 6    | MAC, reversed                           |
/// | 6      | 2    | temperature, signed, 0.01 °C            |
/// | 8      | 2    | humidity, 0.01 %                        |
/// | 10     | 2    | battery, mV                             |
/// | 12     | 1    | battery, %                              |
/// | 13     | 1    | frame counter                           |
/// | 14     | 1    | flags (reed switch, GPIO trigger, …)    |
///
/// Integrity check: none. Sanity: humidity ≤ 100 % and battery ≤ 100 %, else `malformed`. The
/// payload MAC is compared with the advertiser address; a mismatch is a warning.
///
/// Samples: ATC1441 `a4c138d5d498 ffd3 3e 51 0b7b 62` → −4.5 °C, 62 %, 81 %, 2.939 V;
/// pvvx `5601cf38c1a4 62fd bd13 470c 64 cc 0f` → −6.70 °C, 50.53 %, 3.143 V, 100 %.
///
/// Source: github.com/atc1441/ATC_MiThermometer and github.com/pvvx/ATC_MiThermometer READMEs
/// ("Custom format"); the peers' tests in ../shared/vectors (theengs, ble_monitor, aioblescan).
public struct XiaomiCustom181ADecoder: SensorDecoder {
    public let id = "xiaomi_181a"
    public let selectors: [Selector] = [.serviceData(uuid16: 0x181A)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let frame = ad.serviceData(uuid16: 0x181A) else { return .notMine }
        let kind: String
        let model: String
        let fields: (mac: BDAddress, temperature: Double, humidity: Double, battery: UInt8, millivolts: UInt16)
        switch frame.count {
        case 13:
            kind = "atc1441"
            model = "ATC1441 firmware"
            guard let mac = frame.macBE(0), let t = frame.be16s(6), let h = frame.u8(8), let b = frame.u8(9),
                let mv = frame.be16(10)
            else { return .notMine }
            fields = (mac, Double(t) / 10, Double(h), b, mv)
        case 15:
            kind = "pvvx"
            model = "pvvx firmware"
            guard let mac = frame.macLE(0), let t = frame.le16s(6), let h = frame.le16(8), let mv = frame.le16(10),
                let b = frame.u8(12)
            else { return .notMine }
            fields = (mac, Double(t) / 100, Double(h) / 100, b, mv)
        default:
            return .notMine  // another user of 0x181A (b-parasite, Relsib, pvvx encrypted)
        }
        guard fields.humidity <= 100 else { return .malformed("\(kind) humidity \(fields.humidity) % out of range") }
        guard fields.battery <= 100 else { return .malformed("\(kind) battery \(fields.battery) % out of range") }
        var r = ad.reading(decoder: id, model: model, frameKind: kind)
        r.add(.temperatureC, fields.temperature)
        r.add(.humidityPercent, fields.humidity)
        r.add(.batteryPercent, Double(fields.battery))
        r.add(.voltageV, Double(fields.millivolts) / 1000)
        r.checkPayloadAddress(fields.mac)
        return .reading(consume r)
    }
}
