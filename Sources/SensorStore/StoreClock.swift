#if canImport(Glibc)
    import Glibc
#endif

/// The store's view of the real time: the wall clock, which anchors retention and bounds how far
/// ahead a reading may be stamped, and the monotonic clock, which tells a step of the wall clock
/// from time passing and paces retries while the database refuses writes. Injected, so tests set
/// the time; the callers' own `now:` arguments (a replay passes its capture's clock) drive only
/// batching and the retention step's pace.
public protocol StoreClock {
    /// CLOCK_REALTIME: microseconds since the Unix epoch.
    func wallMicros() -> Int64
    /// CLOCK_MONOTONIC: seconds since an arbitrary start, never going back.
    func monotonicSeconds() -> Double
}

/// The system's clocks.
public struct SystemClock: StoreClock {
    public init() {}

    public func wallMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) &* 1_000_000 &+ Int64(ts.tv_nsec / 1000)
    }

    public func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// The wall time the store trusts, worked out from samples of both clocks.
///
/// RULES. (a) The first sample is trusted as it is: there is nothing to compare it with.
/// (b) The trusted time runs with the monotonic clock; a sample within `slewMicros` of it, or
/// behind it (the wall clock stepped back), becomes the trusted time at once: a time that is
/// earlier only makes retention keep more and admits fewer readings. (c) A wall clock that stepped
/// ahead of it is trusted once it has stayed so (within `slewMicros`) for `settleSeconds` of
/// monotonic time: a clock that jumps for a few seconds (a bad NTP answer, an RTC-less board) moves
/// neither retention nor what a reading may be stamped. (d) A wall time before
/// `earliestPlausibleMicros` (a board booted without a clock reads 1970) is never trusted for
/// retention (`plausible`).
struct TrustedTime {
    /// Differences smaller than this are the clock being slewed or read a little late.
    static let slewMicros: Int64 = 2_000_000
    /// 2026-01-01T00:00:00Z: no wall clock that reads earlier is right (this code did not exist).
    static let earliestPlausibleMicros: Int64 = 1_767_225_600_000_000

    let settleSeconds: Double
    /// Trusted wall time − monotonic time, µs; `nil` before the first sample.
    private var offset: Int64?
    /// A step ahead not yet trusted: its offset, and when (monotonic s) it was first seen.
    private var ahead: (offset: Int64, since: Double)?

    init(settleSeconds: Double) { self.settleSeconds = settleSeconds }

    /// The trusted wall time (µs since the epoch) for a sample of both clocks.
    mutating func now(wall: Int64, monotonic: Double) -> Int64 {
        let mono = Self.micros(monotonic)
        let sampled = wall &- mono
        guard let trusted = offset else {
            offset = sampled
            return wall
        }
        if sampled <= trusted &+ Self.slewMicros {
            offset = sampled
            ahead = nil
            return wall
        }
        if let a = ahead, abs(a.offset &- sampled) <= Self.slewMicros {
            if monotonic - a.since >= settleSeconds {
                offset = sampled
                ahead = nil
                return wall
            }
        } else {
            ahead = (sampled, monotonic)
        }
        return trusted &+ mono
    }

    /// Whether a wall time can be right at all (rule d).
    static func plausible(_ micros: Int64) -> Bool { micros >= earliestPlausibleMicros }

    /// The time given to readings of a clock that cannot be right and never synced (`ClockTrust`
    /// rule d): the earliest plausible time plus the monotonic time (since boot), so they keep
    /// their order and spacing and none is stamped before the build date.
    static func standIn(monotonic: Double) -> Int64 { earliestPlausibleMicros &+ micros(monotonic) }

    static func micros(_ seconds: Double) -> Int64 {
        let us = seconds * 1e6
        guard us.isFinite else { return 0 }
        return Int64(max(-9.0e18, min(9.0e18, us)))
    }
}
