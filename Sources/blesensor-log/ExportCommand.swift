#if canImport(Glibc)
import Glibc
#endif
import SensorDecode
import SensorStore

/// `blesensor-log export`: stored readings as CSV (RFC 4180) or JSON lines, streamed in constant
/// memory from one read snapshot (the logger keeps writing meanwhile).
enum ExportCommand {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Export stored readings as CSV or JSON lines.",
        options: [
            .flag("csv", help: "CSV with a header: time,address,alias,model,<one column per quantity> (default)."),
            .flag("jsonl", help: "One JSON object per row."),
            .value("since", "T", help: "From T: ISO 8601 date/time (local unless it has an offset) or 90m, 24h, 7d ago."),
            .value("until", "T", help: "Up to (not including) T; same forms as --since."),
            .value("sensor", "ADDR|ALIAS", repeatable: true, help: "Only this sensor (repeatable)."),
            StoreAccess.dbOption,
            .flag("local", help: "Times in local time with their offset (default: UTC with Z)."),
        ],
        discussion: """
            Cells of text that a spreadsheet would run as a formula (=, +, -, @) are prefixed with '.
            EXIT STATUS: 0; 64 bad option or unknown sensor; 66 no database; 74 output or read error.
            """)

    static let subcommand = Subcommand(spec: spec, run: run)

    /// `--since`/`--until` → a half-open range in µs.
    static func timeRange(_ args: ParsedArguments, now: Int64) throws(CLIError) -> TimeRange {
        var range = TimeRange()
        for (name, keyPath) in [("since", \TimeRange.from), ("until", \TimeRange.to)] {
            guard let text = args.value(name) else { continue }
            guard let t = TimeArguments.time(text, nowMicros: now) else {
                throw .usage(
                    "--\(name) wants an ISO 8601 date/time or a duration ago like 24h (at most "
                        + "\(TimeArguments.describe(TimeArguments.maxDurationSeconds))), got '\(text)'")
            }
            range[keyPath: keyPath] = t
        }
        if let f = range.from, let t = range.to, f > t { throw .usage("--until is before --since") }
        return range
    }

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        if args.has("csv"), args.has("jsonl") { throw .usage("--csv and --jsonl exclude each other") }
        let jsonl = args.has("jsonl")
        let range = try timeRange(args, now: Timestamp.nowMicros())
        let reader = try StoreAccess.openReader(path: StoreAccess.databasePath(args))
        let selectors = args.all("sensor").map(SensorSelector.init)
        let cursor: ExportCursor
        do { cursor = try reader.export(range: range, sensors: selectors) } catch { throw StoreAccess.cliError(error) }
        let out = OutputWriter(fd: 1, capacity: 1 << 18)
        var times = TimeFormatter(local: args.has("local"))
        let columns = cursor.quantities
        if !jsonl {
            out.write("time,address,alias,model" + columns.map { "," + CSV.text($0.key) }.joined() + CSV.recordEnd)
        }
        // ",address,alias,model" per sensor, escaped once: a direct-mapped cache by sensor id
        // (rowids, so 64 sensors never collide), bounded whatever the number of sensors.
        var sensorText = [(id: Int64, text: [UInt8])](repeating: (-1, []), count: 64)
        do throws(StoreError) {
            while try cursor.step() {
                if jsonl {
                    let row = try cursor.row()
                    var s = "{\"time\":\"" + times.format(row.timeMicros) + "\",\"address\":\"\(row.sensor.address)\""
                    s += ",\"alias\":" + (row.sensor.alias.map(JSON.string) ?? "null")
                    s += ",\"model\":" + JSON.string(row.sensor.model) + ",\"samples\":\(row.samples)"
                    for m in row.measurements {
                        s += ",\"\(m.quantity.key)\":" + JSON.number(m.value, integer: m.quantity.isInteger)
                    }
                    out.write(s + "}\n")
                } else {
                    let sid = cursor.sensorID
                    let slot = Int(UInt64(bitPattern: sid) & 63)
                    if sensorText[slot].id != sid {
                        let s = try cursor.sensor
                        let text = ",\(s.address)," + CSV.text(s.alias ?? "") + "," + CSV.text(s.model)
                        sensorText[slot] = (sid, Array(text.utf8))
                    }
                    let values = cursor.values
                    let time = cursor.timeMicros
                    sensorText[slot].text.withUnsafeBufferPointer { who in
                        // The record's bound: time, sensor, a comma and a number per column, CRLF.
                        let bound = TimeFormatter.maxBytes + who.count + values.count * (1 + NumberText.maxBytes) + 2
                        out.write(atMost: bound) { start in
                            var p = start + times.write(time, to: start)
                            p.update(from: who.baseAddress!, count: who.count)
                            p += who.count
                            for v in values {
                                p.pointee = UInt8(ascii: ",")
                                p += 1
                                p += NumberText.write(v, to: p)
                            }
                            p[0] = 13
                            p[1] = 10
                            return p + 2 - start
                        }
                    }
                }
                if out.failed != nil { break }
            }
        } catch {
            out.flush()
            throw StoreAccess.cliError(error)
        }
        cursor.close()
        try out.finish()
        return ExitCode.ok
    }
}

/// ISO 8601 time stamps for many rows: UTC with `Z`, or local time with the offset in force at
/// each instant (looked up once per hour of data, not per row).
struct TimeFormatter {
    let local: Bool
    private var cachedHour: Int64 = .min
    private var cachedOffset: Int64 = 0
    /// The date-and-hour and offset texts of the local hour `textHour` (with `textOffset`): rows
    /// come in time order, so a whole hour of them shares both.
    private var textHour: Int64 = .min
    private var textOffset: Int64? = nil
    private var dateAndHour: [UInt8] = []
    private var offsetText: [UInt8] = []

    /// The whole text of `lastMicros`: a minute's rows of every sensor share one time stamp.
    private var lastMicros: Int64? = nil
    private var lastText: [UInt8] = []

    /// The longest text `write` produces: a year beyond 9999 (20 digits), -HH:MM, µs.
    static let maxBytes = 64

    init(local: Bool) { self.local = local }

    /// Writes the time stamp at `p` (at most `maxBytes` bytes), for the hot export loop (same
    /// text as `format`). Returns the number of bytes.
    mutating func write(_ micros: Int64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        if micros != lastMicros {
            lastMicros = micros
            var text = lastText
            lastText = []  // so that `text` is the only reference and grows in place
            text.removeAll(keepingCapacity: true)
            append(micros, to: &text)
            lastText = text
        }
        return lastText.withUnsafeBufferPointer { text in
            p.update(from: text.baseAddress!, count: text.count)
            return text.count
        }
    }

    /// Appends the time stamp as bytes (same text as `format`).
    mutating func append(_ micros: Int64, to buffer: inout [UInt8]) {
        var offset: Int64? = nil
        if local {
            let hour = micros / 3_600_000_000
            if hour != cachedHour {
                cachedHour = hour
                cachedOffset = Timestamp.localOffset(atSeconds: micros / 1_000_000)
            }
            offset = cachedOffset
        }
        let parts = ISO8601Parts(micros: micros, localOffsetSeconds: offset)
        if parts.hour != textHour || offset != textOffset {
            textHour = parts.hour
            textOffset = offset
            dateAndHour.removeAll(keepingCapacity: true)
            parts.appendDateAndHour(to: &dateAndHour)
            offsetText.removeAll(keepingCapacity: true)
            parts.appendOffset(to: &offsetText)
        }
        buffer.append(contentsOf: dateAndHour)
        parts.appendMinuteAndSecond(to: &buffer)
        buffer.append(contentsOf: offsetText)
    }

    mutating func format(_ micros: Int64) -> String {
        guard local else { return Timestamp.iso8601(micros: micros, localOffsetSeconds: nil) }
        let hour = micros / 3_600_000_000
        if hour != cachedHour {
            cachedHour = hour
            cachedOffset = Timestamp.localOffset(atSeconds: micros / 1_000_000)
        }
        return Timestamp.iso8601(micros: micros, localOffsetSeconds: cachedOffset)
    }
}

/// Numbers as export writes them: whole values without a fraction when the double is integral
/// (battery 87, not 87.0, as `JSON.number` does for integer quantities), others in Swift's
/// shortest round-trip form (`Double.description`) of the value at 15 significant digits
/// (`significant`); non-finite values as nothing (an empty cell).
///
/// Written as bytes straight into the output. Most stored values are decimals with a few places
/// (21.35 °C), and for those the text comes from an integer instead of `description`'s general
/// algorithm, with the same result: if `m / 10^k` (k = 1…4, `m` below 10^15) rounds to the double
/// `v`, then the digits of `m` with the point k places from the right are `v`'s shortest
/// round-trip text. Any decimal of at most 15 significant digits round-trips through a double
/// (DBL_DIG), so two different such decimals can never round to the same double: no shorter (or
/// other equally short) text names `v`. The smallest such k gives `m` without trailing zeros, and
/// between 10^-4 and 10^11 `description` prints plain decimals. Everything else (1/3, 1e-05,
/// 1.2e+20) takes `description` itself. `NumberTextTests` compares both over millions of values.
enum NumberText {
    /// The longest text `write` produces: `-1.7976931348623157e+308` is 24 bytes.
    static let maxBytes = 32

    private static let powers: (Double, Double, Double, Double) = (10, 100, 1000, 10000)

    /// Writes `v` at `p` (at most `maxBytes` bytes) and returns the number of bytes.
    static func write(_ v: Double, to p: UnsafeMutablePointer<UInt8>) -> Int {
        guard v.isFinite else { return 0 }
        let a = abs(v)
        let sign = v < 0 ? 1 : 0
        if sign == 1 { p.pointee = UInt8(ascii: "-") }
        if a < 1e15 {
            // Integer conversions rather than `rounded()`, which is a libm call here; exact below
            // 10^15, and each candidate is checked anyway.
            let whole = UInt64(a)
            if Double(whole) == a {
                // Whole: -0.0 prints as 0, as `Int64(-0.0)` does.
                if whole == 0 {
                    p.pointee = UInt8(ascii: "0")
                    return 1
                }
                return sign + writeFixed(whole, decimals: 0, to: p + sign)
            }
            if a < 1e11 {
                // a · 10^k < 10^15: m has at most 15 digits (see above).
                for k in 1...4 {
                    let scale: Double
                    switch k {
                    case 1: scale = powers.0
                    case 2: scale = powers.1
                    case 3: scale = powers.2
                    default: scale = powers.3
                    }
                    let m = UInt64(a * scale + 0.5)
                    if Double(m) / scale == a { return sign + writeFixed(m, decimals: k, to: p + sign) }
                }
            }
        }
        var text = significant(v).description
        return text.withUTF8 { u in
            p.update(from: u.baseAddress!, count: u.count)
            return u.count
        }
    }

    /// `v` rounded to 15 significant digits (DBL_DIG), the precision every decimal keeps through
    /// a double: a value whose shortest text needs 16 or 17 digits (a mean, 45.67000000000001;
    /// 0.1 + 0.2) carries rounding noise there, and is printed as the nearest 15-digit decimal
    /// instead. A 15-digit decimal has exactly one double (see the type's comment), so the
    /// result's `description` is that decimal, trailing zeros dropped; values whose shortest
    /// text is 15 digits or fewer come back unchanged.
    static func significant(_ v: Double) -> Double {
        guard v.isFinite, significantDigits(v.description) > 15 else { return v }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 40) { b in
            let n = withVaList([v]) { vsnprintf(b.baseAddress!, 40, "%.15g", $0) }
            guard n > 0, n < 40 else { return v }
            // At the edge of the range the rounding can exceed it: keep the value then.
            guard let r = Double(String(cString: b.baseAddress!)), r.isFinite else { return v }
            return r
        }
    }

    /// Significant digits in a number's text: its mantissa's digits, without leading zeros.
    static func significantDigits(_ text: String) -> Int {
        var count = 0
        for c in text.utf8 {
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { continue }
            if count > 0 || c != UInt8(ascii: "0") { count += 1 }
        }
        return count
    }

    /// Writes `n` with a point `decimals` digits from the right (and at least one digit before
    /// it: `5, 2` → `0.05`); no point when `decimals` is 0. Returns the number of bytes.
    static func writeFixed(_ n: UInt64, decimals: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
        var digits = 1
        var t = n
        while t >= 10 {
            t /= 10
            digits += 1
        }
        let count = decimals == 0 ? digits : max(digits - decimals, 1) + 1 + decimals
        var q = p + count
        var n = n
        if decimals > 0 {
            for _ in 0..<decimals {
                q -= 1
                q.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: n % 10)
                n /= 10
            }
            q -= 1
            q.pointee = UInt8(ascii: ".")
        }
        repeat {
            q -= 1
            q.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: n % 10)
            n /= 10
        } while n > 0
        return count
    }

    /// `write` as a String (tests, and callers off the hot path).
    static func text(_ v: Double) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxBytes) { b in
            let n = write(v, to: b.baseAddress!)
            return String(decoding: UnsafeBufferPointer(rebasing: b[..<n]), as: UTF8.self)
        }
    }
}
