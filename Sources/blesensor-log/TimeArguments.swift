#if canImport(Glibc)
import Glibc
#endif

/// Durations and times as users type them on the command line.
///
/// Durations: `90s`, `90m`, `24h`, `7d`, `2w`, `400d`, `1h30m`, or a bare number of seconds; `0`.
/// Times: ISO 8601 `2026-11-30`, `2026-11-30T03:10`, `2026-11-30T03:10:42Z`, `… +01:00`, a space
/// instead of `T`; a date or time without an offset is local time (what a user at the Pi means);
/// or a duration, meaning that long before now (`--since 24h`).
enum TimeArguments {
    /// The longest duration any option takes: 1,000,000 days (about 2,700 years, longer than any
    /// store's history). Bounded so that a duration in µs, and now minus it, stay below 2^57 µs,
    /// far inside `Int64` (whose 2^63 µs is 292,000 years): no time computed from one can trap.
    static let maxDurationSeconds: Double = 1_000_000 * 86400

    /// Seconds in a duration, or `nil` if `text` is not one or is longer than `maxDurationSeconds`.
    static func duration(_ text: String) -> Double? {
        guard !text.isEmpty else { return nil }
        var total = 0.0
        var number = ""
        var sawUnit = false
        for c in text {
            if c.isASCII, c.isNumber || c == "." {
                number.append(c)
                continue
            }
            guard let n = Double(number) else { return nil }
            let unit: Double
            switch c {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86400
            case "w": unit = 7 * 86400
            default: return nil
            }
            total += n * unit
            number = ""
            sawUnit = true
        }
        if !number.isEmpty {
            guard let n = Double(number), !sawUnit else { return nil }  // "1h30" is ambiguous
            total += n
        }
        return total.isFinite && total >= 0 && total <= maxDurationSeconds ? total : nil
    }

    /// The duration an option gives, in `range` (seconds), or a usage error that says what the
    /// option takes: `--keep wants a duration from 1h to 1000000d (e.g. 400d), got '…'`.
    /// `positive` excludes zero where the range starts at it.
    static func duration(
        _ text: String, option: String, in range: ClosedRange<Double>, positive: Bool = false, example: String
    ) throws(CLIError) -> Double {
        guard let d = duration(text), range.contains(d), !positive || d > 0 else {
            let low = positive && range.lowerBound == 0 ? "more than 0" : "from \(describe(range.lowerBound))"
            throw .usage("--\(option) wants a duration \(low) to \(describe(range.upperBound)) (e.g. \(example)), got '\(text)'")
        }
        return d
    }

    /// Whole seconds in the largest unit that divides them: `3600` → `1h`, `86400000000` → `1000000d`.
    static func describe(_ seconds: Double) -> String {
        guard seconds > 0, seconds == seconds.rounded() else { return seconds == 0 ? "0" : "\(seconds)s" }
        let s = Int64(seconds)
        for (unit, size) in [("d", Int64(86400)), ("h", 3600), ("m", 60)] where s % size == 0 { return "\(s / size)\(unit)" }
        return "\(s)s"
    }

    /// A point in time as microseconds since the epoch, from ISO 8601 text or a duration before `nowMicros`.
    static func time(_ text: String, nowMicros: Int64) -> Int64? {
        if let d = duration(text), text.last.map({ !$0.isNumber }) ?? false {
            // d ≤ maxDurationSeconds: the product and the difference are far inside Int64.
            return nowMicros - Int64(d * 1_000_000)
        }
        return iso8601(text)
    }

    /// How much of ISO 8601 `iso8601` takes.
    enum Form {
        /// What people type (`--since 2026-11-23`): `YYYY-MM-DD[(T| )HH:MM[:SS[.ffffff]]][Z|±HH:MM|±HHMM]`,
        /// local time without an offset.
        case typed
        /// What a logger publishes (`Timestamp.iso8601`): `YYYY-MM-DDTHH:MM:SS[.ffffff]` and `Z` or
        /// `±HH:MM`. Nothing is left to the reader's zone, which is not the writer's.
        case published
    }

    /// The instant `text` names, in microseconds since the epoch, or `nil` if it names none.
    static func iso8601(_ text: String, form: Form = .typed) -> Int64? {
        let published = form == .published
        let u = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= u.count else { return nil }
            var v: Int64 = 0
            for k in 0..<n {
                let c = u[i + k]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            i += n
            return v
        }
        func expect(_ c: Character) -> Bool {
            guard i < u.count, u[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        // A day past its month's end (`2026-02-31`) is refused, not rolled into the next month:
        // the day count of (year, month, day) must give that day back.
        guard let y = digits(4), expect("-"), let mo = digits(2), expect("-"), let d = digits(2),
            (1...12).contains(mo), (1...31).contains(d),
            Timestamp.civil(fromDays: Timestamp.days(year: y, month: mo, day: d)) == (y, mo, d)
        else { return nil }
        var h: Int64 = 0, mi: Int64 = 0, s: Int64 = 0, micros: Int64 = 0
        if i < u.count, u[i] == UInt8(ascii: "T") || (u[i] == UInt8(ascii: " ") && !published) {
            i += 1
            guard let hh = digits(2), expect(":"), let mm = digits(2), hh < 24, mm < 60 else { return nil }
            h = hh
            mi = mm
            if expect(":") {
                guard let ss = digits(2), ss < 61 else { return nil }
                s = ss
                if expect(".") {
                    var scale: Int64 = 100_000
                    var any = false
                    while i < u.count, u[i] >= 48, u[i] <= 57 {
                        micros += Int64(u[i] - 48) * scale
                        scale /= 10
                        i += 1
                        any = true
                    }
                    guard any else { return nil }
                }
            } else if published {
                return nil
            }
        } else if published {
            return nil
        }
        let localSeconds = Timestamp.days(year: y, month: mo, day: d) * 86400 + h * 3600 + mi * 60 + s
        var offset: Int64? = nil
        if i < u.count {
            if expect("Z") || expect("z") {
                offset = 0
            } else if u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-") {
                let sign: Int64 = u[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = digits(2), oh < 24, expect(":") || !published else { return nil }
                guard let om = digits(2), om < 60 else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
        }
        guard i == u.count, offset != nil || !published else { return nil }
        // Without an offset: local time. Resolve with the offset in force at that moment (twice, so a
        // DST change between UTC and local time does not shift the result).
        let utc: Int64
        if let offset {
            utc = localSeconds - offset
        } else {
            var guess = localSeconds - Timestamp.localOffset(atSeconds: localSeconds)
            guess = localSeconds - Timestamp.localOffset(atSeconds: guess)
            utc = guess
        }
        return utc * 1_000_000 + micros
    }
}
