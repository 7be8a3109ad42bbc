#if canImport(Glibc)
import Glibc
#endif
import SensorReport

/// Time as the CLI reads and prints it. Stored time is integer microseconds since the Unix epoch,
/// UTC; this converts at the edges only (civil-from-days arithmetic, no ICU, no Foundation).
enum Timestamp {
    /// Microseconds since the epoch, now (wall clock).
    static func nowMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// Seconds on a monotonic clock, for timers and watchdogs.
    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (`CivilDate`).
    static func civil(fromDays z: Int64) -> (Int64, Int64, Int64) { CivilDate.civil(fromDays: z) }

    /// (year, month, day) → days since 1970-01-01.
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        CivilDate.days(year: year, month: month, day: day)
    }

    /// The local UTC offset in seconds at a given instant (from the TZ database via localtime_r).
    static func localOffset(atSeconds s: Int64) -> Int64 {
        var t = time_t(s)
        var tmv = tm()
        localtime_r(&t, &tmv)
        return Int64(tmv.tm_gmtoff)
    }

    /// `2026-11-30T03:10:42Z`, or with `.123456` when there are microseconds, or with a `+01:00`
    /// offset when `localOffsetSeconds` is given.
    static func iso8601(micros: Int64, localOffsetSeconds: Int64?) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        appendISO8601(micros: micros, localOffsetSeconds: localOffsetSeconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `iso8601(micros:localOffsetSeconds:)` appended as bytes (export writes millions of them).
    static func appendISO8601(micros: Int64, localOffsetSeconds: Int64?, to out: inout [UInt8]) {
        let parts = ISO8601Parts(micros: micros, localOffsetSeconds: localOffsetSeconds)
        parts.appendDateAndHour(to: &out)
        parts.appendMinuteAndSecond(to: &out)
        parts.appendOffset(to: &out)
    }
}

/// One instant split the way its ISO 8601 text is written: `YYYY-MM-DDTHH:` | `MM:SS[.ffffff]` |
/// `Z` or `±HH:MM`. Export keeps the first and last parts for a whole hour of rows and writes only
/// the middle one per row (`TimeFormatter`).
struct ISO8601Parts {
    /// Local seconds since the epoch (UTC plus the offset), and the microseconds after them.
    let seconds: Int64
    let fraction: Int64
    let offset: Int64?

    init(micros: Int64, localOffsetSeconds: Int64?) {
        // Floor division written so that it cannot overflow: a damaged file may hold any Int64,
        // and `micros - 999_999` traps near Int64.min.
        let remainder = micros % 1_000_000
        let secondsUTC = micros / 1_000_000 - (remainder < 0 ? 1 : 0)
        fraction = remainder < 0 ? remainder + 1_000_000 : remainder
        offset = localOffsetSeconds
        seconds = secondsUTC + (localOffsetSeconds ?? 0)
    }

    /// The local hour this instant lies in (hours since the epoch): the date-and-hour part and the
    /// offset part are the same for every instant of it with the same offset.
    var hour: Int64 { seconds >= 0 ? seconds / 3600 : (seconds - 3599) / 3600 }

    private static func two(_ v: Int64, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v / 10))
        out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10))
    }

    func appendDateAndHour(to out: inout [UInt8]) {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let (y, m, d) = Timestamp.civil(fromDays: days)
        if y >= 0 && y <= 9999 { Self.two(y / 100, &out); Self.two(y % 100, &out) } else { out.append(contentsOf: String(y).utf8) }
        out.append(UInt8(ascii: "-")); Self.two(m, &out)
        out.append(UInt8(ascii: "-")); Self.two(d, &out)
        out.append(UInt8(ascii: "T")); Self.two((seconds - days * 86400) / 3600, &out)
        out.append(UInt8(ascii: ":"))
    }

    func appendMinuteAndSecond(to out: inout [UInt8]) {
        let inHour = seconds - hour * 3600
        Self.two(inHour / 60, &out)
        out.append(UInt8(ascii: ":")); Self.two(inHour % 60, &out)
        if fraction != 0 {
            out.append(UInt8(ascii: "."))
            var div: Int64 = 100_000
            while div > 0 {
                out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / div % 10))
                div /= 10
            }
        }
    }

    func appendOffset(to out: inout [UInt8]) {
        guard let offset else {
            out.append(UInt8(ascii: "Z"))
            return
        }
        out.append(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        let a = abs(offset)
        Self.two(a / 3600, &out)
        out.append(UInt8(ascii: ":"))
        Self.two(a / 60 % 60, &out)
    }
}
