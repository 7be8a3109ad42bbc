/// How a quantity is shown: a name and a unit from its key (`temperature_c` → "Temperature", °C),
/// values converted where the user asked for °F.
public struct QuantityDisplay: Sendable, Equatable {
    public let key: String
    public let name: String
    /// Empty for quantities without one (`count`, `door`).
    public let unit: String
    /// Degrees Celsius shown as Fahrenheit.
    public let fahrenheit: Bool
    /// The CSS class of the chart's colours.
    public let colourClass: String

    /// Key suffixes and their units, longest first where one ends another (`_m3_h` before `_h`).
    static let units: [(suffix: String, unit: String)] = [
        ("_us_cm", "µS/cm"), ("_ug_m3", "µg/m³"), ("_mg_m3", "mg/m³"), ("_m3_h", "m³/h"), ("_m_s2", "m/s²"),
        ("_deg_s", "°/s"), ("_m_s", "m/s"), ("_pct", "%"), ("_hpa", "hPa"), ("_ppm", "ppm"), ("_lux", "lx"),
        ("_dbm", "dBm"), ("_kwh", "kWh"), ("_rpm", "rpm"), ("_deg", "°"), ("_m3", "m³"), ("_kg", "kg"),
        ("_lb", "lb"), ("_mm", "mm"), ("_ml", "mL"), ("_c", "°C"), ("_v", "V"), ("_g", "g"), ("_w", "W"),
        ("_a", "A"), ("_s", "s"), ("_m", "m"), ("_l", "L"),
    ]

    /// Names that are not their key's words with a capital.
    static let names: [String: String] = [
        "pm2_5": "PM2.5", "pm10": "PM10", "co2": "CO₂", "tvoc": "TVOC", "tx_power": "TX power", "dewpoint": "Dew point",
    ]

    public init(key: String, fahrenheit: Bool = false) {
        self.key = key
        var stem = key
        var unit = ""
        for (suffix, u) in Self.units where key.hasSuffix(suffix) && key.count > suffix.count {
            stem = String(key.dropLast(suffix.count))
            unit = u
            break
        }
        let celsius = unit == "°C"
        self.fahrenheit = celsius && fahrenheit
        self.unit = self.fahrenheit ? "°F" : unit
        if let special = Self.names[stem] {
            name = special
        } else {
            let words = stem.split(separator: "_").joined(separator: " ")
            name = words.prefix(1).uppercased() + words.dropFirst()
        }
        colourClass = stem.hasPrefix("temperature") || stem == "dewpoint" ? "q-temperature"
            : stem.hasPrefix("humidity") ? "q-humidity" : stem == "battery" ? "q-battery" : "q-other"
    }

    /// A stored value in the unit shown.
    public func convert(_ v: Double) -> Double { fahrenheit ? v * 9 / 5 + 32 : v }

    /// `21.3 °C`, `45 %`, `3` (two decimals at most, trailing zeros dropped).
    public func text(_ v: Double) -> String {
        let n = ReportText.number(convert(v), maxDecimals: 2)
        return unit.isEmpty ? n : n + (unit == "%" ? " %" : " " + unit)
    }

    /// Charts of a sensor's quantities in this order: temperature and humidity first, battery last.
    public static func order(_ a: String, _ b: String) -> Bool {
        func rank(_ k: String) -> Int {
            switch k {
            case "temperature_c": 0
            case "humidity_pct": 1
            case "battery_pct": 3
            default: 2
            }
        }
        return (rank(a), a) < (rank(b), b)
    }
}

/// Text for the page and the charts: numbers with a fixed count of decimals, escaped markup,
/// local date and time.
public enum ReportText {
    /// `v` rounded to `decimals` places, always written with them (`20.50` for 2).
    public static func fixed(_ v: Double, decimals: Int) -> String {
        guard v.isFinite else { return "" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(v) * scale).rounded()
        guard scaled < 9e15 else { return String(v) }
        let n = UInt64(scaled)
        var digits = String(n)
        if decimals > 0 {
            if digits.count <= decimals { digits = String(repeating: "0", count: decimals - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -decimals))
        }
        return (v < 0 && n != 0 ? "-" : "") + digits
    }

    /// `v` with at most `maxDecimals` places, trailing zeros (and a bare point) dropped.
    public static func number(_ v: Double, maxDecimals: Int) -> String {
        var s = fixed(v, decimals: maxDecimals)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s == "-0" ? "0" : s
    }

    /// A drawing coordinate: one decimal is a tenth of a unit of a ~500-unit chart.
    static func coordinate(_ v: Double) -> String { number(v, maxDecimals: 1) }

    /// Text safe inside an element or a quoted attribute of HTML or SVG. Control characters
    /// (a device may name itself anything) become U+FFFD, as XML forbids most of them.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                if c.value < 0x20 && c != "\t" || c.value == 0x7F || (0x80..<0xA0).contains(c.value) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out
    }

    /// `2026-11-30 14:05` in local time.
    public static func localDateTime(micros: Int64, local: LocalTime) -> String {
        let s = local.localSeconds(micros: micros)
        let days = CivilDate.floorDiv(s, 86400)
        let (y, m, d) = CivilDate.civil(fromDays: days)
        let inDay = s - days * 86400
        return "\(y)-\(two(m))-\(two(d)) \(two(inDay / 3600)):\(two(inDay / 60 % 60))"
    }

    /// `UTC+01:00`, `UTC−05:30`, `UTC`: the offset the page's times are in, at an instant.
    public static func offsetName(atMicros micros: Int64, local: LocalTime) -> String {
        let o = local.offset(atSeconds: CivilDate.floorDiv(micros, 1_000_000))
        guard o != 0 else { return "UTC" }
        let a = abs(o)
        return "UTC" + (o < 0 ? "−" : "+") + two(a / 3600) + ":" + two(a / 60 % 60)
    }

    /// ISO 8601 UTC to the second, for machine-readable attributes.
    static func isoUTC(micros: Int64) -> String {
        let s = CivilDate.floorDiv(micros, 1_000_000)
        let days = CivilDate.floorDiv(s, 86400)
        let (y, m, d) = CivilDate.civil(fromDays: days)
        let inDay = s - days * 86400
        return "\(y)-\(two(m))-\(two(d))T\(two(inDay / 3600)):\(two(inDay / 60 % 60)):\(two(inDay % 60))Z"
    }

    static func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
