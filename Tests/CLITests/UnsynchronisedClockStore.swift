import Foundation
import SensorDecode
import SensorStore

/// A database written as `run` writes it while the system clock is not known to be synchronised:
/// the real `ClockTrust` and `SensorStore` on a clock the test sets (no real clock is changed).
/// Shared by the export and doctor tests of `clock_unsynced`.
enum UnsynchronisedClockStore {
    final class SettableClock: SyncReportingClock, @unchecked Sendable {
        var wall: Int64
        var monotonic: Double = 5
        var sync: ClockSync
        init(wall: Int64, sync: ClockSync) {
            self.wall = wall
            self.sync = sync
        }
        func wallMicros() -> Int64 { wall }
        func monotonicSeconds() -> Double { monotonic }
        func synchronisation() -> ClockSync { sync }
    }

    /// The receive times (µs) of the readings stored flagged.
    struct Written {
        var flaggedTimes: [Int64]
        var allTimes: [Int64]
        /// Bucket starts (60 s) of the rows holding a flagged reading.
        var flaggedRows: Set<Int64> { Set(flaggedTimes.map { $0 / 60_000_000 * 60_000_000 }) }
        var rows: Set<Int64> { Set(allTimes.map { $0 / 60_000_000 * 60_000_000 }) }
    }

    /// One sensor heard every 10 s from `start` on: `unsynchronised` readings while nothing syncs
    /// the clock (ClockTrust rule c: stored at its times, flagged), then `synchronised` after NTP
    /// synced it (held while the sync settles, then stored as heard).
    static func write(path: String, start: Int64, unsynchronised: Int, synchronised: Int,
                      address: BDAddress = BDAddress("C0:FF:EE:00:00:01")!) throws -> Written {
        let clock = SettableClock(wall: start, sync: .unknown)
        var trust = ClockTrust(clock: clock)
        let store = try SensorStore(path: path, clock: clock)
        var written = Written(flaggedTimes: [], allTimes: [])
        for k in 0..<(unsynchronised + synchronised) {
            if k == unsynchronised { clock.sync = .synchronised }
            clock.wall += 10_000_000
            clock.monotonic += 10
            let now = clock.monotonic
            let reading = Reading(
                address: address, decoderID: "test", model: "M",
                measurements: [Measurement(.temperatureC, Double(k))], timeMicros: clock.wall)
            written.allTimes.append(clock.wall)
            trust.admit(reading) { r, flagged in
                if flagged { written.flaggedTimes.append(r.timeMicros) }
                store.add(r, now: now, unsynchronised: flagged)
            }
            trust.tick { r, flagged in
                if flagged { written.flaggedTimes.append(r.timeMicros) }
                store.add(r, now: now, unsynchronised: flagged)
            }
            store.tick(now: now, wallMicros: clock.wall)
        }
        let now = clock.monotonic
        trust.releaseAll { r, flagged in
            if flagged { written.flaggedTimes.append(r.timeMicros) }
            store.add(r, now: now, unsynchronised: flagged)
        }
        try store.close(now: now)
        return written
    }
}
