/// Teltonika EYE sensors (BTSMP1) and the Teltonika/ELA Innovation Blue Puck and Blue Coin
/// beacons in their manufacturer-data frames.
/// Models: EYE sensor, Blue Puck T, Blue Puck RHT, Blue Coin T
///
/// Where, EYE: manufacturer-specific data, company 0x089A (Teltonika). Numbers big-endian;
/// offsets after the company id. Byte 1 says which fields follow, in this order:
///
/// | flag bit | size | field                                                         |
/// |----------|------|---------------------------------------------------------------|
/// | —        | 1    | byte 0: protocol version, 0x01                                |
/// | —        | 1    | byte 1: the flags                                             |
/// | 0        | 2    | temperature, s16 / 100 °C                                     |
/// | 1        | 1    | humidity %                                                    |
/// | 2 (3)    | 0    | magnet sensor present (bit 3: magnetic field detected)        |
/// | 4        | 2    | bit 15: moving; bits 14–0: movement count                     |
/// | 5        | 3    | pitch s8 (−90…90°), roll s16 (−180…180°)                      |
/// | 6        | 0    | battery low                                                   |
/// | 7        | 1    | battery voltage: 2000 + 10 · value mV                         |
///
/// Where, Blue Puck / Coin: manufacturer-specific data, company 0x0757 (ELA Innovation), a type
/// byte then little-endian values: `12` temperature s16 / 100 °C; `21` humidity % (u8), one
/// reserved byte, temperature s16 / 100 °C. The model follows the name (`P T …` Blue Puck T,
/// `P RHT …` Blue Puck RHT, `C T …` Blue Coin T). Their other frames (battery `F1`/`F2`,
/// service data 0x2A6E/0x2A6F) are not decoded here.
///
/// Integrity check: none. Sanity: an EYE frame too short for its flags, humidity > 100 %, or an
/// EYE version other than 1 is `malformed` / `notMine`.
///
/// Sample: `0e ff 9a 08 01 b7 08 b4 12 0c cb 0b ff c7 67` → EYE sensor, temperature 22.28 °C,
/// humidity 18 %, magnet 0, moving 0, movement count 3275, pitch 11°, roll −57°, 3.03 V.
///
/// Source: custom-components/ble_monitor `teltonika.py` (EYE flag bits and scaling, ELA frame
/// types; its tests are among our vectors).
public struct TeltonikaDecoder: SensorDecoder {
    public let id = "teltonika"
    public let selectors: [Selector] = [.manufacturer(company: 0x089A), .manufacturer(company: 0x0757)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        if let eye = ad.manufacturerData(company: 0x089A) { return decodeEye(eye, ad) }
        guard let d = ad.manufacturerData(company: 0x0757), let type = d.u8(0) else { return .notMine }
        switch type {
        case 0x12:
            guard d.count == 3, let t = d.le16s(1) else { return .notMine }
            var r = ad.reading(decoder: id, model: Self.elaModel(ad, fallback: "Blue Puck T"))
            r.add(.temperatureC, Double(t) / 100)
            return .reading(consume r)
        case 0x21:
            guard d.count == 5, let humidity = d.u8(1), let t = d.le16s(3) else { return .notMine }
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            var r = ad.reading(decoder: id, model: Self.elaModel(ad, fallback: "Blue Puck RHT"))
            r.add(.temperatureC, Double(t) / 100)
            r.add(.humidityPercent, Double(humidity))
            return .reading(consume r)
        default:
            return .notMine
        }
    }

    private func decodeEye(_ d: Frame, _ ad: Advertisement) -> DecodeOutcome {
        guard d.u8(0) == 0x01, let flags = d.u8(1) else { return .notMine }
        var r = ad.reading(decoder: id, model: "EYE sensor")
        var at = 2
        /// Whether flag `bit` is set, the frame holding its `size` bytes at `at`.
        func has(_ bit: Int, _ size: Int) -> Bool? {
            guard flags & (1 << bit) != 0 else { return false }
            return at + size <= d.count ? true : nil
        }
        guard let hasT = has(0, 2) else { return .malformed("EYE frame ends before its temperature") }
        if hasT, let t = d.be16s(at) {
            r.add(.temperatureC, Double(t) / 100)
            at += 2
        }
        guard let hasH = has(1, 1) else { return .malformed("EYE frame ends before its humidity") }
        if hasH, let h = d.u8(at) {
            guard h <= 100 else { return .malformed("humidity \(h) % out of range") }
            r.add(.humidityPercent, Double(h))
            at += 1
        }
        if flags & 0x04 != 0 { r.add(.magnetDetected, flags & 0x08 != 0 ? 1 : 0) }
        guard let hasMove = has(4, 2) else { return .malformed("EYE frame ends before its movement count") }
        if hasMove, let m = d.be16(at) {
            r.add(.moving, Double(m >> 15))
            r.add(.movementCount, Double(m & 0x7FFF))
            at += 2
        }
        guard let hasAngle = has(5, 3) else { return .malformed("EYE frame ends before its angles") }
        if hasAngle, let pitch = d.i8(at), let roll = d.be16s(at + 1) {
            r.add(.pitchDeg, Double(pitch))
            r.add(.rollDeg, Double(roll))
            at += 3
        }
        if flags & 0x40 != 0 { r.add(.batteryLow, 1) }
        guard let hasVolts = has(7, 1) else { return .malformed("EYE frame ends before its battery voltage") }
        if hasVolts, let v = d.u8(at) { r.add(.voltageV, (2000 + 10 * Double(v)) / 1000) }
        guard !r.measurements.isEmpty else { return .notMine }
        return .reading(consume r)
    }

    /// The ELA model the local name names, else `fallback` (the frame type's usual model).
    static func elaModel(_ ad: Advertisement, fallback: String) -> String {
        if ad.localNameHasPrefix("P RHT") || ad.localNameIs("PUCK_TH") { return "Blue Puck RHT" }
        if ad.localNameHasPrefix("P T") || ad.localNameIs("PUCK_T1") { return "Blue Puck T" }
        if ad.localNameHasPrefix("C T") { return "Blue Coin T" }
        return fallback
    }
}
