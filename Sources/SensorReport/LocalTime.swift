/// Local wall-clock time for labels and bucket edges, as a value the caller gives: the report
/// module does no I/O, so the time-zone database is read by whoever builds this (the CLI passes
/// `localtime_r`'s offset; tests pass fixed or hand-made offsets).
///
/// Instants are microseconds or seconds since the Unix epoch, UTC; "local seconds" are UTC
/// seconds plus the offset in force at that instant.
public struct LocalTime: Sendable {
    private let offsetAt: @Sendable (Int64) -> Int64

    /// - Parameter offsetAt: seconds east of UTC in force at a UTC instant given in seconds.
    public init(offsetAt: @escaping @Sendable (Int64) -> Int64) { self.offsetAt = offsetAt }

    public static let utc = LocalTime { _ in 0 }
    public static func fixed(offsetSeconds: Int64) -> LocalTime { LocalTime { _ in offsetSeconds } }

    public func offset(atSeconds s: Int64) -> Int64 { offsetAt(s) }

    /// Local seconds since the epoch of the instant `micros` (rounded down to its second).
    public func localSeconds(micros: Int64) -> Int64 {
        let s = CivilDate.floorDiv(micros, 1_000_000)
        return s + offsetAt(s)
    }

    /// The UTC instant (seconds) of a local wall time. The offset is looked up twice, so that a
    /// DST change between the UTC guess and the local time does not shift the result; a wall time
    /// skipped by a change resolves to an instant near it.
    public func utcSeconds(localSeconds l: Int64) -> Int64 {
        let guess = l - offsetAt(l)
        return l - offsetAt(guess)
    }
}

/// Proleptic Gregorian dates as days since 1970-01-01 (H. Hinnant's civil-from-days algorithms).
public enum CivilDate {
    /// Floor division (towards minus infinity), for instants before 1970.
    public static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Days since 1970-01-01 → (year, month 1–12, day 1–31).
    public static func civil(fromDays z0: Int64) -> (year: Int64, month: Int64, day: Int64) {
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
    public static func days(year y0: Int64, month m: Int64, day d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// 0 = Monday … 6 = Sunday (1970-01-01 was a Thursday).
    public static func weekday(days: Int64) -> Int { Int(((days % 7) + 7 + 3) % 7) }

    static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
