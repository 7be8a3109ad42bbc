/// Sensor Easy beacons — SE RHT (temperature/humidity), SE TEMP, SE TEMP PROBE.
/// Models: SE RHT, SE TEMP, SE TEMP PROBE
///
/// Where: the GATT characteristic values as service data, and the battery in manufacturer data;
/// the local name (`P RHT 88888B`, `C T 999999`, `P T EN 888444`, `P TPROBE 000000`: a letter,
/// then the model word, then the serial) says it is a Sensor Easy beacon and which:
///
/// | structure                 | size | field                                             |
/// |---------------------------|------|---------------------------------------------------|
/// | service data 0x2A6E       | 2    | temperature, s16 little-endian / 100 °C           |
/// | service data 0x2A6F       | 1    | humidity, whole % (2 bytes: u16 / 100, as GATT)   |
/// | manufacturer data 0x0757  | 3    | F2, then battery voltage u16 little-endian, mV    |
///
/// One advertisement carries any of the three. A temperature of 0x7FFF (sent before the first
/// measurement) or 0x8000 (GATT's "unknown") is left out.
///
/// Name → model: ` RHT ` → SE RHT, ` TPROBE ` → SE TEMP PROBE, ` T ` → SE TEMP (the word starts
/// at the name's second character).
///
/// Integrity check: none. Sanity: humidity above 100 % is `malformed`; a structure of another
/// length is ignored.
///
/// Sample: `0d 09 50 20 52 48 54 20 38 38 38 38 38 42 04 16 6f 2a 2f 06 ff 57 07 f2 19 0c` →
/// SE RHT, humidity 47 %, voltage 3.097 V.
///
/// Source: theengs decoder `SE_RHT_json.h`, `SE_TEMP_json.h`, `SE_TPROBE_json.h` (name rule,
/// service data, the 0x0757 voltage) and their tests.
public struct SensorEasyDecoder: SensorDecoder {
    public let id = "sensor_easy"
    public let selectors: [Selector] = [
        .serviceData(uuid16: 0x2A6E), .serviceData(uuid16: 0x2A6F), .manufacturer(company: 0x0757),
    ]

    /// The model word after the name's first character, and the model it names.
    static let models: [(word: String, model: String)] = [
        (" RHT ", "SE RHT"), (" TPROBE ", "SE TEMP PROBE"), (" T ", "SE TEMP"),
    ]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let name = ad.localName?.dropFirst(1).bytes,
            let model = Self.models.first(where: { name.starts(with: $0.word.utf8) })?.model
        else { return .notMine }
        var r = ad.reading(decoder: id, model: model)
        if let t = ad.serviceData(uuid16: 0x2A6E), t.count == 2, let raw = t.le16s(0), raw != .max, raw != .min {
            r.add(.temperatureC, Double(raw) / 100)
        }
        if let h = ad.serviceData(uuid16: 0x2A6F) {
            let humidity: Double? =
                switch h.count {
                case 1: h.u8(0).map(Double.init)
                case 2: h.le16(0).map { Double($0) / 100 }
                default: nil
                }
            if let humidity {
                guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
                r.add(.humidityPercent, humidity)
            }
        }
        if let m = ad.manufacturerData(company: 0x0757), m.count == 3, m.u8(0) == 0xF2, let mv = m.le16(1) {
            r.add(.voltageV, Double(mv) / 1000)
        }
        // A beacon of ours whose structures hold nothing yet (a first 0x7FFF): no reading.
        return .readings(r.measurements.isEmpty ? [] : [r])
    }
}
