#if canImport(Glibc)
import Glibc
#endif

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

    /// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }

    /// (year, month, day) → days since 1970-01-01.
    static func days(year y0: Int64, month m: Int64, day d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
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
        let secondsUTC = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        let frac = micros - secondsUTC * 1_000_000
        let offset = localOffsetSeconds ?? 0
        let s = secondsUTC + offset
        let days = s >= 0 ? s / 86400 : (s - 86399) / 86400
        let sod = s - days * 86400
        let (y, m, d) = civil(fromDays: days)
        func digits(_ v: Int64, _ n: Int) {
            var div: Int64 = 1
            for _ in 1..<n { div *= 10 }
            var x = v
            for _ in 0..<n {
                out.append(UInt8(ascii: "0") + UInt8((x / div) % 10))
                x %= div
                div /= 10
            }
        }
        if y >= 0 && y <= 9999 { digits(y, 4) } else { out.append(contentsOf: String(y).utf8) }
        out.append(UInt8(ascii: "-")); digits(m, 2)
        out.append(UInt8(ascii: "-")); digits(d, 2)
        out.append(UInt8(ascii: "T")); digits(sod / 3600, 2)
        out.append(UInt8(ascii: ":")); digits(sod / 60 % 60, 2)
        out.append(UInt8(ascii: ":")); digits(sod % 60, 2)
        if frac != 0 {
            out.append(UInt8(ascii: "."))
            digits(frac, 6)
        }
        if localOffsetSeconds == nil {
            out.append(UInt8(ascii: "Z"))
        } else {
            out.append(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            let a = abs(offset)
            digits(a / 3600, 2)
            out.append(UInt8(ascii: ":"))
            digits(a / 60 % 60, 2)
        }
    }
}
