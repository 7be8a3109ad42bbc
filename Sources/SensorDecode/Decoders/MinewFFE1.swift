/// Minew "BeaconPlus" sensor frames — SANWA MM-BLEBC7 (a Minew S1), and other Minew sensor beacons.
///
/// Where: service data, 16-bit UUID 0xFFE1; byte 0 is the frame type 0xA1 ("sensor"), byte 1 the
/// frame version. Every multi-byte number is big-endian; the device MAC is little-endian.
///
/// | version | length | layout after `A1 vv`                                   | model      |
/// |---------|--------|--------------------------------------------------------|------------|
/// | 0x01    | 13     | battery % u8, temperature s8.8, humidity u8.8, MAC(6)  | MM-BLEBC7  |
/// | 0x02    | 10     | battery % u8, light flags u8 (bit 0: light), MAC(6)    | Minew light|
/// | 0x03    | 15     | battery % u8, accel x/y/z s8.8 in g, MAC(6)            | Minew accel|
/// | 0x08    | ≥ 9    | battery % u8, MAC(6), name (UTF-8, rest of frame)      | MM-BLEBC7  |
/// | 0x13    | 11     | battery % u8, temperature s8.8, MAC(6)                 | Minew temp |
///
/// "s8.8" is a signed 16-bit big-endian number / 256: `FF 80` is −0.5 °C, `F6 00` is −10 °C. The
/// vendor's iOS sample computes `Float(b3) + Float(b4)/256` on unsigned bytes, which turns −0.5 °C
/// into 255.5 °C; peers (obniz) shipped that bug.
///
/// Integrity check: none. Sanity: battery ≤ 100, humidity ≤ 100; a frame of a version we know with
/// the wrong length is `malformed`, never guessed. The payload MAC is compared with the advertiser
/// address; a mismatch is a warning on the reading, not a rejection (some firmware lets the user
/// broadcast a random address).
///
/// Sample: `10 16 e1 ff a1 01 64 ff 80 32 00 66 55 44 33 22 11` from 11:22:33:44:55:66 →
/// battery 100 %, temperature −0.5 °C, humidity 50.0 %.
///
/// Source: Minew's BeaconPlus SDK frame list; reelyActive advlib-ble-services `lib/minew.js`
/// (frame lengths, signed 8.8), whose unit tests are among our vectors.
public struct MinewFFE1Decoder: SensorDecoder {
    public var id: StaticString { "minew_ffe1" }
    public let selectors: [DecoderSelector] = [.serviceData16(0xFFE1)]

    public init() {}

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        guard let range = ad.serviceDataRange(uuid16: 0xFFE1) else { return .notMine }
        let frame = ad.bytes.extracting(range)
        guard frame.count >= 3, frame.u8(0) == 0xA1 else { return .notMine }
        let version = frame.u8(1)
        let battery = frame.u8(2)
        let macOffset: Int
        // Each frame's reading is begun once its length is known good; a range check failing
        // later returns `.malformed`, and the registry drops the reading.
        switch version {
        case 0x01:
            guard frame.count == 13 else { return .malformed("a1-01 frame of \(frame.count) bytes, expected 13") }
            let humidity = Double(frame.be16(5)) / 256
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            readings.begin(ad, decoderID: id, model: "MM-BLEBC7", frameKind: "a1-01")
            readings.add(.batteryPercent, Double(battery))
            readings.add(.temperatureC, Double(frame.be16s(3)) / 256)
            readings.add(.humidityPercent, humidity)
            macOffset = 7
        case 0x02:
            guard frame.count == 10 else { return .malformed("a1-02 frame of \(frame.count) bytes, expected 10") }
            readings.begin(ad, decoderID: id, model: "Minew light", frameKind: "a1-02")
            readings.add(.batteryPercent, Double(battery))
            readings.add(.light, Double(frame.u8(3) & 0x01))
            macOffset = 4
        case 0x03:
            guard frame.count == 15 else { return .malformed("a1-03 frame of \(frame.count) bytes, expected 15") }
            readings.begin(ad, decoderID: id, model: "Minew accelerometer", frameKind: "a1-03")
            readings.add(.batteryPercent, Double(battery))
            readings.add(.accelerationXG, Double(frame.be16s(3)) / 256)
            readings.add(.accelerationYG, Double(frame.be16s(5)) / 256)
            readings.add(.accelerationZG, Double(frame.be16s(7)) / 256)
            macOffset = 9
        case 0x08:
            guard frame.count >= 9 else { return .malformed("a1-08 frame of \(frame.count) bytes, expected ≥ 9") }
            // The name this frame carries, if any; else the AD local name, as for the other frames.
            let name = frame.count > 9 ? frame.extracting(droppingFirst: 9) : nil
            readings.begin(ad, decoderID: id, model: "MM-BLEBC7", frameKind: "a1-08", name: name)
            readings.add(.batteryPercent, Double(battery))
            macOffset = 3
        case 0x13:
            guard frame.count == 11 else { return .malformed("a1-13 frame of \(frame.count) bytes, expected 11") }
            readings.begin(ad, decoderID: id, model: "Minew temperature", frameKind: "a1-13")
            readings.add(.batteryPercent, Double(battery))
            readings.add(.temperatureC, Double(frame.be16s(3)) / 256)
            macOffset = 5
        default:
            return .notMine  // a version whose layout we do not know: not guessed
        }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }

        readings.checkPayloadAddress(frame.macLE(macOffset))
        return .decoded
    }
}
