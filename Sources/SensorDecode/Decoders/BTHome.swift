/// BTHome v1 and v2 — the open format of Shelly BLU devices, ATC/pvvx thermometer firmware in BTHome
/// mode, ESPHome/Zephyr/Arduino DIY sensors, and many others.
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
    public var id: StaticString { "bthome" }
    public let selectors: [DecoderSelector] = [.serviceData16(0xFCD2), .serviceData16(0x181C)]
    private let keys: DeviceKeys
    /// `Self.table`, held here: read from the lazy global, each frame paid its `swift_once`
    /// check (~40 instructions, callgrind).
    private let objects = Self.table.objects
    private let slots = Self.table.slots

    /// - Parameter keys: AES keys for encrypted v2 devices, by address.
    public init(keys: DeviceKeys = DeviceKeys()) { self.keys = keys }

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        // Where each frame lies in the advertisement's bytes, read as spans of them.
        let v2 = ad.serviceDataRange(uuid16: 0xFCD2)
        let v1 = ad.serviceDataRange(uuid16: 0x181C)
        // One frame, the usual case: its verdict is the answer.
        if let v2, v1 == nil { return decodeV2(ad, v2, into: &readings) }
        if let v1, v2 == nil { return decodeV1(ad, v1, into: &readings) }
        // Both frames: each one's reading is kept if it decoded, and dropped here if not (the
        // registry would drop it only if neither decoded). The first problem is the answer when
        // neither did.
        var decoded = false
        var problem: MalformedReason? = nil
        func settle(_ verdict: DecodeVerdict, appendedFrom before: Int) {
            switch verdict {
            case .decoded: decoded = true
            case .malformed(let why):
                readings.truncate(to: before)
                if problem == nil { problem = why }
            case .notMine: readings.truncate(to: before)
            }
        }
        if let v2 {
            let before = readings.count
            settle(decodeV2(ad, v2, into: &readings), appendedFrom: before)
        }
        if let v1 {
            let before = readings.count
            settle(decodeV1(ad, v1, into: &readings), appendedFrom: before)
        }
        if decoded { return .decoded }
        if let problem { return .malformed(problem) }
        return .notMine
    }

    // MARK: v2

    private func decodeV2(
        _ ad: ADView, _ range: Range<Int>,
        into readings: inout ReadingList
    ) -> DecodeVerdict {
        let frame = ad.bytes.extracting(range)
        guard frame.count > 0 else { return .malformed("empty BTHome v2 frame") }
        let info = frame.u8(0)
        // A version we do not know has a layout we do not know: not guessed.
        guard info >> 5 == 2 else { return .notMine }
        var body = range.dropFirst()  // where the objects lie, counted from the bytes' start
        var mac = ad.header.address
        if info & 0x02 != 0 {
            guard body.count >= 6 else {
                return .malformed("BTHome v2 frame of \(frame.count) bytes too short for its MAC")
            }
            mac = frame.macLE(1)
            body = body.dropFirst(6)
        }
        if info & 0x01 != 0 {
            guard let key = keys[ad.header.address] ?? keys[mac] else {
                readings.begin(ad, decoderID: id, model: "BTHome", frameKind: "v2-encrypted-no-key")
                return .decoded
            }
            // ciphertext (≥ 1) + counter (4) + MIC (4)
            guard body.count >= 9 else {
                return .malformed("encrypted BTHome v2 frame of \(frame.count) bytes, too short for counter and MIC")
            }
            let bytes = ad.bytes.array[...]  // `ad` is a view: the cipher takes slices of bytes of its own
            let counter = bytes.slice(body.dropLast(4).suffix(4))
            let nonce = mac.bigEndianBytes + [0xD2, 0xFC, info] + counter
            do throws(AESCCM.Failure) {
                let plain = try AESCCM.decrypt(
                    key: key, nonce: nonce, ciphertext: bytes.slice(body.dropLast(8)), tag: bytes.slice(body.suffix(4)))
                return walkV2(plain.span, kind: "v2-encrypted", ad, into: &readings)
            } catch .authenticationFailed {
                return .malformed(
                    "BTHome MIC check failed with the key configured for \(ad.header.address): wrong key or corrupt frame")
            } catch {
                return .malformed("BTHome decryption: \(error)")
            }
        }
        return walkV2(ad.bytes.extracting(body), kind: "v2", ad, into: &readings)
    }

    /// The objects of a v2 frame, in the clear.
    private func walkV2(
        _ body: Span<UInt8>, kind: StaticString, _ ad: ADView,
        into readings: inout ReadingList
    ) -> DecodeVerdict {
        // The reading is begun before the walk, which adds to it; a walk that stops before any
        // measurement returns `.malformed`, and the registry drops the reading.
        readings.begin(ad, decoderID: id, model: "BTHome", frameKind: kind)
        var met = Met()
        var stopped: MalformedReason? = nil
        // Walked by offset into the body: a reader and a slice per value cost a retain and a
        // release each (callgrind).
        var next = 0
        walk: while next < body.count {
            let at = next
            let objectID = body.u8(at)
            next += 1
            guard let object = objects[Int(objectID)] else {
                stopped = "unknown BTHome object id 0x\(hex: objectID) at offset \(at); rest ignored"
                break walk
            }
            var size = object.size
            if size == 0 {  // text and raw: a length byte, then that many bytes
                guard next < body.count else {
                    stopped = "object 0x\(hex: objectID) at offset \(at) has no length byte"
                    break walk
                }
                size = Int(body.u8(next))
                next += 1
            }
            guard body.count - next >= size else {
                let left = body.count - next
                stopped = "object 0x\(hex: objectID) at offset \(at) needs \(size) bytes, \(left) left; rest ignored"
                break walk
            }
            append(object, body, at: next, count: size, signedOverride: nil, to: &readings, &met)
            next += size
        }
        if let why = stopped {
            if readings.currentMeasurementCount == 0 { return .malformed(why) }
            readings.warn(.reason(why))
        }
        return .decoded
    }

    // MARK: v1

    private func decodeV1(
        _ ad: ADView, _ range: Range<Int>,
        into readings: inout ReadingList
    ) -> DecodeVerdict {
        // 0x181C is the SIG "User Data" UUID: with nothing in it, it is no BTHome frame.
        guard !range.isEmpty else { return .notMine }
        let frame = ad.bytes.extracting(range)
        // Begun before the walk, as in v2; the walk adds measurements and warnings to it.
        readings.begin(ad, decoderID: id, model: "BTHome", frameKind: "v1")
        var met = Met()
        var stopped: MalformedReason? = nil
        var next = 0  // by offset, as in v2
        walk: while next < frame.count {
            let at = next
            let header = frame.u8(at)
            next += 1
            let length = Int(header & 0x1F)  // id + value
            let format = header >> 5
            guard length >= 1, frame.count - next >= length else {
                stopped = "v1 object at offset \(at) declares \(length) bytes, \(frame.count - next) left"
                break walk
            }
            let objectID = frame.u8(next)
            let valueAt = next + 1
            let valueCount = length - 1
            next += length
            guard let entry = objects[Int(objectID)] else {
                readings.warn(
                    "unknown BTHome v1 object id 0x\(hex: objectID) skipped")
                continue
            }
            switch format {
            case 0, 1:
                guard (1...4).contains(valueCount) else {
                    readings.warn(
                        "v1 object 0x\(hex: objectID) of \(valueCount) bytes skipped")
                    continue
                }
                append(entry, frame, at: valueAt, count: valueCount, signedOverride: format == 1, to: &readings, &met)
            case 2:
                guard valueCount == 4, entry.kind == .quantity else {
                    readings.warn("v1 float object 0x\(hex: objectID) skipped")
                    continue
                }
                // Any 32 bits are a float, NaN and infinities too; no quantity has such a value,
                // and one stored would poison its hour's rollup (found by fuzz/targets/decode_registry).
                let value = Float(bitPattern: frame.le32(valueAt))
                guard value.isFinite else {
                    readings.warn("v1 float object 0x\(hex: objectID) is not a finite number, skipped")
                    continue
                }
                add(entry, Double(value), to: &readings, &met)
            default:
                continue  // strings and MACs carry no measurement
            }
        }
        if let why = stopped {
            if readings.currentMeasurementCount == 0 { return .malformed(why) }
            readings.warn(.reason(why))
        }
        return .decoded
    }

    // MARK: objects

    /// Adds the measurement of `object`, whose value is the `count` bytes of `bytes` at offset
    /// `start`, to the reading begun last.
    private func append(
        _ object: Object, _ bytes: Span<UInt8>, at start: Int, count: Int, signedOverride: Bool?,
        to readings: inout ReadingList, _ met: inout Met
    ) {
        // Little-endian, at most 8 bytes; the usual widths read whole (a loop of checked byte
        // reads and shifts cost ~20 instructions a byte, callgrind).
        let width = min(count, 8)
        var raw: Int64
        switch width {
        case 1: raw = Int64(bytes.u8(start))
        case 2: raw = Int64(bytes.le16(start))
        case 3: raw = Int64(bytes.le24(start))
        case 4: raw = Int64(bytes.le32(start))
        default:
            raw = 0
            for i in 0..<width { raw |= Int64(bytes.u8(start + i)) << (8 * Int64(i)) }
        }
        let signed = signedOverride ?? object.signed
        if signed, count < 8, width > 0, bytes.u8(start + width - 1) & 0x80 != 0 {
            raw -= Int64(1) << (8 * Int64(count))  // sign-extend
        }
        switch object.kind {
        case .ignore:
            return
        case .quantity:
            add(object, Double(raw) * object.multiplier / object.divisor, to: &readings, &met)
        case .dimmer:
            // event (1 left, 2 right) then steps
            guard count == 2 else { return }
            let steps = Double(bytes.u8(start + 1))
            let event = bytes.u8(start)
            let v: Double = event == 1 ? -steps : event == 2 ? steps : 0
            add(object, v, to: &readings, &met)
        }
    }

    /// Adds `object`'s quantity with value `v` to the reading begun last, numbered when the frame
    /// had that quantity before (`Met`).
    @inline(__always) private func add(
        _ object: Object, _ v: Double, to readings: inout ReadingList, _ met: inout Met
    ) {
        let n = met.meet(object.slot)
        // By code where it has one: the table's `Quantity` read out whole was a copy of its key.
        if n == 1 {
            let code = slots[object.slot].quantity.code
            if code != 0 { return readings.add(code: code, v) }
        }
        addKeyed(object, n, v, to: &readings)
    }

    /// The same, for a quantity without a code or a repeat in the frame (rare): out of line, so
    /// that `add` is small enough to be inlined (as a call it cost ~4 instructions an
    /// advertisement more, callgrind).
    @inline(never) private func addKeyed(_ object: Object, _ n: Int, _ v: Double, to readings: inout ReadingList) {
        readings.add(n == 1 ? slots[object.slot].quantity : slots[object.slot].numbered(n), v)
    }

    /// The quantities one frame has met so far, by slot (`Object.slot`): a bit each for the first
    /// time, and the slot again for every repeat, so that the `n`-th instance is counted without
    /// comparing keys. Searching the reading's measurements for the quantity, key by key, and
    /// making the numbered key at every repeat (`Quantity.instance`, ~1,260 instructions) cost
    /// BTHome ~220 instructions a frame (callgrind).
    struct Met {
        private var once: (UInt64, UInt64) = (0, 0)
        /// Slots met a second time or more, one entry per repeat; `nil` in the usual frame, where
        /// an empty array was released at the end of every frame (callgrind).
        private var again: [Int]? = nil

        /// Records one more instance of `slot` and returns its number, 1 for the first.
        @inline(__always) mutating func meet(_ slot: Int) -> Int {
            let bit = UInt64(1) << UInt64(slot & 63)
            if slot < 64 {
                if once.0 & bit == 0 {
                    once.0 |= bit
                    return 1
                }
            } else if once.1 & bit == 0 {
                once.1 |= bit
                return 1
            }
            return meetAgain(slot)
        }

        /// A slot met before in this frame (rare): out of line, as `meet` is inlined.
        @inline(never) private mutating func meetAgain(_ slot: Int) -> Int {
            if again == nil { again = [] }
            again!.append(slot)  // in place: the optional is unwrapped for the mutation
            return 1 + again!.count(where: { $0 == slot })
        }
    }

    enum Kind: Sendable {
        /// A measurement of the object's quantity.
        case quantity
        /// A dimmer event: steps turned, as `dimmerSteps`.
        case dimmer
        /// Parsed for its length only (packet id, device information, text, raw).
        case ignore
    }

    /// An object id's layout. Plain values only, its quantity kept apart by slot (`Slot`): a
    /// lookup copies it and touches no reference count, where an entry holding its quantity cost a
    /// retain and a release per object (a class), or copied and destroyed its strings (a struct,
    /// ~250 instructions, callgrind).
    struct Object: Sendable {
        /// Value size in bytes; 0 = a length byte gives it.
        let size: Int
        let signed: Bool
        let multiplier: Double
        let divisor: Double
        let kind: Kind
        /// Its quantity's index in `table.slots`: the same for every object of the same quantity
        /// (0..<128), so that a frame counts repeats by number (`Met`). Meaningless for `.ignore`.
        let slot: Int
    }

    /// One distinct quantity of the table.
    struct Slot: Sendable {
        /// What it measures (`dimmerSteps` for the dimmer).
        let quantity: Quantity
        /// The unit part of the quantity's key, for numbered instances.
        let unit: String
        /// The keys of the 2nd to 4th instance in a frame, made once with the table: BTHome
        /// buttons and multi-channel sensors repeat a quantity in every frame.
        let repeats: [Quantity]

        init(_ quantity: Quantity, unit: String) {
            self.quantity = quantity
            self.unit = unit
            repeats = (2...4).map { quantity.instance($0, unitSuffix: unit) }
        }

        /// The quantity of the `n`-th instance (n ≥ 2) in a frame.
        func numbered(_ n: Int) -> Quantity {
            n - 2 < repeats.count ? repeats[n - 2] : quantity.instance(n, unitSuffix: unit)
        }
    }

    /// The v2 object table, indexed by object id (bthome.io/format), and its quantities by slot.
    /// Factors are written as divisors so that 2506 / 100 gives the double nearest 25.06, not
    /// 25.060000000000002.
    static let table: (objects: [Object?], slots: [Slot]) = {
        var t = [Object?](repeating: nil, count: 256)
        // Each distinct quantity gets the next slot, in table order.
        var slots: [Slot] = []
        func slot(_ quantity: Quantity, _ unit: String) -> Int {
            if let k = slots.firstIndex(where: { $0.quantity == quantity }) {
                precondition(slots[k].unit == unit, "BTHome: \(quantity) with two units")
                return k
            }
            slots.append(Slot(quantity, unit: unit))
            precondition(slots.count <= 128, "BTHome.Met counts at most 128 quantities")
            return slots.count - 1
        }
        func make(
            _ size: Int, _ quantity: Quantity, _ unit: String, _ kind: Kind, signed: Bool, divide: Double,
            multiply: Double
        ) -> Object {
            Object(
                size: size, signed: signed, multiplier: multiply, divisor: divide, kind: kind,
                slot: kind == .ignore ? 0 : slot(quantity, unit))
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
        t[0x00] = ignore(1)  // packet id
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
        t[0x3A] = q(1, .buttonEvent, "")
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
        return (t, slots)
    }()
}
