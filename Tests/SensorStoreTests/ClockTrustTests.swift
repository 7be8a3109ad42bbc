import TestSupport
import Foundation
import SensorDecode
import Testing

@testable import SensorStore

/// A system clock the test sets: wall, monotonic and sync state (no real clock is read or changed).
private final class FakeSystemClock: SyncReportingClock, @unchecked Sendable {
    var wall: Int64
    var monotonic: Double
    var sync: ClockSync

    init(wall: Int64, monotonic: Double = 5, sync: ClockSync) {
        self.wall = wall
        self.monotonic = monotonic
        self.sync = sync
    }

    func wallMicros() -> Int64 { wall }
    func monotonicSeconds() -> Double { monotonic }
    func synchronisation() -> ClockSync { sync }

    /// Time passes: both clocks advance by `seconds`.
    func advance(_ seconds: Double) {
        wall += Int64(seconds * 1e6)
        monotonic += seconds
    }
}

/// One sensor's reading stamped as the scanner stamps it: with the wall clock now.
private func heard(_ k: Int, _ clock: FakeSystemClock, sensor: UInt64 = 1) -> Reading {
    Reading(
        address: BDAddress(rawValue: 0xC0FF_EE00_0000 + sensor), decoderID: "test", model: "M",
        measurements: [Measurement(.temperatureC, Double(k) / 10)], timeMicros: clock.wall)
}

/// The stage and a store on the same injected clock, wired as `run` wires them.
private final class Logger {
    let clock: FakeSystemClock
    var trust: ClockTrust
    let store: SensorStore
    let log = LogLines()

    init(_ path: String, clock: FakeSystemClock, trust: ClockTrust.Configuration = .init()) throws {
        self.clock = clock
        self.trust = ClockTrust(clock: clock, configuration: trust, log: log.append)
        store = try SensorStore(path: path, clock: clock)
    }

    func hear(_ r: Reading) {
        let store = store
        let now = clock.monotonic
        trust.admit(r) { r, flagged in store.add(r, now: now, unsynchronised: flagged) }
    }

    func tick() {
        let store = store
        let now = clock.monotonic
        trust.tick { r, flagged in store.add(r, now: now, unsynchronised: flagged) }
        store.tick(now: now, wallMicros: clock.wall)
    }

    /// Hears readings `ks` of one sensor, one every `seconds`, ticking after each.
    func hear(every seconds: Double, _ ks: Range<Int>) {
        for k in ks {
            clock.advance(seconds)
            hear(heard(k, clock))
            tick()
        }
    }

    func close() throws {
        let store = store
        let now = clock.monotonic
        trust.releaseAll { r, flagged in store.add(r, now: now, unsynchronised: flagged) }
        try store.close(now: now)
    }

    /// Closes, then reads back every row.
    func closeAndRead() throws -> (StoreReader, [ExportRow]) {
        try close()
        let reader = try StoreReader(path: store.path)
        return (reader, try exportAll(reader).rows)
    }
}

@Suite struct ClockTrustTests {
    /// A Pi after a power cut: it boots at 1970 with timesyncd running, hears a sensor every 10 s
    /// for 5 minutes, then NTP steps the clock to the real time. The readings wait with their
    /// monotonic stamps and are stored at the times they were really heard; none at 1970.
    @Test func readingsHeardBeforeTheFirstSyncAreStoredAtTheirRealTimes() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let clock = FakeSystemClock(wall: 5_000_000, sync: .awaited)
        let logger = try Logger(dir.file("a.db"), clock: clock)
        // The real time is june2026 + monotonic; the clock reads 1970 + monotonic until the sync.
        // Reading k is heard at monotonic 5 + 10 (k + 1) s.
        let realTimes = (0..<40).map { june2026Micros + Int64(5 + 10 * ($0 + 1)) * 1_000_000 }
        logger.hear(every: 10, 0..<30)
        #expect(logger.trust.heldCount == 30)
        #expect(logger.store.pendingRows == 0 && logger.store.trackedSensors == 0)
        // NTP syncs: the wall clock steps by the real time's offset.
        clock.wall = june2026Micros + Int64(clock.monotonic * 1e6)
        clock.sync = .synchronised
        logger.hear(every: 10, 30..<40)
        #expect(logger.trust.heldCount == 0)
        // The 30 before the sync, and 7 while it settled (60 s and two ticks).
        #expect(logger.trust.statistics.restamped == 37)
        let (reader, rows) = try logger.closeAndRead()
        let expected = Set(realTimes.map { $0 / 60_000_000 * 60_000_000 })
        #expect(Set(rows.map(\.timeMicros)) == expected)
        #expect(rows.reduce(0) { $0 + $1.samples } == 40)
        #expect(rows.allSatisfy { $0.timeMicros >= ClockTrust.buildDateMicros })
        #expect(try reader.unsynchronisedSpans() == [])
        #expect(try reader.verifyRollups() == [])
        #expect(logger.log.lines.count == 2, "\(logger.log.lines)")
        #expect(logger.log.lines.first?.contains("reads a time before 2026: readings wait") == true)
        #expect(logger.log.lines.last?.contains("the 37 readings that waited are stored") == true)
    }

    /// fake-hwclock restores the time of the last shutdown, days behind: plausible, but wrong.
    /// While timesyncd has not synced, the readings wait and take the stepped clock's times.
    @Test func aFakeHwclockTimeIsCorrectedByTheSyncStep() {
        let shutdown = june2026Micros - 3 * 86_400_000_000
        let clock = FakeSystemClock(wall: shutdown, sync: .awaited)
        var trust = ClockTrust(clock: clock)
        var released: [(Int64, Bool)] = []
        clock.advance(1)
        trust.admit(heard(0, clock)) { r, flagged in released.append((r.timeMicros, flagged)) }
        #expect(released.isEmpty)
        clock.advance(20)
        clock.wall += 3 * 86_400_000_000
        clock.sync = .synchronised
        trust.tick { r, flagged in released.append((r.timeMicros, flagged)) }
        #expect(released.isEmpty)  // the sync has not settled
        clock.advance(62)
        trust.tick { r, flagged in released.append((r.timeMicros, flagged)) }
        #expect(released.count == 1)
        #expect(released.first?.0 == clock.wall - 82_000_000)  // heard 82 s before now
        #expect(released.first?.1 == false)
    }

    /// No sync ever comes (a Pi offline, booted at 1970): after the hold's bound, the readings are
    /// stored flagged, in order and spacing, stamped from the build date on, and later ones too.
    @Test func readingsOfAClockThatNeverSyncsAreKeptAndFlagged() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let clock = FakeSystemClock(wall: 5_000_000, sync: .awaited)
        let logger = try Logger(dir.file("a.db"), clock: clock, trust: .init(maxHoldSeconds: 600))
        logger.hear(every: 10, 0..<120)
        #expect(logger.trust.heldCount == 0)
        #expect(logger.trust.statistics.flagged == 120)
        let (reader, rows) = try logger.closeAndRead()
        #expect(rows.reduce(0) { $0 + $1.samples } == 120)
        #expect(rows.allSatisfy { $0.timeMicros >= ClockTrust.buildDateMicros / 60_000_000 * 60_000_000 })
        // Heard 15 s to 1,205 s after boot, 10 s apart: 21 intervals of 60 s, the spacing kept.
        #expect(rows.count == 21)
        #expect(logger.log.lines.last?.contains("not synchronised after waiting") == true, "\(logger.log.lines)")
        let spans = try reader.unsynchronisedSpans()
        #expect(spans.count == 1)
        let covered = rows.allSatisfy { r in spans.contains { $0.overlaps(r.timeMicros...(r.timeMicros + 59_999_999)) } }
        #expect(covered)
        #expect(try reader.verifyRollups() == [])
    }

    /// A machine whose clock reads a plausible time and that no daemon syncs: readings pass at
    /// once (nothing waits in memory for a sync that will not come), flagged.
    @Test func aPlausibleClockNothingSyncsPassesAtOnceFlagged() {
        let clock = FakeSystemClock(wall: june2026Micros, sync: .unknown)
        var trust = ClockTrust(clock: clock)
        var released: [(Int64, Bool)] = []
        trust.admit(heard(0, clock)) { r, flagged in released.append((r.timeMicros, flagged)) }
        #expect(released.count == 1 && released[0] == (june2026Micros, true))
        // It syncs later (chrony started): readings pass unflagged once the sync has settled.
        clock.sync = .synchronised
        clock.advance(1)
        trust.admit(heard(1, clock)) { r, flagged in released.append((r.timeMicros, flagged)) }
        #expect(released.count == 1)
        clock.advance(62)
        trust.admit(heard(2, clock)) { r, flagged in released.append((r.timeMicros, flagged)) }
        #expect(released.map(\.1) == [true, false, false])
        #expect(released.map(\.0) == [june2026Micros, june2026Micros + 1_000_000, june2026Micros + 63_000_000])
    }

    /// A clock synchronised when the logger starts is trusted at once, as the store trusts its
    /// first sample: nothing waits.
    @Test func aSynchronisedClockPassesEveryReadingAsItIs() {
        let clock = FakeSystemClock(wall: june2026Micros, sync: .synchronised)
        var trust = ClockTrust(clock: clock)
        var released: [(Int64, Bool)] = []
        for k in 0..<5 {
            trust.admit(heard(k, clock)) { r, flagged in released.append((r.timeMicros, flagged)) }
            clock.advance(2)
        }
        #expect(released.map(\.0) == (0..<5).map { june2026Micros + Int64($0) * 2_000_000 })
        #expect(released.allSatisfy { !$0.1 })
        #expect(trust.statistics == ClockTrust.Statistics())
    }

    /// The hold is bounded in readings: beyond `maxHeld` it stops waiting, and what it held goes
    /// out flagged, oldest first; memory stays bounded whatever the radio shows.
    @Test func theHoldIsBoundedAndReleasesInOrder() {
        let clock = FakeSystemClock(wall: 5_000_000, sync: .awaited)
        var trust = ClockTrust(clock: clock, configuration: .init(maxHeld: 100))
        var released: [Int64] = []
        var most = 0
        for k in 0..<1000 {
            clock.advance(0.01)
            trust.admit(heard(k, clock)) { r, flagged in
                #expect(flagged)
                released.append(r.timeMicros)
            }
            most = max(most, trust.heldCount)
        }
        #expect(most <= 100)
        #expect(released.count == 1000 - trust.heldCount)
        #expect(released == released.sorted())
        #expect(released.allSatisfy { $0 >= ClockTrust.buildDateMicros })
    }

    /// The store keeps the flagged receive times as spans: widened while flagged readings follow
    /// one another (across batches), a new one after a trusted reading.
    @Test func flaggedReadingsMakeOneSpanPerRunOfThem() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        let store = try SensorStore(path: dir.file("a.db"), configuration: config, clock: FakeClock(wall: june2026Micros))
        let reader = try StoreReader(path: dir.file("a.db"))
        func add(_ second: Int64, flagged: Bool) {
            store.add(
                Reading(
                    address: BDAddress(rawValue: 0xC0FF_EE00_0001), decoderID: "test", model: "M",
                    measurements: [Measurement(.temperatureC, Double(second))],
                    timeMicros: june2026Micros + second * 1_000_000),
                now: 0, unsynchronised: flagged)
        }
        let t = { (s: Int64) in june2026Micros + s * 1_000_000 }
        add(1, flagged: true)
        add(2, flagged: true)
        store.flush(now: 0)
        #expect(try reader.unsynchronisedSpans() == [t(1)...t(2)])
        add(3, flagged: true)
        store.flush(now: 0)
        #expect(try reader.unsynchronisedSpans() == [t(1)...t(3)])
        add(4, flagged: false)
        add(5, flagged: true)
        try store.close(now: 0)
        #expect(try reader.unsynchronisedSpans() == [t(1)...t(3), t(5)...t(5)])
        #expect(try exportAll(reader).rows.count == 5)
    }

    /// A backwards step of a synchronised clock (NTP corrects a clock that ran ahead by 30
    /// minutes) reaches the store as it is: rows out of time order, merged into the stored
    /// intervals or added before them, and the rollups (summaries) still equal the raw rows.
    @Test func aBackwardsStepKeepsDownsamplingAndSummariesIntact() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let clock = FakeSystemClock(wall: june2026Micros + 30 * 60_000_000, sync: .synchronised)
        let logger = try Logger(dir.file("a.db"), clock: clock)
        for k in 0..<360 {
            clock.advance(5)
            logger.hear(heard(k, clock, sensor: UInt64(k % 3)))
            logger.tick()
            if k == 180 { clock.wall -= 30 * 60_000_000 }
        }
        try logger.close()
        #expect(logger.trust.statistics.held == 0)
        let stats = logger.store.statistics
        #expect(stats.committedRows + stats.mergedRows > 0)
        #expect(try logger.store.checkInvariants() == [])
        let reader = try StoreReader(path: dir.file("a.db"))
        #expect(try reader.verifyRollups() == [])
        // Every reading is in a row: none taken for a replay, since none fell in a stored row's span.
        #expect(try exportAll(reader).rows.reduce(0) { $0 + $1.samples } == 360)
    }
}
