/// Govee thermo-hygrometers and air monitors that use a fixed company id: H5072, H5075, H5074,
/// H5051, H5052, H5071, H5100–H5105, H5110, H5174, H5177, H5179, H5108, H5106 (PM2.5), H5140 (CO₂),
/// H5112 (probe), H5178 (with its remote sensor). Meat thermometers, whose company id changes, are
/// `GoveeMeatDecoder`.
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
/// Integrity check: none. Sanity: an all-0xFF frame, battery > 100 or humidity > 100 is
/// `malformed`; an impossible packed temperature (beyond ±100 °C) or the sensor-error bit drops the
/// temperature and humidity with a warning and keeps the battery, as the peers do.
///
/// Sample: `09 ff 88 ec 00 81 c2 89 64 00` (name GVH5075_CB9B) → H5075, temperature −11.5 °C,
/// humidity 33.7 %, battery 100 %.
///
/// Source: layouts as documented by Bluetooth-Devices govee-ble and custom-components/ble_monitor
/// (`govee.py`), GoveeWatcher issue 2 (the sign bit); H5106, H5140, H5108 and H5112 offsets were
/// read off govee-ble's test advertisements. We truncate the packed temperature to its tenths
/// (the format's arithmetic); theengs instead reports `magnitude / 10000` below 0 °C.
public struct GoveeDecoder: SensorDecoder {
    public var id: StaticString { "govee" }
    public let selectors: [DecoderSelector] = [.manufacturer(0xEC88), .manufacturer(0x0001), .manufacturer(0x8801)]

    public init() {}

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        // An index loop on the company ids: iterating the fields made each element (callgrind).
        for k in 0..<ad.manufacturerDataCount {
            let company = ad.manufacturerCompany(at: k)
            guard company == 0xEC88 || company == 0x0001 || company == 0x8801 else { continue }
            let bytes = ad.bytes
            let range = GoveeFrame.unglued(ad.manufacturerPayloadRange(at: k), in: bytes)
            let verdict = decodeFrame(company, range, bytes.extracting(range), ad, into: &readings)
            if verdict != .notMine { return verdict }
        }
        return .notMine
    }

    /// Decodes one tagged frame. `.notMine` is returned before any reading is begun, so the loop
    /// above can go on to the next field without leaving a reading behind.
    // Always inlined: called for every Govee frame (as a call, when the frame was a slice, it cost
    // ~70 instructions a frame, callgrind). `range` is where `data` lies in the advertisement's
    // bytes, for a message that quotes them.
    @inline(__always) private func decodeFrame(
        _ company: UInt16, _ range: Range<Int>, _ data: Span<UInt8>, _ ad: ADView,
        into readings: inout ReadingList
    ) -> DecodeVerdict {
        let number = GoveeFrame.modelNumber(ad)
        let named = number.flatMap(GoveeFrame.knownModel)
        // Kept as it is added, for the range check below: finding it among the measurements
        // afterwards compared quantities by key (callgrind).
        var battery: Double? = nil

        // The helpers below are always inlined: left as calls, each took `readings` and `battery`
        // by reference (~2 instructions an advertisement more, callgrind).

        /// Begins the reading, once the frame is known to be ours and its model is known.
        /// `fromName`: the model is `named` where the name gives one; a model number with no
        /// literal is named at run time.
        @inline(__always) func begin(_ model: StaticString, fromName: Bool = false) {
            readings.begin(ad, decoderID: id, model: model, frameKind: Self.frameKind(company, data.count))
            if fromName, let number, named == nil { readings.setModel(GoveeFrame.model(number: number)) }
        }
        /// Adds the battery level.
        @inline(__always) func addBattery(_ percent: Double) {
            battery = percent
            readings.add(.batteryPercent, percent)
        }
        /// Adds temperature and humidity from a packed number, or a warning when it is impossible.
        @inline(__always) func addPacked(_ raw: UInt32) {
            if let v = GoveeFrame.packed(raw) {
                readings.add(.temperatureC, v.temperature)
                readings.add(.humidityPercent, v.humidity)
            } else {
                readings.warn("packed value 0x\(hex: raw, digits: 1) is impossible; temperature and humidity omitted")
            }
        }
        /// Battery byte whose bit 7 flags a sensor error (0x0001 frames). Returns false on error.
        @inline(__always) func addFlaggedBattery(_ byte: UInt8) -> Bool {
            addBattery(Double(byte & 0x7F))
            if byte & 0x80 != 0 {
                readings.warn("device reports a sensor error; measurements omitted")
            }
            return byte & 0x80 == 0
        }
        /// The two little-endian hundredths fields of H5074/H5051/H5071/H5179.
        @inline(__always) func addHundredths(at offset: Int) -> MalformedReason? {
            let humidity = Double(data.le16(offset + 2)) / 100
            guard humidity <= 100 else { return "humidity \(humidity) % out of range" }
            readings.add(.temperatureC, Double(data.le16s(offset)) / 100)
            readings.add(.humidityPercent, humidity)
            return nil
        }

        switch (company, data.count) {
        case (0xEC88, 6), (0xEC88, 7), (0xEC88, 9):
            guard data.u8(0) == 0x00 else { return .notMine }
            guard !data.allFF(from: 1) else { return .malformed("all-0xFF frame") }
            if data.count == 6 {
                begin(named ?? "H5072/H5075", fromName: true)
                addPacked(data.be24(1))
                addBattery(Double(data.u8(4)))
            } else {
                begin(named ?? (data.count == 7 ? "H5074" : "H5051/H5071"), fromName: true)
                if let why = addHundredths(at: 1) { return .malformed(why) }
                addBattery(Double(data.u8(5)))
            }
        case (0x0001, 6), (0x0001, 8), (0x0001, 9):
            guard data.u8(0) == 0x01, data.u8(1) == 0x01 else { return .notMine }
            guard !data.allFF(from: 2) else { return .malformed("all-0xFF frame") }
            if data.count == 9 {
                // H5178: one frame per sensor; the remote is a second device behind one address.
                let sensor = data.u8(2)
                guard sensor <= 1 else { return .malformed("H5178 sensor id \(sensor) unknown") }
                begin(sensor == 0 ? "H5178" : "H5178-REMOTE")
                if addFlaggedBattery(data.u8(6)) { addPacked(data.be24(3)) }
            } else if data.count == 6, number == 5106 {
                let raw = data.be32(2)
                let magnitude = raw & 0x7FFF_FFFF
                let tenths = magnitude / 1_000_000
                let humidityTenths = (magnitude % 1_000_000) / 1000
                guard tenths <= 1000, humidityTenths <= 1000 else {
                    let value = Hex.encode(ad.bytes.extracting(range.dropFirst(2)).array)
                    return .malformed("H5106 value 0x\(value) is impossible")
                }
                begin("H5106")
                readings.add(.temperatureC, (raw & 0x8000_0000 != 0 ? -1 : 1) * Double(tenths) / 10)
                readings.add(.humidityPercent, Double(humidityTenths) / 10)
                readings.add(.pm25UgM3, Double(magnitude % 1000))
            } else if data.count == 8, number == 5140 {
                begin("H5140")
                addPacked(data.be24(2))
                readings.add(.co2PPM, Double(data.be16(5)))
            } else if data.count == 8, number == 5112 {
                let probe = Int(data.u8(7) & 0x7F)
                guard (1...2).contains(probe) else { return .malformed("H5112 probe \(probe) unknown") }
                begin("H5112")
                if addFlaggedBattery(data.u8(5)), let v = GoveeFrame.packed(data.be24(2)) {
                    readings.add(.temperatureProbeC(probe), v.temperature)
                }
            } else {
                begin(named ?? (data.count == 6 ? "H5101/H5102/H5104/H5105/H5174/H5177" : "H5108"), fromName: true)
                if addFlaggedBattery(data.u8(5)) { addPacked(data.be24(2)) }
            }
        case (0x8801, 9):
            guard data.u8(0) == 0xEC, data.u8(1) == 0x00, data.u8(2) == 0x01, data.u8(3) == 0x01 else {
                return .notMine
            }
            guard !data.allFF(from: 4) else { return .malformed("all-0xFF frame") }
            begin(named ?? "H5179", fromName: true)
            if let why = addHundredths(at: 4) { return .malformed(why) }
            addBattery(Double(data.u8(8)))
        default:
            return .notMine  // a length we do not know for this tag: not guessed
        }
        if let battery, battery > 100 {
            return .malformed("battery \(battery) % out of range")
        }
        return .decoded
    }

    /// "ec88-6": the tag in hex, then the frame size in decimal. Literals for the frames decoded
    /// above, as writing it per frame cost a string build (callgrind).
    static func frameKind(_ company: UInt16, _ size: Int) -> StaticString {
        switch (company, size) {
        case (0xEC88, 6): "ec88-6"
        case (0xEC88, 7): "ec88-7"
        case (0xEC88, 9): "ec88-9"
        case (0x0001, 6): "0001-6"
        case (0x0001, 8): "0001-8"
        case (0x0001, 9): "0001-9"
        case (0x8801, 9): "8801-9"
        default: "?"  // not reached: `decodeFrame` decodes only the frames above
        }
    }
}
