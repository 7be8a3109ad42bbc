/// Xiaomi / Qingping / Tuya thermometers running the custom firmware of ATC1441 or pvvx
/// (LYWSD03MMC, MHO-C401, CGG1, CGDK2, MJWSD05MMC, …) in its "custom" advertising formats.
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
    public var id: StaticString { "xiaomi_181a" }
    public let selectors: [DecoderSelector] = [.serviceData16(0x181A)]

    public init() {}

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        guard let range = ad.serviceDataRange(uuid16: 0x181A) else { return .notMine }
        let frame = ad.bytes.extracting(range)
        let kind: StaticString
        let model: StaticString
        let mac: BDAddress
        let temperature: Double
        let humidity: Double
        let battery: UInt8
        let millivolts: UInt16
        switch frame.count {
        case 13:
            kind = "atc1441"
            model = "ATC1441 firmware"
            mac = frame.macBE(0)
            temperature = Double(frame.be16s(6)) / 10
            humidity = Double(frame.u8(8))
            battery = frame.u8(9)
            millivolts = frame.be16(10)
        case 15:
            kind = "pvvx"
            model = "pvvx firmware"
            mac = frame.macLE(0)
            temperature = Double(frame.le16s(6)) / 100
            humidity = Double(frame.le16(8)) / 100
            millivolts = frame.le16(10)
            battery = frame.u8(12)
        default:
            return .notMine  // another user of 0x181A (b-parasite, Relsib, pvvx encrypted)
        }
        guard humidity <= 100 else { return .malformed("\(kind) humidity \(humidity) % out of range") }
        guard battery <= 100 else { return .malformed("\(kind) battery \(battery) % out of range") }
        readings.begin(ad, decoderID: id, model: model, frameKind: kind)
        readings.add(.temperatureC, temperature)
        readings.add(.humidityPercent, humidity)
        readings.add(.batteryPercent, Double(battery))
        readings.add(.voltageV, Double(millivolts) / 1000)
        readings.checkPayloadAddress(mac)
        return .decoded
    }
}
