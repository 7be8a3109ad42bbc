/// Xiaomi MiBeacon — the stock firmware of Xiaomi/Mijia and partner sensors: LYWSDCGQ, LYWSD02,
/// LYWSD03MMC, CGG1, CGD1, MHO-C401, MiFlora HHCCJCY01, GCLS002, JQJCY01YM, MMC-W505, XMWSDJ04MMC, …
/// Models: LYWSDCGQ, LYWSD02, LYWSD03MMC, CGG1, CGD1, CGDK2, MHO-C401, MHO-C303, CGC1, XMWSDJ04MMC, MiFlora HHCCJCY01, HHCCPOT002, GCLS002, JQJCY01YM, MMC-W505, JTYJGD03MI
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
/// | 0x1001 | 3      | button: index, value, press type — an event, below            |
/// Other ids (locks, kettles) and known ids with another length are skipped: each object
/// carries its length.
///
/// Button object 0x1001 (remotes YLYK01YL, YLAI003, dimmer YLKG07YL, …) → `DeviceEvent`:
/// | press type | event                                                                 |
/// |------------|-----------------------------------------------------------------------|
/// | 0, 5       | `button` `press`                                                      |
/// | 1          | `button` `double_press`                                               |
/// | 2, 6       | `button` `long_press`                                                 |
/// | 3          | dimmer pushed: index 0 `press`, index 1 `long_press` (value: count / s) |
/// | 4          | dimmer turned: index 0 → value ≤ 127 `rotate_right:value`, else        |
/// |            | `rotate_left:(256 − value)`; index ≠ 0 (turned while pushed) likewise   |
/// |            | with the index as the signed steps                                    |
/// Buttons after the first (index k > 0) get `:k+1` (`press:3`), as BTHome's do. The frame counter
/// (offset 4) goes with the event as its packet id, so that the deduper drops the burst's
/// repeats. Linptech K9B switches use types 1 and 2 the other way round (xiaomi-ble); their
/// product ids are not in `models`, and their events keep the generic meaning. Fewer than 3 trailing bytes (not an object header) are ignored, as the peers do.
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
/// Bluetooth-Devices/xiaomi-ble (product ids; `obj1001` for the button's press types); the peers'
/// tests in ../shared/vectors.
public struct XiaomiMiBeaconDecoder: SensorDecoder {
    public let id = "xiaomi_mibeacon"
    public let selectors: [Selector] = [.serviceData(uuid16: 0xFE95)]
    private let keys: DeviceKeys

    /// - Parameter keys: 16-byte bindkeys for encrypted (v4/v5) devices, by address.
    public init(keys: DeviceKeys = DeviceKeys()) { self.keys = keys }

    /// The model of a product id.
    static func model(product: UInt16) -> String? {
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

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let frame = ad.serviceData(uuid16: 0xFE95) else { return .notMine }
        guard frame.count >= 5, let control = frame.le16(0), let product = frame.le16(2) else {
            return .malformed("MiBeacon frame of \(frame.count) bytes, expected ≥ 5")
        }
        let version = Int(control >> 12)
        var at = 5
        var mac: BDAddress? = nil
        if control & 0x10 != 0 {
            guard let m = frame.macLE(at) else {
                return .malformed("MiBeacon frame of \(frame.count) bytes, too short for its MAC")
            }
            mac = m
            at += 6
        }
        if control & 0x20 != 0 {
            guard let capability = frame.u8(at) else {
                return .malformed("MiBeacon frame of \(frame.count) bytes, too short for its capability byte")
            }
            at += 1
            if capability & 0x20 != 0 {
                guard frame.count >= at + 1 else {
                    return .malformed("MiBeacon frame of \(frame.count) bytes, too short for its I/O capability")
                }
                at += 1
            }
        }
        /// The reading of a frame of `kind`, with a warning if the payload MAC is not the advertiser's.
        func reading(_ kind: String) -> Reading {
            var r = ad.reading(
                decoder: id, model: Self.model(product: product) ?? "MiBeacon 0x" + Hex.number(product, digits: 4),
                frameKind: kind)
            if let mac { r.checkPayloadAddress(mac) }
            return r
        }
        // Pairing and announcement frames carry no object: they still say which device is there.
        guard control & 0x40 != 0 else { return .reading(reading("v\(version)")) }
        let objects = frame.dropFirst(at)

        let counter = frame.u8(4).map(Int.init)
        guard control & 0x08 != 0 else {
            return walk(objects, into: reading("v\(version)"), counter: counter, encrypted: false)
        }
        guard version >= 4 else { return .reading(reading("v\(version)-encrypted-legacy")) }
        guard let key = keys[ad.address] ?? mac.flatMap({ keys[$0] }) else {
            return .reading(reading("v\(version)-encrypted-no-key"))
        }
        // ciphertext (≥ one 3-byte object header + 1) + extended counter (3) + MIC (4)
        guard objects.count >= 4 + 7 else {
            return .malformed("encrypted MiBeacon payload of \(objects.count) bytes, too short")
        }
        let bytes = objects.bytes
        // Nonce: the MAC (HCI order), product id and frame counter, and the extended counter.
        let nonce = (mac ?? ad.address).littleEndianBytes + frame.bytes.dropFirst(2).prefix(3) + bytes.dropLast(4).suffix(3)
        do throws(AESCCM.Failure) {
            let plain = try AESCCM.decrypt(
                key: key, nonce: nonce, ciphertext: bytes.dropLast(7), tag: bytes.suffix(4), associatedData: [0x11])
            return walk(Frame(plain), into: reading("v\(version)-encrypted"), counter: counter, encrypted: true)
        } catch .authenticationFailed {
            return .malformed(
                "MiBeacon MIC check failed with the bindkey configured for \(ad.address): wrong key or corrupt frame")
        } catch {
            return .malformed("MiBeacon decryption: \(error)")
        }
    }

    /// The objects of a frame, in the clear, added to `r`; its events carry the frame `counter`.
    private func walk(_ objects: Frame, into r: Reading, counter: Int?, encrypted: Bool) -> DecodeOutcome {
        var r = r
        func fire(_ kind: DeviceEvent.Kind, _ value: String) {
            r.fire(DeviceEvent(kind, value, packetID: counter, encrypted: encrypted))
        }
        // The first humidity or battery out of range, in frame order.
        var outOfRange: String? = nil
        func addHumidity(_ value: Double) {
            if outOfRange == nil, !(0...100).contains(value) { outOfRange = "humidity \(value) % out of range" }
            r.add(.humidityPercent, value)
        }
        func addBattery(_ value: Double) {
            if outOfRange == nil, value > 100 { outOfRange = "battery \(value) % out of range" }
            r.add(.batteryPercent, value)
        }
        var next = 0
        // Fewer than 3 bytes left cannot be an object header (the peers ignore them too).
        while let objectID = objects.le16(next), let size = objects.u8(next + 2) {
            let length = Int(size)
            guard let v = objects.bytes((next + 3)..<(next + 3 + length)) else {
                let why = "object 0x\(Hex.number(objectID, digits: 1)) of \(length) bytes runs past the frame"
                if r.measurements.isEmpty { return .malformed(why) }
                r.warn(.text(why))
                break
            }
            next += 3 + length
            switch (objectID, length) {
            case (0x1004, 2): if let t = v.le16s(0) { r.add(.temperatureC, Double(t) / 10) }
            case (0x1006, 2): if let h = v.le16(0) { addHumidity(Double(h) / 10) }
            case (0x1007, 3): if let lux = v.le24(0) { r.add(.illuminanceLux, Double(lux)) }
            case (0x1008, 1): if let m = v.u8(0) { r.add(.moisturePercent, Double(m)) }
            case (0x1009, 2): if let c = v.le16(0) { r.add(.conductivityUsCm, Double(c)) }
            case (0x100A, 1), (0x4803, 1): if let b = v.u8(0) { addBattery(Double(b)) }
            case (0x100D, 4):
                guard let t = v.le16s(0), let h = v.le16(2) else { continue }
                r.add(.temperatureC, Double(t) / 10)
                addHumidity(Double(h) / 10)
            case (0x1010, 2): if let f = v.le16(0) { r.add(.formaldehydeMgM3, Double(f) / 100) }
            case (0x1014, 1): r.add(.moistureDetected, v.u8(0) == 0 ? 0 : 1)
            case (0x1015, 1): r.add(.smoke, v.u8(0) == 0 ? 0 : 1)
            case (0x1018, 1): r.add(.light, v.u8(0) == 0 ? 0 : 1)
            case (0x000A, 2): if let t = v.le16(0) { r.add(.temperatureC, Double(t) / 100) }
            case (0x4C01, 4), (0x4C08, 4):
                // Any 32 bits are a float, NaN and infinities too: no temperature or humidity, and
                // one stored would poison its hour's rollup (found by fuzz/targets/decode_registry).
                guard let value = v.float32LE(0) else { continue }
                guard value.isFinite else {
                    r.warn("object 0x\(Hex.number(objectID, digits: 1)) is not a finite number, skipped")
                    continue
                }
                if objectID == 0x4C01 { r.add(.temperatureC, Double(value)) } else { addHumidity(Double(value)) }
            case (0x4C02, 1): if let h = v.u8(0) { addHumidity(Double(h)) }
            case (0x1001, 3):
                guard let index = v.u8(0), let value = v.u8(1), let type = v.u8(2) else { continue }
                if let (kind, name) = Self.buttonEvent(index: index, value: value, type: type) { fire(kind, name) }
            default: continue  // other objects: length known, skipped
            }
        }
        if let why = outOfRange { return .malformed(why) }
        return .reading(r)  // not `consume r`: the nested `fire` captures it, and Swift 6.3 refuses the consume
    }

    /// The event of a button object 0x1001 (table in the header); `nil` for a press type we do
    /// not know.
    static func buttonEvent(index: UInt8, value: UInt8, type: UInt8) -> (DeviceEvent.Kind, String)? {
        func rotation(_ steps: UInt8) -> String {
            steps <= 127 ? "rotate_right:\(steps)" : "rotate_left:\(256 - Int(steps))"
        }
        func button(_ name: String) -> (DeviceEvent.Kind, String) {
            (.button, index == 0 ? name : "\(name):\(Int(index) + 1)")
        }
        switch type {
        case 0, 5: return button("press")
        case 1: return button("double_press")
        case 2, 6: return button("long_press")
        case 3: return index == 0 ? (.button, "press") : index == 1 ? (.button, "long_press") : nil
        case 4: return (.dimmer, rotation(index == 0 ? value : index))
        default: return nil
        }
    }
}
