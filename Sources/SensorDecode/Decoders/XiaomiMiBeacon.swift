/// Xiaomi MiBeacon — the stock firmware of Xiaomi/Mijia and partner sensors: LYWSDCGQ, LYWSD02,
/// LYWSD03MMC, CGG1, CGD1, MHO-C401, MiFlora HHCCJCY01, GCLS002, JQJCY01YM, MMC-W505, XMWSDJ04MMC, …
///
/// Where: service data, 16-bit UUID 0xFE95. Little-endian.
/// | offset | size | field                                                              |
/// |--------|------|--------------------------------------------------------------------|
/// | 0      | 2    | frame control (bits below)                                         |
/// | 2      | 2    | product id (table `models`)                                        |
/// | 4      | 1    | frame counter                                                      |
/// | 5      | 6    | MAC, reversed — if frame control bit 4                             |
/// | …      | 1    | capability — if bit 5; when capability bit 5, 1 more I/O byte      |
/// | …      | …    | objects — if bit 6: id(2), length(1), value(length), repeated      |
/// | end−7  | 3    | extended counter — if encrypted (bit 3) and version ≥ 4            |
/// | end−4  | 4    | MIC — likewise                                                     |
/// Frame control: bit 3 encrypted, 4 MAC, 5 capability, 6 object, 12–15 version.
///
/// | object | length | value                                                         |
/// |--------|--------|---------------------------------------------------------------|
/// | 0x1004 | 2      | temperature s16 / 10 °C                                       |
/// | 0x1006 | 2      | humidity u16 / 10 %                                           |
/// | 0x1007 | 3      | illuminance u24 lux                                           |
/// | 0x1008 | 1      | moisture %                                                    |
/// | 0x1009 | 2      | conductivity µS/cm                                            |
/// | 0x100A | 1      | battery %                                                     |
/// | 0x100D | 4      | temperature s16 / 10 °C, humidity u16 / 10 %                  |
/// | 0x1010 | 2      | formaldehyde u16 / 100 mg/m³                                  |
/// | 0x1014, 0x1015, 0x1018 | 1 | moisture detected, smoke, light: 0/1                  |
/// | 0x000A | 2      | temperature u16 / 100 °C (MMC-W505 body thermometer)          |
/// | 0x4C01, 0x4C08 | 4 | temperature, humidity as float32 (MIoT spec objects)         |
/// | 0x4C02, 0x4803 | 1 | humidity %, battery %                                        |
/// Other ids (buttons, locks, kettles) and known ids with another length are skipped: each object
/// carries its length. Fewer than 3 trailing bytes (not an object header) are ignored, as the peers do.
///
/// Encryption (v4/v5): AES-128-CCM with the device's 16-byte bindkey; nonce = MAC reversed (6) +
/// product id (2, as on air) + frame counter (1) + extended counter (3); associated data `0x11`;
/// 4-byte MIC. Without a key, a reading with no measurements names the device (frame kind
/// `encrypted-no-key`); a failed MIC with a configured key is `malformed`. The older v2/v3
/// encryption (12-byte keys) is not decoded: such frames name the device only.
///
/// Integrity check: the MIC when encrypted; none otherwise. Sanity: humidity ≤ 100 %, battery
/// ≤ 100 %. The payload MAC is compared with the advertiser address (warning on mismatch).
///
/// Sample: `50 20 aa 01 da 21 93 35 34 2d 58 0d 10 04 fe 00 48 02` from 58:2D:34:35:93:21 → LYWSDCGQ,
/// 25.4 °C, 58.4 %.
///
/// Source: custom-components/ble_monitor docs and `xiaomi.py` (frame control, objects, nonce),
/// Bluetooth-Devices/xiaomi-ble (product ids); the peers' tests in ../shared/vectors.
public struct XiaomiMiBeaconDecoder: SensorDecoder {
    public var id: StaticString { "xiaomi_mibeacon" }
    public let selectors: [DecoderSelector] = [.serviceData16(0xFE95)]
    private let keys: DeviceKeys

    /// - Parameter keys: 16-byte bindkeys for encrypted (v4/v5) devices, by address.
    public init(keys: DeviceKeys = DeviceKeys()) { self.keys = keys }

    /// The model of a product id. A switch: a dictionary lookup hashed the id per frame (callgrind).
    static func model(product: UInt16) -> StaticString? {
        switch product {
        case 0x0098: "HHCCJCY01"
        case 0x015D: "HHCCPOT002"
        case 0x01AA: "LYWSDCGQ"
        case 0x02DF: "JQJCY01YM"
        case 0x0347, 0x0B48: "CGG1"
        case 0x0387: "MHO-C401"
        case 0x0391: "MMC-W505"
        case 0x03BC: "GCLS002"
        case 0x045B: "LYWSD02"
        case 0x055B: "LYWSD03MMC"
        case 0x0576: "CGD1"
        case 0x066F: "CGDK2"
        case 0x06D3: "MHO-C303"
        case 0x0997: "JTYJGD03MI"
        case 0x0C3C: "CGC1"
        case 0x1203: "XMWSDJ04MMC"
        default: nil
        }
    }

    /// "v0" to "v15" as literals: a table made once was a `swift_once` check and a retain per
    /// frame (MiBeacon 1,054 -> 1,034 instructions a call, callgrind).
    static func versionName(_ version: Int) -> StaticString {
        switch version {
        case 0: "v0"
        case 1: "v1"
        case 2: "v2"
        case 3: "v3"
        case 4: "v4"
        case 5: "v5"
        case 6: "v6"
        case 7: "v7"
        case 8: "v8"
        case 9: "v9"
        case 10: "v10"
        case 11: "v11"
        case 12: "v12"
        case 13: "v13"
        case 14: "v14"
        default: "v15"
        }
    }

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        guard let range = ad.serviceDataRange(uuid16: 0xFE95) else { return .notMine }
        let frame = ad.bytes.extracting(range)
        guard frame.count >= 5 else { return .malformed("MiBeacon frame of \(frame.count) bytes, expected ≥ 5") }
        let control = frame.le16(0)
        let version = Int(control >> 12)
        let product = frame.le16(2)
        let model = Self.model(product: product)
        // The optional fields and the objects are read by offset into the frame: a reader and a
        // slice per field cost a retain and a release each (callgrind).
        var at = 5
        var mac: BDAddress? = nil
        if control & 0x10 != 0 {
            guard frame.count >= at + 6 else {
                return .malformed("MiBeacon frame of \(frame.count) bytes, too short for its MAC")
            }
            mac = frame.macLE(at)
            at += 6
        }
        if control & 0x20 != 0 {
            guard frame.count >= at + 1 else {
                return .malformed("MiBeacon frame of \(frame.count) bytes, too short for its capability byte")
            }
            let capability = frame.u8(at)
            at += 1
            if capability & 0x20 != 0 {
                guard frame.count >= at + 1 else {
                    return .malformed("MiBeacon frame of \(frame.count) bytes, too short for its I/O capability")
                }
                at += 1
            }
        }
        /// Begins the reading of a frame of `kind`, warning of a payload MAC other than the advertiser's.
        /// A kind not known as a literal (`kind` nil) is given as `text`; so is a product id
        /// without a model name.
        func begin(_ kind: StaticString?, text: @autoclosure () -> String = "") {
            readings.begin(ad, decoderID: id, model: model ?? "MiBeacon", frameKind: kind)
            if model == nil {
                readings.setModel("MiBeacon 0x" + Hex.encode([UInt8(product >> 8), UInt8(product & 0xFF)]))
            }
            if kind == nil { readings.setFrameKind(text()) }
            if let mac { readings.checkPayloadAddress(mac) }
        }
        // Pairing and announcement frames carry no object: they still say which device is there.
        // The version is 4 bits; its name is a literal, as building "v\(version)" per frame showed
        // in the profile.
        var kind: StaticString? = Self.versionName(version)
        guard control & 0x40 != 0 else {
            begin(kind)
            return .decoded
        }
        // Where the objects lie, counted from the bytes' start (`at <= frame.count`, by the
        // guards above): bounds, where `dropFirst` was a call per frame (callgrind).
        let objects = (range.lowerBound + at)..<range.upperBound

        if control & 0x08 != 0 {
            guard version >= 4 else {
                begin(nil, text: "v\(version)-encrypted-legacy")
                return .decoded
            }
            guard let key = keys[ad.header.address] ?? mac.flatMap({ keys[$0] }) else {
                begin(nil, text: "v\(version)-encrypted-no-key")
                return .decoded
            }
            // ciphertext (≥ one 3-byte object header + 1) + extended counter (3) + MIC (4)
            guard objects.count >= 4 + 7 else {
                return .malformed("encrypted MiBeacon payload of \(objects.count) bytes, too short")
            }
            let bytes = ad.bytes.array[...]  // `ad` is a view: the cipher takes slices of bytes of its own
            let nonce =
                (mac ?? ad.header.address).littleEndianBytes + Array(bytes.slice(range.dropFirst(2).prefix(3)))
                + Array(bytes.slice(objects.dropLast(4).suffix(3)))
            do throws(AESCCM.Failure) {
                let plain = try AESCCM.decrypt(
                    key: key, nonce: nonce, ciphertext: bytes.slice(objects.dropLast(7)), tag: bytes.slice(objects.suffix(4)),
                    associatedData: [0x11])
                kind = version == 4 ? "v4-encrypted" : version == 5 ? "v5-encrypted" : nil
                begin(kind, text: "v\(version)-encrypted")
                return walk(plain.span, into: &readings)
            } catch .authenticationFailed {
                return .malformed(
                    "MiBeacon MIC check failed with the bindkey configured for \(ad.header.address): wrong key or corrupt frame")
            } catch {
                return .malformed("MiBeacon decryption: \(error)")
            }
        }
        begin(kind)
        return walk(ad.bytes.extracting(objects), into: &readings)
    }

    /// The objects of a frame, in the clear, added to the reading begun last. The reading is begun
    /// before the walk; a frame found bad here returns `.malformed`, and the registry drops the
    /// reading.
    private func walk(_ objects: Span<UInt8>, into readings: inout ReadingList) -> DecodeVerdict {
        // The first humidity or battery out of range, in frame order, checked as each is read:
        // a pass over the measurements afterwards compared quantities by key (callgrind).
        var outOfRange: MalformedReason? = nil
        func addHumidity(_ value: Double) {
            if outOfRange == nil, !(0...100).contains(value) { outOfRange = "humidity \(value) % out of range" }
            readings.add(.humidityPercent, value)
        }
        func addBattery(_ value: Double) {
            if outOfRange == nil, value > 100 { outOfRange = "battery \(value) % out of range" }
            readings.add(.batteryPercent, value)
        }
        var next = 0
        // Fewer than 3 bytes left cannot be an object header (the peers ignore them too).
        while objects.count - next >= 3 {
            let objectID = objects.le16(next)
            let length = Int(objects.u8(next + 2))
            let v = next + 3  // where the value starts
            guard v + length <= objects.count else {
                let why: MalformedReason = "object 0x\(hex: objectID, digits: 1) of \(length) bytes runs past the frame"
                if readings.currentMeasurementCount == 0 { return .malformed(why) }
                readings.warn(.reason(why))
                break
            }
            next = v + length
            switch (objectID, length) {
            case (0x1004, 2): readings.add(.temperatureC, Double(objects.le16s(v)) / 10)
            case (0x1006, 2): addHumidity(Double(objects.le16(v)) / 10)
            case (0x1007, 3): readings.add(.illuminanceLux, Double(objects.le24(v)))
            case (0x1008, 1): readings.add(.moisturePercent, Double(objects.u8(v)))
            case (0x1009, 2): readings.add(.conductivityUsCm, Double(objects.le16(v)))
            case (0x100A, 1), (0x4803, 1): addBattery(Double(objects.u8(v)))
            case (0x100D, 4):
                readings.add(.temperatureC, Double(objects.le16s(v)) / 10)
                addHumidity(Double(objects.le16(v + 2)) / 10)
            case (0x1010, 2): readings.add(.formaldehydeMgM3, Double(objects.le16(v)) / 100)
            case (0x1014, 1): readings.add(.moistureDetected, objects.u8(v) == 0 ? 0 : 1)
            case (0x1015, 1): readings.add(.smoke, objects.u8(v) == 0 ? 0 : 1)
            case (0x1018, 1): readings.add(.light, objects.u8(v) == 0 ? 0 : 1)
            case (0x000A, 2): readings.add(.temperatureC, Double(objects.le16(v)) / 100)
            case (0x4C01, 4), (0x4C08, 4):
                // Any 32 bits are a float, NaN and infinities too: no temperature or humidity, and
                // one stored would poison its hour's rollup (found by fuzz/targets/decode_registry).
                let value = Float(bitPattern: objects.le32(v))
                guard value.isFinite else {
                    readings.warn("object 0x\(hex: objectID, digits: 1) is not a finite number, skipped")
                    continue
                }
                if objectID == 0x4C01 { readings.add(.temperatureC, Double(value)) } else { addHumidity(Double(value)) }
            case (0x4C02, 1): addHumidity(Double(objects.u8(v)))
            default: continue  // other objects: length known, skipped
            }
        }
        if let why = outOfRange { return .malformed(why) }
        return .decoded
    }
}
