/// BTHome v1 and v2 — the open format of Shelly BLU devices, ATC/pvvx thermometer firmware in BTHome
/// mode, ESPHome/Zephyr/Arduino DIY sensors, and many others.
/// Models: Shelly BLU (H&T, Door/Window, Motion, Button, TRV), ATC/pvvx firmware in BTHome mode, ESPHome/Zephyr/DIY BTHome sensors
///
/// Where: service data, 16-bit UUID 0xFCD2 (v2) or 0x181C (v1, unencrypted; v1's encrypted 0x181E is
/// not decoded). Every number is little-endian.
///
/// v2 (0xFCD2): `info | [MAC(6), reversed, if info bit 1] | objects…`
/// | info bit | meaning                                                         |
/// |----------|-----------------------------------------------------------------|
/// | 0        | encrypted: objects are AES-CCM ciphertext, then counter(4), MIC(4) |
/// | 1        | the device MAC follows (reversed, as on air)                     |
/// | 2        | trigger-based device (sends on events, irregularly)              |
/// | 5–7      | version, must be 2 (`0x40`)                                      |
/// Each object is `id | value`, the value's size fixed by the id (table `table` below, the
/// spec's "Sensor data", "Binary sensor data", "Events" and "Device information" tables). Because
/// sizes are known only per id, an unknown id ends the walk: what came before is kept (with a
/// warning), and a frame with nothing before it is `malformed`.
///
/// v1 (0x181C): objects are `header | id | value`, header bits 0–4 = length of id + value, bits
/// 5–7 = value format (0 unsigned, 1 signed, 2 float, 3 string, 4 MAC); the ids mean the same as v2.
///
/// Encryption (v2, bit 0): nonce = MAC (6, display order) + UUID `D2 FC` + info byte + counter (4,
/// as on air); AES-128-CCM, 4-byte MIC, no associated data. The key comes from `DeviceKeys` for the
/// advertiser address (or the MAC in the payload). No key: a reading with no measurements (frame
/// kind `v2-encrypted-no-key`) names the device quietly — a stranger's sensor is not an error.
/// A MIC that fails with a configured key is `malformed` (wrong key or corrupt frame).
///
/// Multiple instances of one quantity in a frame (two temperatures, two voltages) get numbered
/// keys, the peer vectors' convention: `temperature_c`, `temperature2_c`, `voltage2_v`; see
/// `Quantity.instance(_:unitSuffix:)`.
///
/// Events (`DeviceEvent`, beside the `button_event`/`dimmer_steps` measurements):
/// | object | value                                   | event                                      |
/// |--------|-----------------------------------------|--------------------------------------------|
/// | 0x3A   | 0 none, 1 press, 2 double, 3 triple,     | `button` `press`, `double_press`,           |
/// |        | 4 long, 5 long double, 6 long triple,    | `triple_press`, `long_press`, …,            |
/// |        | 0x80 hold                                | `hold_press`; none → no event               |
/// | 0x3C   | event (0 none, 1 left, 2 right), steps   | `dimmer` `rotate_left:N` / `rotate_right:N` |
/// A device with several buttons sends one 0x3A per button, in order, "none" for those not
/// pressed: the second and later buttons' values get `:2`, `:3` (`double_press:2`). The frame's
/// packet id (object 0x00) goes with its events, so that the deduper can tell a repeat from a new
/// press; events of an encrypted frame say so (a rule can require it).
///
/// Integrity check: none for v1 and unencrypted v2 (the AD length is all); AES-CCM MIC when
/// encrypted. Sanity: an object whose value runs past the frame ends the walk like an unknown id.
///
/// Sample: `0a 16 d2 fc 40 02 ca 09 03 bf 13` → v2, temperature 25.06 °C, humidity 50.55 %.
/// Encrypted sample (bthome.io "Encryption" example, key 231d39c1d7cc1ab1aee224cd096db932, MAC
/// 54:48:E6:8F:80:A5): `41 a4 72 66 c9 5f 73 00 11 22 33 78 23 72 14` → the same two values.
///
/// Source: the BTHome specification, bthome.io/format and bthome.io/encryption (object ids, sizes,
/// factors, nonce); checked against Bluetooth-Devices/bthome-ble's object table and the peers'
/// tests in ../shared/vectors.
public struct BTHomeDecoder: SensorDecoder {
    public let id = "bthome"
    public let selectors: [Selector] = [.serviceData(uuid16: 0xFCD2), .serviceData(uuid16: 0x181C)]
    private let keys: DeviceKeys

    /// - Parameter keys: AES keys for encrypted v2 devices, by address.
    public init(keys: DeviceKeys = DeviceKeys()) { self.keys = keys }

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        let v2 = ad.serviceData(uuid16: 0xFCD2).map { decodeV2(ad, $0) }
        let v1 = ad.serviceData(uuid16: 0x181C).map { decodeV1(ad, $0) }
        // One frame, the usual case: its outcome is the answer. Both frames: the readings of each
        // that decoded; if neither did, the first problem.
        if let v2, v1 == nil { return v2 }
        if let v1, v2 == nil { return v1 }
        var readings: [Reading] = []
        var problem: String? = nil
        for case let outcome? in [v2, v1] {
            switch outcome {
            case .readings(let r): readings += r
            case .malformed(let why): if problem == nil { problem = why }
            case .notMine: break
            }
        }
        if !readings.isEmpty { return .readings(readings) }
        if let problem { return .malformed(problem) }
        return .notMine
    }

    // MARK: v2

    private func decodeV2(_ ad: Advertisement, _ frame: Frame) -> DecodeOutcome {
        guard let info = frame.u8(0) else { return .malformed("empty BTHome v2 frame") }
        // A version we do not know has a layout we do not know: not guessed.
        guard info >> 5 == 2 else { return .notMine }
        var body = frame.dropFirst(1)
        var mac = ad.address
        if info & 0x02 != 0 {
            guard let m = body.macLE(0) else {
                return .malformed("BTHome v2 frame of \(frame.count) bytes too short for its MAC")
            }
            mac = m
            body = body.dropFirst(6)
        }
        guard info & 0x01 != 0 else { return walkV2(body, kind: "v2", ad) }
        guard let key = keys[ad.address] ?? keys[mac] else {
            return .reading(ad.reading(decoder: id, model: "BTHome", frameKind: "v2-encrypted-no-key"))
        }
        // ciphertext (≥ 1) + counter (4) + MIC (4)
        guard body.count >= 9 else {
            return .malformed("encrypted BTHome v2 frame of \(frame.count) bytes, too short for counter and MIC")
        }
        let bytes = body.bytes
        let nonce = mac.bigEndianBytes + [0xD2, 0xFC, info] + bytes.dropLast(4).suffix(4)
        do throws(AESCCM.Failure) {
            let plain = try AESCCM.decrypt(key: key, nonce: nonce, ciphertext: bytes.dropLast(8), tag: bytes.suffix(4))
            return walkV2(Frame(plain), kind: "v2-encrypted", ad)
        } catch .authenticationFailed {
            return .malformed(
                "BTHome MIC check failed with the key configured for \(ad.address): wrong key or corrupt frame")
        } catch {
            return .malformed("BTHome decryption: \(error)")
        }
    }

    /// The objects of a v2 frame, in the clear: id, then a value of the table's size (or a length
    /// byte and that many bytes).
    private func walkV2(_ body: Frame, kind: String, _ ad: Advertisement) -> DecodeOutcome {
        var r = ad.reading(decoder: id, model: "BTHome", frameKind: kind)
        var met = Met()
        var stopped: String? = nil
        var next = 0
        while let objectID = body.u8(next) {
            let at = next
            next += 1
            let hexID = { Hex.number(objectID) }  // for messages only
            guard let object = Self.objects[Int(objectID)] else {
                stopped = "unknown BTHome object id 0x\(hexID()) at offset \(at); rest ignored"
                break
            }
            var size = object.size
            if size == 0 {  // text and raw: a length byte, then that many bytes
                guard let length = body.u8(next) else {
                    stopped = "object 0x\(hexID()) at offset \(at) has no length byte"
                    break
                }
                size = Int(length)
                next += 1
            }
            guard let value = body.bytes(next..<(next + size)) else {
                let left = body.count - next
                stopped = "object 0x\(hexID()) at offset \(at) needs \(size) bytes, \(left) left; rest ignored"
                break
            }
            append(object, value, signedOverride: nil, to: &r, &met)
            next += size
        }
        met.stamp(&r, encrypted: kind == "v2-encrypted")
        if let why = stopped {
            if r.measurements.isEmpty { return .malformed(why) }
            r.warn(.text(why))
        }
        return .reading(consume r)
    }

    // MARK: v1

    private func decodeV1(_ ad: Advertisement, _ frame: Frame) -> DecodeOutcome {
        // 0x181C is the SIG "User Data" UUID: with nothing in it, it is no BTHome frame.
        guard !frame.isEmpty else { return .notMine }
        var r = ad.reading(decoder: id, model: "BTHome", frameKind: "v1")
        var met = Met()
        var stopped: String? = nil
        var next = 0
        // Each object: a header byte (format in bits 5–7, id + value length in bits 0–4), the id,
        // the value.
        while let header = frame.u8(next) {
            let at = next
            next += 1
            let length = Int(header & 0x1F)  // id + value
            let format = header >> 5
            guard length >= 1, let objectID = frame.u8(next), let value = frame.bytes((next + 1)..<(next + length)) else {
                stopped = "v1 object at offset \(at) declares \(length) bytes, \(frame.count - next) left"
                break
            }
            next += length
            let hexID = { Hex.number(objectID) }  // for messages only
            guard let entry = Self.objects[Int(objectID)] else {
                r.warn("unknown BTHome v1 object id 0x\(hexID()) skipped")
                continue
            }
            switch format {
            case 0, 1:
                guard (1...4).contains(value.count) else {
                    r.warn("v1 object 0x\(hexID()) of \(value.count) bytes skipped")
                    continue
                }
                append(entry, value, signedOverride: format == 1, to: &r, &met)
            case 2:
                guard value.count == 4, entry.kind == .quantity, let v = value.float32LE(0) else {
                    r.warn("v1 float object 0x\(hexID()) skipped")
                    continue
                }
                // Any 32 bits are a float, NaN and infinities too; no quantity has such a value,
                // and one stored would poison its hour's rollup (found by fuzz/targets/decode_registry).
                guard v.isFinite else {
                    r.warn("v1 float object 0x\(hexID()) is not a finite number, skipped")
                    continue
                }
                add(entry, Double(v), to: &r, &met)
            default:
                continue  // strings and MACs carry no measurement
            }
        }
        met.stamp(&r, encrypted: false)
        if let why = stopped {
            if r.measurements.isEmpty { return .malformed(why) }
            r.warn(.text(why))
        }
        return .reading(consume r)
    }

    // MARK: objects

    /// Adds the measurement of `object`, whose value is `value` (little-endian, at most 8 bytes
    /// read), to `r`.
    private func append(_ object: Object, _ value: Frame, signedOverride: Bool?, to r: inout Reading, _ met: inout Met) {
        let count = value.count
        let width = min(count, 8)
        var raw: Int64 = 0
        for (i, byte) in value.bytes.prefix(width).enumerated() { raw |= Int64(byte) << (8 * Int64(i)) }
        let signed = signedOverride ?? object.signed
        if signed, count < 8, width > 0, let top = value.u8(width - 1), top & 0x80 != 0 {
            raw -= Int64(1) << (8 * Int64(count))  // sign-extend
        }
        switch object.kind {
        case .ignore:
            return
        case .packetID:
            met.packetID = Int(raw & 0xFF)
        case .quantity:
            add(object, Double(raw) * object.multiplier / object.divisor, to: &r, &met)
        case .button:
            add(object, Double(raw), to: &r, &met)
            met.buttons += 1
            guard raw != 0 else { return }  // "none": this button was not pressed
            guard let name = Self.buttonEvents[raw] else {
                r.warn("BTHome button event 0x\(Hex.number(UInt8(raw & 0xFF))) unknown, no event")
                return
            }
            r.fire(DeviceEvent(.button, met.buttons == 1 ? name : "\(name):\(met.buttons)"))
        case .dimmer:
            // event (1 left, 2 right) then steps
            guard count == 2, let event = value.u8(0), let stepByte = value.u8(1) else { return }
            let steps = Double(stepByte)
            add(object, event == 1 ? -steps : event == 2 ? steps : 0, to: &r, &met)
            if event == 1 || event == 2 {
                r.fire(DeviceEvent(.dimmer, (event == 1 ? "rotate_left:" : "rotate_right:") + String(stepByte)))
            }
        }
    }

    /// Adds `object`'s quantity with value `v` to `r`, numbered when the frame had that quantity
    /// before (`temperature_2_c` for the second temperature).
    private func add(_ object: Object, _ v: Double, to r: inout Reading, _ met: inout Met) {
        r.add(object.quantity.instance(met.meet(object.quantity), unitSuffix: object.unit), v)
    }

    /// BTHome's button event names, by the 0x3A object's value (0 is "none").
    static let buttonEvents: [Int64: String] = [
        0x01: "press", 0x02: "double_press", 0x03: "triple_press", 0x04: "long_press", 0x05: "long_double_press",
        0x06: "long_triple_press", 0x80: "hold_press",
    ]

    /// What one frame has had so far: its quantities in order (a frame has a few), its packet id,
    /// its button objects.
    struct Met {
        private var met: [Quantity] = []
        var packetID: Int? = nil
        var buttons = 0

        /// Gives the frame's events its packet id and whether it was encrypted.
        func stamp(_ r: inout Reading, encrypted: Bool) {
            for i in r.events.indices {
                r.events[i].packetID = packetID
                r.events[i].encrypted = encrypted
            }
        }
        /// Records one more instance of `quantity` and returns its number, 1 for the first.
        mutating func meet(_ quantity: Quantity) -> Int {
            met.append(quantity)
            return met.count { $0 == quantity }
        }
    }

    enum Kind: Sendable {
        /// A measurement of the object's quantity.
        case quantity
        /// A dimmer event: steps turned, as `dimmerSteps`, and a `dimmer` event.
        case dimmer
        /// A button event: its number, as `buttonEvent`, and a `button` event.
        case button
        /// The packet id (object 0x00): no measurement; it goes with the frame's events.
        case packetID
        /// Parsed for its length only (device information, text, raw).
        case ignore
    }

    /// An object id's layout.
    struct Object: Sendable {
        /// Value size in bytes; 0 = a length byte gives it.
        let size: Int
        let signed: Bool
        let multiplier: Double
        let divisor: Double
        let kind: Kind
        /// What it measures (`dimmerSteps` for the dimmer); meaningless for `.ignore`.
        let quantity: Quantity
        /// The unit part of the quantity's key, for numbered instances.
        let unit: String
    }

    /// The v2 object table, indexed by object id (bthome.io/format).
    /// Factors are written as divisors so that 2506 / 100 gives the double nearest 25.06, not
    /// 25.060000000000002.
    static let objects: [Object?] = {
        var t = [Object?](repeating: nil, count: 256)
        func make(
            _ size: Int, _ quantity: Quantity, _ unit: String, _ kind: Kind, signed: Bool, divide: Double,
            multiply: Double
        ) -> Object {
            Object(size: size, signed: signed, multiplier: multiply, divisor: divide, kind: kind, quantity: quantity, unit: unit)
        }
        func q(
            _ size: Int, _ quantity: Quantity, _ unit: String, signed: Bool = false, divide: Double = 1,
            multiply: Double = 1
        ) -> Object {
            make(size, quantity, unit, .quantity, signed: signed, divide: divide, multiply: multiply)
        }
        func binary(_ quantity: Quantity) -> Object { q(1, quantity, "") }
        func ignore(_ size: Int) -> Object {
            make(size, .packetCount, "", .ignore, signed: false, divide: 1, multiply: 1)
        }
        t[0x00] = make(1, .packetCount, "", .packetID, signed: false, divide: 1, multiply: 1)
        t[0x01] = q(1, .batteryPercent, "pct")
        t[0x02] = q(2, .temperatureC, "c", signed: true, divide: 100)
        t[0x03] = q(2, .humidityPercent, "pct", divide: 100)
        t[0x04] = q(3, .pressureHPa, "hpa", divide: 100)
        t[0x05] = q(3, .illuminanceLux, "lux", divide: 100)
        t[0x06] = q(2, .massKg, "kg", divide: 100)
        t[0x07] = q(2, .massLb, "lb", divide: 100)
        t[0x08] = q(2, .dewpointC, "c", signed: true, divide: 100)
        t[0x09] = q(1, .count, "")
        t[0x0A] = q(3, .energyKWh, "kwh", divide: 1000)
        t[0x0B] = q(3, .powerW, "w", divide: 100)
        t[0x0C] = q(2, .voltageV, "v", divide: 1000)
        t[0x0D] = q(2, .pm25UgM3, "ug_m3")
        t[0x0E] = q(2, .pm10UgM3, "ug_m3")
        t[0x0F] = binary(.genericBoolean)
        t[0x10] = binary(.powerOn)
        t[0x11] = binary(.opening)
        t[0x12] = q(2, .co2PPM, "ppm")
        t[0x13] = q(2, .tvocUgM3, "ug_m3")
        t[0x14] = q(2, .moisturePercent, "pct", divide: 100)
        t[0x15] = binary(.batteryLow)
        t[0x16] = binary(.batteryCharging)
        t[0x17] = binary(.carbonMonoxide)
        t[0x18] = binary(.cold)
        t[0x19] = binary(.connectivity)
        t[0x1A] = binary(.door)
        t[0x1B] = binary(.garageDoor)
        t[0x1C] = binary(.gasDetected)
        t[0x1D] = binary(.heat)
        t[0x1E] = binary(.light)
        t[0x1F] = binary(.lock)
        t[0x20] = binary(.moistureDetected)
        t[0x21] = binary(.motion)
        t[0x22] = binary(.moving)
        t[0x23] = binary(.occupancy)
        t[0x24] = binary(.plug)
        t[0x25] = binary(.presence)
        t[0x26] = binary(.problem)
        t[0x27] = binary(.running)
        t[0x28] = binary(.safety)
        t[0x29] = binary(.smoke)
        t[0x2A] = binary(.sound)
        t[0x2B] = binary(.tamper)
        t[0x2C] = binary(.vibration)
        t[0x2D] = binary(.window)
        t[0x2E] = q(1, .humidityPercent, "pct")
        t[0x2F] = q(1, .moisturePercent, "pct")
        t[0x3A] = make(1, .buttonEvent, "", .button, signed: false, divide: 1, multiply: 1)
        t[0x3C] = make(2, .dimmerSteps, "", .dimmer, signed: false, divide: 1, multiply: 1)
        t[0x3D] = q(2, .count, "")
        t[0x3E] = q(4, .count, "")
        t[0x3F] = q(2, .rotationDeg, "deg", signed: true, divide: 10)
        t[0x40] = q(2, .distanceMm, "mm")
        t[0x41] = q(2, .distanceM, "m", divide: 10)
        t[0x42] = q(3, .durationS, "s", divide: 1000)
        t[0x43] = q(2, .currentA, "a", divide: 1000)
        t[0x44] = q(2, .speedMS, "m_s", divide: 100)
        t[0x45] = q(2, .temperatureC, "c", signed: true, divide: 10)
        t[0x46] = q(1, .uvIndex, "", divide: 10)
        t[0x47] = q(2, .volumeL, "l", divide: 10)
        t[0x48] = q(2, .volumeMl, "ml")
        t[0x49] = q(2, .volumeFlowM3H, "m3_h", divide: 1000)
        t[0x4A] = q(2, .voltageV, "v", divide: 10)
        t[0x4B] = q(3, .gasM3, "m3", divide: 1000)
        t[0x4C] = q(4, .gasM3, "m3", divide: 1000)
        t[0x4D] = q(4, .energyKWh, "kwh", divide: 1000)
        t[0x4E] = q(4, .volumeL, "l", divide: 1000)
        t[0x4F] = q(4, .waterL, "l", divide: 1000)
        t[0x50] = q(4, .deviceTimeS, "s")
        t[0x51] = q(2, .accelerationMS2, "m_s2", divide: 1000)
        t[0x52] = q(2, .gyroscopeDegS, "deg_s", divide: 1000)
        t[0x53] = ignore(0)  // text
        t[0x54] = ignore(0)  // raw
        t[0x55] = q(4, .volumeStorageL, "l", divide: 1000)
        t[0x56] = q(2, .conductivityUsCm, "us_cm")
        t[0x57] = q(1, .temperatureC, "c", signed: true)
        t[0x58] = q(1, .temperatureC, "c", signed: true, divide: 100, multiply: 35)
        t[0x59] = q(1, .count, "", signed: true)
        t[0x5A] = q(2, .count, "", signed: true)
        t[0x5B] = q(4, .count, "", signed: true)
        t[0x5C] = q(4, .powerW, "w", signed: true, divide: 100)
        t[0x5D] = q(2, .currentA, "a", signed: true, divide: 1000)
        t[0x5E] = q(2, .directionDeg, "deg", divide: 100)
        t[0x5F] = q(2, .precipitationMm, "mm", divide: 10)
        t[0x60] = q(1, .channel, "")
        t[0x61] = q(2, .rotationalSpeedRpm, "rpm")
        t[0x62] = q(4, .speedMS, "m_s", signed: true, divide: 1_000_000)
        t[0x63] = q(4, .accelerationMS2, "m_s2", signed: true, divide: 1_000_000)
        t[0x64] = q(1, .lightLevel, "")
        t[0xF0] = ignore(2)  // device type id
        t[0xF1] = ignore(4)  // firmware version (4 bytes)
        t[0xF2] = ignore(3)  // firmware version (3 bytes)
        return t
    }()
}
