/// Govee thermo-hygrometers and air monitors that use a fixed company id: H5072, H5075, H5074,
/// H5051, H5052, H5071, H5100–H5105, H5110, H5174, H5177, H5179, H5108, H5106 (PM2.5), H5140 (CO₂),
/// H5112 (probe), H5178 (with its remote sensor). Meat thermometers, whose company id changes, are
/// `GoveeMeatDecoder`.
/// Models: H5072, H5075, H5074, H5051, H5052, H5071, H5100–H5105, H5108, H5110, H5174, H5177, H5179, H5178 (+ remote), H5106, H5140, H5112
///
/// Where: manufacturer-specific data; the "company id" is a Govee frame tag, not a real company
/// (0xEC88, 0x0001, 0x8801). The model comes from the local name (`GVH5075_1234`,
/// `Govee_H5074_1234`, `GV5140303A`, `B5178C545`) where there is one, else from the frame shape.
/// H5106 (6 bytes), H5140 and H5112 (8 bytes) share a length with thermo-hygrometers and are told
/// apart only by that name: a nameless frame is read with the thermo-hygrometer layout (passive
/// scans see the name only when the device puts it in the advertisement, as these do).
/// "packed" is the 24-bit big-endian number ±(T·1000 + H), T and H in tenths, bit 23 the sign of T
/// (see `GoveeFrame.packed`). Offsets are after the company id.
///
/// | company | length | layout                                                                   | models        |
/// |---------|--------|--------------------------------------------------------------------------|---------------|
/// | 0xEC88  | 6      | 00, packed(3), battery %, 00                                             | H5072, H5075  |
/// | 0xEC88  | 7      | 00, T s16 LE /100, H u16 LE /100, battery %, 02                          | H5074         |
/// | 0xEC88  | 9      | 00, T s16 LE /100, H u16 LE /100, battery %, 3 more                      | H5051, H5071  |
/// | 0x0001  | 6      | 01 01, packed(3), battery % (bit 7: sensor error)                        | H510x, H5174… |
/// | 0x0001  | 6      | 01 01, ±(T·10⁶ + H·10³ + PM2.5) u32 BE, bit 31 the sign of T             | H5106         |
/// | 0x0001  | 8      | 01 01, packed(3), battery % (bit 7: error), 2 more                       | H5108, others |
/// | 0x0001  | 8      | 01 01, packed(3), CO₂ ppm u16 BE, 00                                     | H5140         |
/// | 0x0001  | 8      | 01 01, packed(3) (temperature only), battery % (bit 7: error), 00, probe | H5112         |
/// | 0x0001  | 9      | 01 01, sensor (0 main, 1 remote), packed(3), battery % (bit 7: error), 2 | H5178         |
/// | 0x8801  | 9      | EC 00 01 01, T s16 LE /100, H u16 LE /100, battery %                     | H5179         |
///
/// Integrity check: none. Sanity: an all-0xFF frame, battery > 100, humidity > 100 or a hundredths
/// temperature beyond ±100 °C (the bound of the packed format) is `malformed`; an impossible packed
/// temperature (beyond ±100 °C) or the sensor-error bit drops the temperature and humidity with a
/// warning and keeps the battery, as the peers do.
///
/// Sample: `09 ff 88 ec 00 81 c2 89 64 00` (name GVH5075_CB9B) → H5075, temperature −11.5 °C,
/// humidity 33.7 %, battery 100 %.
///
/// Source: layouts as documented by Bluetooth-Devices govee-ble and custom-components/ble_monitor
/// (`govee.py`), GoveeWatcher issue 2 (the sign bit); H5106, H5140, H5108 and H5112 offsets were
/// read off govee-ble's test advertisements. We truncate the packed temperature to its tenths
/// (the format's arithmetic); theengs instead reports `magnitude / 10000` below 0 °C.
public struct GoveeDecoder: SensorDecoder {
    public let id = "govee"
    /// The frame tags, where a company id would be.
    static let tags: Set<UInt16> = [0xEC88, 0x0001, 0x8801]
    public let selectors: [Selector] = GoveeDecoder.tags.sorted().map { .manufacturer(company: $0) }
    /// The frame kind of each frame decoded below, by tag and size: the tag in hex, then the size.
    static func frameKind(_ tag: UInt16, _ size: Int) -> String? {
        switch (tag, size) {
        case (0xEC88, 6): "ec88-6"
        case (0xEC88, 7): "ec88-7"
        case (0xEC88, 9): "ec88-9"
        case (0x0001, 6): "0001-6"
        case (0x0001, 8): "0001-8"
        case (0x0001, 9): "0001-9"
        case (0x8801, 9): "8801-9"
        default: nil
        }
    }

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        // The first tagged frame that is ours decides.
        for m in ad.manufacturerData where Self.tags.contains(m.companyID) {
            let outcome = decodeFrame(m.companyID, GoveeFrame.unglued(m.payload), ad)
            if outcome != .notMine { return outcome }
        }
        return .notMine
    }

    /// Decodes one tagged frame (after the tag).
    private func decodeFrame(_ company: UInt16, _ data: Frame, _ ad: Advertisement) -> DecodeOutcome {
        let number = GoveeFrame.modelNumber(ad)
        /// A reading of `model`, or of the model the name or UUIDs give (`fromName`).
        func reading(_ model: String, fromName: Bool = false) -> Reading {
            ad.reading(
                decoder: id, model: fromName ? number.map(GoveeFrame.model(number:)) ?? model : model,
                frameKind: Self.frameKind(company, data.count))
        }
        /// Temperature and humidity from a packed number, or a warning when it is impossible.
        func addPacked(_ raw: UInt32?, to r: inout Reading) {
            guard let raw else { return }
            if let v = GoveeFrame.packed(raw) {
                r.add(.temperatureC, v.temperature)
                r.add(.humidityPercent, v.humidity)
            } else {
                r.warn("packed value 0x\(Hex.number(raw, digits: 1)) is impossible; temperature and humidity omitted")
            }
        }
        /// The battery byte whose bit 7 flags a sensor error (0x0001 frames); false on error.
        func addFlaggedBattery(_ byte: UInt8, to r: inout Reading) -> Bool {
            r.add(.batteryPercent, Double(byte & 0x7F))
            if byte & 0x80 != 0 { r.warn("device reports a sensor error; measurements omitted") }
            return byte & 0x80 == 0
        }
        /// The two little-endian hundredths fields of H5074/H5051/H5071/H5179; the reason if bad.
        func addHundredths(at offset: Int, to r: inout Reading) -> String? {
            guard let t = data.le16s(offset), let h = data.le16(offset + 2) else { return "frame too short" }
            let humidity = Double(h) / 100
            guard humidity <= 100 else { return "humidity \(humidity) % out of range" }
            let celsius = Double(t) / 100
            guard abs(celsius) <= 100 else { return "temperature \(celsius) °C out of range" }
            r.add(.temperatureC, celsius)
            r.add(.humidityPercent, humidity)
            return nil
        }

        var r: Reading
        switch (company, data.count) {
        case (0xEC88, 6), (0xEC88, 7), (0xEC88, 9):
            guard data.u8(0) == 0x00 else { return .notMine }
            guard !data.isAllFF(from: 1) else { return .malformed("all-0xFF frame") }
            if data.count == 6 {
                r = reading("H5072/H5075", fromName: true)
                addPacked(data.be24(1), to: &r)
                if let battery = data.u8(4) { r.add(.batteryPercent, Double(battery)) }
            } else {
                r = reading(data.count == 7 ? "H5074" : "H5051/H5071", fromName: true)
                if let why = addHundredths(at: 1, to: &r) { return .malformed(why) }
                if let battery = data.u8(5) { r.add(.batteryPercent, Double(battery)) }
            }
        case (0x0001, 6), (0x0001, 8), (0x0001, 9):
            guard data.u8(0) == 0x01, data.u8(1) == 0x01 else { return .notMine }
            guard !data.isAllFF(from: 2) else { return .malformed("all-0xFF frame") }
            if data.count == 9 {
                // H5178: one frame per sensor; the remote is a second device behind one address.
                guard let sensor = data.u8(2), let battery = data.u8(6) else { return .notMine }
                guard sensor <= 1 else { return .malformed("H5178 sensor id \(sensor) unknown") }
                r = reading(sensor == 0 ? "H5178" : "H5178-REMOTE")
                if addFlaggedBattery(battery, to: &r) { addPacked(data.be24(3), to: &r) }
            } else if data.count == 6, number == 5106 {
                guard let raw = data.be32(2) else { return .notMine }
                let magnitude = raw & 0x7FFF_FFFF
                let tenths = magnitude / 1_000_000
                let humidityTenths = (magnitude % 1_000_000) / 1000
                guard tenths <= 1000, humidityTenths <= 1000 else {
                    return .malformed("H5106 value 0x\(data.dropFirst(2)) is impossible")
                }
                r = reading("H5106")
                r.add(.temperatureC, (raw & 0x8000_0000 != 0 ? -1 : 1) * Double(tenths) / 10)
                r.add(.humidityPercent, Double(humidityTenths) / 10)
                r.add(.pm25UgM3, Double(magnitude % 1000))
            } else if data.count == 8, number == 5140 {
                r = reading("H5140")
                addPacked(data.be24(2), to: &r)
                if let co2 = data.be16(5) { r.add(.co2PPM, Double(co2)) }
            } else if data.count == 8, number == 5112 {
                guard let probeByte = data.u8(7), let battery = data.u8(5) else { return .notMine }
                let probe = Int(probeByte & 0x7F)
                guard (1...2).contains(probe) else { return .malformed("H5112 probe \(probe) unknown") }
                r = reading("H5112")
                if addFlaggedBattery(battery, to: &r), let raw = data.be24(2), let v = GoveeFrame.packed(raw) {
                    r.add(.temperatureProbeC(probe), v.temperature)
                }
            } else {
                guard let battery = data.u8(5) else { return .notMine }
                r = reading(data.count == 6 ? "H5101/H5102/H5104/H5105/H5174/H5177" : "H5108", fromName: true)
                if addFlaggedBattery(battery, to: &r) { addPacked(data.be24(2), to: &r) }
            }
        case (0x8801, 9):
            guard data.u8(0) == 0xEC, data.u8(1) == 0x00, data.u8(2) == 0x01, data.u8(3) == 0x01 else {
                return .notMine
            }
            guard !data.isAllFF(from: 4) else { return .malformed("all-0xFF frame") }
            r = reading("H5179", fromName: true)
            if let why = addHundredths(at: 4, to: &r) { return .malformed(why) }
            if let battery = data.u8(8) { r.add(.batteryPercent, Double(battery)) }
        default:
            return .notMine  // a length we do not know for this tag: not guessed
        }
        if let battery = r.value(.batteryPercent), battery > 100 {
            return .malformed("battery \(battery) % out of range")
        }
        return .reading(consume r)
    }
}
