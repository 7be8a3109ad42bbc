/// Minew "BeaconPlus" sensor frames — SANWA MM-BLEBC7 (a Minew S1), and other Minew sensor beacons.
/// Models: SANWA MM-BLEBC7 (Minew S1), other Minew sensor beacons
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
    public let id = "minew_ffe1"
    public let selectors: [Selector] = [.serviceData(uuid16: 0xFFE1)]

    /// The exact length of each fixed-size frame version (0x08 has a name of any length after 9).
    static let lengths: [UInt8: Int] = [0x01: 13, 0x02: 10, 0x03: 15, 0x13: 11]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let frame = ad.serviceData(uuid16: 0xFFE1), frame.u8(0) == 0xA1,
            let version = frame.u8(1), let battery = frame.u8(2)
        else { return .notMine }
        if let length = Self.lengths[version], frame.count != length {
            return .malformed("a1-\(Hex.number(version)) frame of \(frame.count) bytes, expected \(length)")
        }
        let kind = "a1-" + Hex.number(version)
        var r: Reading
        let macOffset: Int
        switch version {
        case 0x01:
            guard let t = frame.be16s(3), let h = frame.be16(5) else { return .notMine }
            let humidity = Double(h) / 256
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            r = ad.reading(decoder: id, model: "MM-BLEBC7", frameKind: kind)
            r.add(.batteryPercent, Double(battery))
            r.add(.temperatureC, Double(t) / 256)
            r.add(.humidityPercent, humidity)
            macOffset = 7
        case 0x02:
            guard let light = frame.u8(3) else { return .notMine }
            r = ad.reading(decoder: id, model: "Minew light", frameKind: kind)
            r.add(.batteryPercent, Double(battery))
            r.add(.light, Double(light & 0x01))
            macOffset = 4
        case 0x03:
            guard let x = frame.be16s(3), let y = frame.be16s(5), let z = frame.be16s(7) else { return .notMine }
            r = ad.reading(decoder: id, model: "Minew accelerometer", frameKind: kind)
            r.add(.batteryPercent, Double(battery))
            r.add(.accelerationXG, Double(x) / 256)
            r.add(.accelerationYG, Double(y) / 256)
            r.add(.accelerationZG, Double(z) / 256)
            macOffset = 9
        case 0x08:
            guard frame.count >= 9 else { return .malformed("a1-08 frame of \(frame.count) bytes, expected ≥ 9") }
            r = ad.reading(decoder: id, model: "MM-BLEBC7", frameKind: kind)
            // The name this frame carries, if any; else the AD local name, as for the other frames.
            if frame.count > 9 { r.setName(fromFrame: frame.dropFirst(9)) }
            r.add(.batteryPercent, Double(battery))
            macOffset = 3
        case 0x13:
            guard let t = frame.be16s(3) else { return .notMine }
            r = ad.reading(decoder: id, model: "Minew temperature", frameKind: kind)
            r.add(.batteryPercent, Double(battery))
            r.add(.temperatureC, Double(t) / 256)
            macOffset = 5
        default:
            return .notMine  // a version whose layout we do not know: not guessed
        }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        guard let mac = frame.macLE(macOffset) else { return .notMine }
        r.checkPayloadAddress(mac)
        return .reading(consume r)
    }
}
