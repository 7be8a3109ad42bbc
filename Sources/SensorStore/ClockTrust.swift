#if canImport(Glibc)
    import Glibc
#endif
import SensorDecode

/// Whether the system clock is synchronised, as the kernel and the time daemon say.
public enum ClockSync: Sendable, Equatable {
    /// The kernel's NTP status has STA_UNSYNC clear, or systemd-timesyncd has reached a server.
    case synchronised
    /// Not yet, but systemd-timesyncd is running and will step it (a Pi after a power cut, booted
    /// at 1970 or at fake-hwclock's last save).
    case awaited
    /// Not synchronised, and nothing seen to be syncing it (no NTP daemon, or one that does not
    /// clear STA_UNSYNC).
    case unknown
}

/// A `StoreClock` that also says whether it is synchronised: the seam `ClockTrust` reads, so tests
/// inject boots at 1970, syncs and steps without changing the real clock.
public protocol SyncReportingClock: StoreClock {
    func synchronisation() -> ClockSync
}

extension SystemClock: SyncReportingClock {
    /// `adjtimex(2)` with no modes (read-only), then systemd-timesyncd's marker files.
    public func synchronisation() -> ClockSync {
        if Self.kernelUnsynchronised() == false { return .synchronised }
        if access("/run/systemd/timesync/synchronized", F_OK) == 0 { return .synchronised }
        // timesyncd keeps its state directory while it runs.
        if access("/run/systemd/timesync", F_OK) == 0 { return .awaited }
        return .unknown
    }

    /// Whether `adjtimex(2)` answers TIME_ERROR (STA_UNSYNC set); `nil` if it cannot be asked.
    /// Glibc's Swift module does not carry <sys/timex.h>, so the function is looked up by name.
    public static func kernelUnsynchronised() -> Bool? {
        typealias AdjTimex = @convention(c) (UnsafeMutableRawPointer) -> Int32
        // RTLD_DEFAULT is the null handle (the C macro is not imported).
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "adjtimex") else { return nil }
        // The symbol is glibc's `int adjtimex(struct timex *)`: the cast matches its C type.
        let call = unsafeBitCast(symbol, to: AdjTimex.self)
        // INVARIANT: struct timex is 208 bytes on 64-bit Linux, so the kernel writes within this
        // buffer, freed only after the call; zeroed, it has `modes` (its first field) 0, which
        // makes the call read-only.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: 512)
        let state = call(buffer)
        if state < 0 { return nil }
        return state == 5  // TIME_ERROR
    }
}

/// The stage between the decoders and the store that gives readings times it can trust.
///
/// RULES. (a) While the clock is synchronised, reads at least `buildDateMicros`, and has been so
/// for `settleSeconds` (the store's `clockSettleSeconds`) and a margin of two of the store's ticks
/// (so the store, which samples the clocks at its ticks, believes a step the sync made first), a
/// reading passes as it is. (b) Otherwise it is held with its monotonic time; once (a) holds again,
/// the held readings are re-stamped from the clocks as they are then (wall − the monotonic time
/// since each was heard: the step between CLOCK_REALTIME and CLOCK_MONOTONIC that the sync made is
/// taken out) and released in order, before any newer one. (c) A clock that reads a plausible time
/// and that nothing is syncing (`ClockSync.unknown`), or that was trusted earlier in this run and
/// lost its sync (a long network outage: it has drifted little), is the best there is: readings
/// pass with its time, flagged. (d) The hold is bounded: beyond `maxHeld` readings or
/// `maxHoldSeconds`, the stage stops waiting: the held readings and every later one until (a)
/// holds are released flagged, stamped from the wall clock if it reads a plausible time, else
/// `TrustedTime.standIn` (the build date plus the monotonic time: order and spacing kept);
/// `releaseAll` (at exit) releases the held ones so. So a reading is never lost to the clock, and
/// never stored stamped before the build date. A backwards step while synchronised reaches the
/// store as it is: its downsampler and rollups take readings in any order (invariants 3 and 4 in
/// SensorStore.swift).
public struct ClockTrust {
    public struct Configuration: Sendable, Equatable {
        /// The store's `clockSettleSeconds`.
        public var settleSeconds: Double
        /// Bounds of the hold (a few hundred bytes a reading: 10,000 stay a few MB), after which the
        /// stage stops waiting for a sync (rule d).
        public var maxHeld: Int
        public var maxHoldSeconds: Double

        public init(
            settleSeconds: Double = 60,
            maxHeld: Int = 10_000, maxHoldSeconds: Double = 3600
        ) {
            self.settleSeconds = settleSeconds
            self.maxHeld = maxHeld
            self.maxHoldSeconds = maxHoldSeconds
        }
    }

    /// What the stage has done since it started.
    public struct Statistics: Sendable, Equatable {
        /// Readings held while the clock could not be trusted, and of them re-stamped at a sync.
        public var held = 0
        public var restamped = 0
        /// Readings released with a time from a clock not known to be right (rules c, d).
        public var flagged = 0
    }

    /// No clock reading earlier is right: 2026-01-01T00:00:00Z, before this code existed (the
    /// store's `TrustedTime` rule d uses the same floor).
    public static let buildDateMicros: Int64 = TrustedTime.earliestPlausibleMicros
    /// Rule (a)'s margin: two ticks of the store (`run` ticks it once a second).
    static let tickMarginSeconds = 2.0

    public let configuration: Configuration
    public private(set) var statistics = Statistics()
    private let clock: any SyncReportingClock
    /// Held readings and the monotonic time each was heard at, oldest first.
    private var held: [(reading: Reading, monotonic: Double)] = []
    /// Since when (monotonic s) rule (a)'s clock has been synchronised and plausible; `-∞` when it
    /// was at the first look (the store trusts its first sample as it is).
    private var trustedSince: Double?
    private var looked = false
    /// The hold ran out without a sync (rule d): readings pass flagged until the clock is trusted.
    private var gaveUp = false
    /// Rule (a) held at some point in this run (rule c).
    private var wasTrusted = false

    private let log: (String) -> Void
    /// The verdict last logged: each change is one line (nothing for a clock trusted from the start).
    private var reported: Verdict?

    /// - Parameter log: one line whenever readings start to wait, pass flagged, or pass as heard.
    public init(
        clock: any SyncReportingClock, configuration: Configuration = Configuration(), log: @escaping (String) -> Void = { _ in }
    ) {
        self.clock = clock
        self.configuration = configuration
        self.log = log
    }

    /// Readings waiting for a clock to trust.
    public var heldCount: Int { held.count }

    /// Takes one reading just heard (stamped from the wall clock); hands to `release` each reading
    /// that may be stored now, in order, with whether its time is flagged (rules c, d).
    public mutating func admit(_ reading: consuming Reading, release: (consuming Reading, Bool) -> Void) {
        let now = look()
        switch now.verdict {
        case .trusted:
            releaseHeld(now, flagged: false, release)
            release(reading, false)
        case .bestThereIs:
            releaseHeld(now, flagged: true, release)
            statistics.flagged += 1
            var r = reading
            if !now.plausible { r.timeMicros = stamp(now.monotonic, now) }
            release(r, true)
        case .hold:
            statistics.held += 1
            held.append((reading, now.monotonic))
            releaseOverflow(now, release)
        }
    }

    /// The timer: releases what may go now (a sync settled, the hold's time bound).
    public mutating func tick(release: (consuming Reading, Bool) -> Void) {
        guard heldCount > 0 else { return }
        let now = look()
        switch now.verdict {
        case .trusted: releaseHeld(now, flagged: false, release)
        case .bestThereIs: releaseHeld(now, flagged: true, release)
        case .hold: releaseOverflow(now, release)
        }
    }

    /// At exit: every held reading, flagged (rule d).
    public mutating func releaseAll(release: (consuming Reading, Bool) -> Void) {
        guard heldCount > 0 else { return }
        releaseHeld(look(), flagged: true, release)
    }

    private enum Verdict { case trusted, bestThereIs, hold }

    private struct Now {
        var wall: Int64
        var monotonic: Double
        var plausible: Bool
        var verdict: Verdict
    }

    private mutating func look() -> Now {
        let now = judge()
        if now.verdict != reported {
            if reported != nil || now.verdict != .trusted { report(now) }
            reported = now.verdict
        }
        return now
    }

    private func report(_ now: Now) {
        switch now.verdict {
        case .trusted:
            log("clock: synchronised; the \(heldCount) readings that waited are stored at the times they were heard")
        case .hold:
            log(
                "clock: " + (now.plausible ? "not synchronised yet" : "reads a time before 2026")
                    + ": readings wait for NTP (at most \(Int(configuration.maxHoldSeconds)) s or \(configuration.maxHeld)), "
                    + "to be stored at the times they were heard")
        case .bestThereIs:
            log(
                "clock: "
                    + (gaveUp
                        ? "not synchronised after waiting" : "not known to be synchronised (no NTP daemon seen)")
                    + ": readings are stored at its times"
                    + (now.plausible ? "" : " counted from 2026-01-01 (it reads before 2026)")
                    + ", flagged as unsynchronised")
        }
    }

    private mutating func judge() -> Now {
        let wall = clock.wallMicros()
        let monotonic = clock.monotonicSeconds()
        let plausible = wall >= Self.buildDateMicros
        let sync = clock.synchronisation()
        let first = !looked
        looked = true
        guard plausible, sync == .synchronised else {
            trustedSince = nil
            let verdict: Verdict = gaveUp || (plausible && (sync == .unknown || wasTrusted)) ? .bestThereIs : .hold
            return Now(wall: wall, monotonic: monotonic, plausible: plausible, verdict: verdict)
        }
        gaveUp = false
        if trustedSince == nil { trustedSince = first ? -.infinity : monotonic }
        let settled = monotonic - trustedSince! >= configuration.settleSeconds + Self.tickMarginSeconds
        if settled { wasTrusted = true }
        return Now(wall: wall, monotonic: monotonic, plausible: true, verdict: settled ? .trusted : .hold)
    }

    /// A held reading's time as the clocks tell it now: re-stamped from the wall clock when it
    /// reads a plausible time, else the stand-in time (rule d).
    private func stamp(_ monotonic: Double, _ now: Now) -> Int64 {
        if now.plausible { return now.wall &- TrustedTime.micros(now.monotonic - monotonic) }
        return TrustedTime.standIn(monotonic: monotonic)
    }

    /// Hands every held reading to `release`, oldest first, re-stamped (rule b) or flagged (d).
    private mutating func releaseHeld(_ now: Now, flagged: Bool, _ release: (consuming Reading, Bool) -> Void) {
        guard !held.isEmpty else { return }
        for (reading, monotonic) in held {
            var r = reading
            r.timeMicros = stamp(monotonic, now)
            if flagged { statistics.flagged += 1 } else { statistics.restamped += 1 }
            release(r, flagged)
        }
        held.removeAll()
    }

    /// Rule (d): once the hold is beyond its bounds, the stage stops waiting.
    private mutating func releaseOverflow(_ now: Now, _ release: (consuming Reading, Bool) -> Void) {
        guard let oldest = held.first,
            held.count > max(1, configuration.maxHeld) || now.monotonic - oldest.monotonic > configuration.maxHoldSeconds
        else { return }
        gaveUp = true
        releaseHeld(now, flagged: true, release)
    }
}
