import CSQLite
import Foundation
import SensorDecode
import Testing

@testable import SensorStore

/// WAL checkpoints run on the store's own thread (Checkpointer.swift); the writer checkpoints only
/// when the WAL has grown to four times `checkpointPages`.
@Suite struct CheckpointTests {
    let t0: Int64 = 1_700_000_000_000_000

    /// Reading `k`: `sensors` sensors in turn, one minute apart each, so every reading is a row.
    func reading(_ k: Int, sensors: Int = 20) -> Reading {
        Reading(
            address: BDAddress(rawValue: 0xA4C1_3800_0000 | UInt64(k % sensors)), decoderID: "test", model: "M",
            measurements: [Measurement(.temperatureC, Double(k % 1000) / 10), Measurement(.batteryPercent, 90)],
            timeMicros: t0 + Int64(k / sensors) * 60_000_000 + Int64(k % sensors), rssi: -60)
    }

    func store(_ path: String, checkpointPages: Int, batchRows: Int = 200) throws -> SensorStore {
        var config = StoreConfiguration(batchRows: batchRows, checkpointPages: checkpointPages)
        config.downsample.intervalSeconds = 0
        return try SensorStore(path: path, configuration: config)
    }

    func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Waits (up to 30 s) until `condition` holds; the checkpoint thread runs on its own time.
    func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<3000 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    /// The worker needs a connection of its own. When it cannot have one, every checkpoint runs
    /// in the writer, as SQLite's own did, no thread is started, and the reason is kept for the log.
    @Test func withoutAWorkerConnectionTheWriterCheckpointsItself() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let writer = try Connection(path: dir.file("a.db"), readOnly: false, create: true, busyTimeoutMillis: 1000)
        try writer.exec("PRAGMA journal_mode=WAL", "WAL mode")
        try writer.exec("CREATE TABLE t(x BLOB)", "create")
        // Read-write and not creating, the worker cannot open a file that is not there.
        let checkpointer = Checkpointer(
            path: dir.file("missing.db"), pages: 4, writerLimit: 1000, busyTimeoutMillis: 100)
        defer { checkpointer.stop() }
        #expect(checkpointer.unavailable == .connection(SQLITE_CANTOPEN))
        #expect(checkpointer.result == SQLITE_OK)

        for round in 1...2 {
            for _ in 0..<8 { try writer.exec("INSERT INTO t VALUES (zeroblob(3000))", "insert") }
            checkpointer.committed(walPages: 16 * round, writer: writer.handle)
            #expect(checkpointer.completed.all == round)
            #expect(checkpointer.completed.inWriter == round)
            #expect(checkpointer.result == SQLITE_OK)
            #expect(checkpointer.idle)
        }
        // The rows reached the database file, where only a checkpoint writes in WAL mode (it
        // holds its first pages alone until then).
        #expect(fileSize(dir.file("a.db")) > 16 * 3000)
    }

    /// Leaves this process no room for another thread: new threads get 256 MiB stacks, and the
    /// address space may grow by 32 MiB only. For exit tests (their own process); `nil` if a
    /// limit could not be set.
    static func leaveNoRoomForAThread() -> Bool? {
        // glibc's pthread_setattr_default_np, which its Swift module does not show (_GNU_SOURCE).
        typealias SetDefault = @convention(c) (UnsafePointer<pthread_attr_t>) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setattr_default_np") else { return nil }
        let setDefault = unsafeBitCast(symbol, to: SetDefault.self)
        var attr = pthread_attr_t()
        guard pthread_attr_init(&attr) == 0, pthread_attr_setstacksize(&attr, 256 << 20) == 0, setDefault(&attr) == 0
        else { return nil }
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        guard let pages = statm.split(separator: " ").first.flatMap({ Int($0) }) else { return nil }
        let limit = rlim_t(pages * Int(sysconf(Int32(_SC_PAGESIZE))) + 32 << 20)
        var r = rlimit(rlim_cur: limit, rlim_max: limit)
        return setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &r) == 0 ? true : nil
    }

    /// The worker also needs a thread. When `pthread_create` fails, every checkpoint runs in the
    /// writer and the reason is kept for the log. In a process of its own, whose address space is
    /// limited; it exits non-zero at the first check that fails (the check's number).
    @Test func withoutAWorkerThreadTheWriterCheckpointsItself() async {
        await #expect(processExitsWith: .success) {
            let dir = TempDir()
            defer { dir.cleanup() }
            func check(_ ok: Bool, _ step: Int32) { if !ok { exit(step) } }
            guard let writer = try? Connection(path: dir.file("a.db"), readOnly: false, create: true, busyTimeoutMillis: 1000),
                (try? writer.exec("PRAGMA journal_mode=WAL", "WAL mode")) != nil,
                (try? writer.exec("CREATE TABLE t(x BLOB)", "create")) != nil
            else { exit(2) }
            let checkpointer = Checkpointer(path: dir.file("a.db"), pages: 4, writerLimit: 1000, busyTimeoutMillis: 100)
            check(checkpointer.unavailable == nil, 3)  // the connection opened: only the thread fails
            check(CheckpointTests.leaveNoRoomForAThread() != nil, 4)
            for round in 1...2 {
                for _ in 0..<8 { check((try? writer.exec("INSERT INTO t VALUES (zeroblob(3000))", "insert")) != nil, 5) }
                checkpointer.committed(walPages: 16 * round, writer: writer.handle)
                check(checkpointer.completed.all == round, 10 + Int32(round))
                check(checkpointer.completed.inWriter == round, 20 + Int32(round))
                check(checkpointer.idle, 30 + Int32(round))
                check(checkpointer.result == SQLITE_OK, 40 + Int32(round))
            }
            guard case .thread = checkpointer.unavailable else { exit(50) }
            checkpointer.stop()
        }
    }

    /// The same through the store: its rows are committed and checkpointed, and it says once why
    /// its checkpoints run in the logger's thread.
    @Test func aStoreWithoutACheckpointThreadSaysSoOnceAndLosesNothing() async {
        await #expect(processExitsWith: .success) {
            let dir = TempDir()
            defer { dir.cleanup() }
            func check(_ ok: Bool, _ step: Int32) { if !ok { exit(step) } }
            final class Lines: @unchecked Sendable { var all: [String] = [] }
            let lines = Lines()
            let path = dir.file("a.db")
            var config = StoreConfiguration(batchRows: 200, checkpointPages: 16)
            config.downsample.intervalSeconds = 0
            guard let s = try? SensorStore(path: path, configuration: config, log: { lines.all.append($0) }) else { exit(2) }
            check(CheckpointTests.leaveNoRoomForAThread() != nil, 3)
            let test = CheckpointTests()
            for k in 0..<4000 { _ = s.add(test.reading(k), now: 0) }
            let st = s.statistics
            check(st.committedBatches == 20, 4)
            check(st.checkpoints >= 5 && st.checkpointsInWriter == st.checkpoints, 5)
            check(lines.all.filter { $0.contains("checkpoint thread has no thread") }.count == 1, 6)
            check(lines.all.count == 1, 7)
            check((try? s.close(now: 1)) != nil, 8)
            check((try? s.checkInvariants()) == [], 9)
            check((try? exportAll(StoreReader(path: path)).rows.count) == 4000, 10)
        }
    }

    @Test func checkpointsRunOnTheStoresThreadWhileTheWriterOnlyCommits() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        let s = try store(path, checkpointPages: 16)
        // Commits with time between them, as the logger's (seconds apart): each checkpoint asked
        // for is done before the next commit, so the WAL never reaches the writer's limit.
        for k in 0..<4000 {
            if case .committed = s.add(reading(k), now: 0) { #expect(eventually { s.checkpointsIdle }) }
        }
        let st = s.statistics
        #expect(st.committedBatches == 20)
        #expect(st.checkpoints >= 5)
        #expect(st.checkpointsInWriter == 0)
        try s.close(now: 1)
        #expect(try s.checkInvariants() == [])
        #expect(try exportAll(StoreReader(path: path)).rows.count == 4000)
    }

    @Test func aCheckpointFollowsEveryCheckpointPagesOfTheWALEvenAfterItStartedOver() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let s = try store(dir.file("a.db"), checkpointPages: 64, batchRows: 20)
        // Two sensors, small commits (a few pages each), time between them: each checkpoint comes
        // once 64 pages are uncopied, and the WAL starts over at the commit after it. Counting
        // from what the previous WAL had copied would let a started-over WAL grow to twice that.
        for k in 0..<20_000 {
            if case .committed = s.add(reading(k, sensors: 2), now: 0) { #expect(eventually { s.checkpointsIdle }) }
        }
        #expect(s.statistics.checkpoints >= 10)
        #expect(s.statistics.checkpointsInWriter == 0)
        #expect(s.largestWALPages >= 64)
        #expect(s.largestWALPages < 64 + 16)
        try s.close(now: 1)
    }

    @Test func aReaderHoldingASnapshotLetsTheWALGrowAndItStartsOverAfter() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        let s = try store(path, checkpointPages: 16)
        for k in 0..<2000 { s.add(reading(k), now: 0) }
        s.flush(now: 0)
        let bound = (4 * 16 + 16) * (4096 + 24)
        var k = 2000
        do {
            // An export in progress holds its snapshot: no checkpoint may copy past it, so the
            // WAL grows past the writer's limit (the store keeps working).
            let reader = try StoreReader(path: path)
            let cursor = try reader.export(range: .all, sensors: [])
            _ = try cursor.next()
            for _ in 0..<20_000 {
                s.add(reading(k), now: 0)
                k += 1
            }
            s.flush(now: 0)
            #expect(fileSize(path + "-wal") > 2 * bound)
            #expect(s.currentFailure == nil)
        }
        // Reader gone: the writer's next checkpoints copy everything, the WAL starts over and is
        // cut back to the kept size.
        for _ in 0..<2000 {
            s.add(reading(k), now: 0)
            k += 1
        }
        s.flush(now: 0)
        #expect(eventually { s.checkpointsIdle })
        for _ in 0..<400 {
            s.add(reading(k), now: 0)
            k += 1
        }
        s.flush(now: 0)
        // Kept at up to the writer's limit and `checkpointPages`, and a commit's pages past them.
        #expect(fileSize(path + "-wal") <= bound + 40 * (4096 + 24) + 32)
        try s.close(now: 1)
        #expect(try s.checkInvariants() == [])
    }

    @Test func theWALStaysBoundedWhenCommitsComeFasterThanCheckpoints() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        let s = try store(path, checkpointPages: 16)
        var largest = 0
        // Back-to-back commits: the thread is often mid-checkpoint when a commit appends, and the
        // WAL can only start over from its beginning once every page is copied. Without any
        // checkpoint, the WAL would hold every page written: several MB here.
        for k in 0..<40_000 {
            if case .committed = s.add(reading(k), now: 0) { largest = max(largest, fileSize(path + "-wal")) }
        }
        let st = s.statistics
        #expect(st.committedBatches == 200)
        #expect(st.checkpoints > 10)
        // Up to the writer's limit (4 × 16 pages), its commit's pages past it, and the next
        // commit's, which starts the WAL over (a commit here writes ~30 pages).
        #expect(largest <= (4 * 16 + 2 * 40) * (4096 + 24) + 32)
        try s.close(now: 1)
        #expect(try s.checkInvariants() == [])
    }

    @Test(arguments: [true, false])
    func theWALIsGoneOnceTheStoreIsReleased(closedFirst: Bool) throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        do {
            let s = try store(path, checkpointPages: 8)
            for k in 0..<4000 { s.add(reading(k), now: 0) }
            if closedFirst { try s.close(now: 1) } else { s.flush(now: 1) }
            #expect(s.statistics.checkpoints > 0)
        }
        // SQLite removes the WAL when the last connection to the file closes: the checkpoint
        // thread must have ended and let go of its connection, with `close` or without.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(try exportAll(StoreReader(path: path)).rows.count == 4000)
    }

    @Test func aStoreUsedAgainAfterCloseStillCheckpoints() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let s = try store(dir.file("a.db"), checkpointPages: 16)
        for k in 0..<2000 { s.add(reading(k), now: 0) }
        try s.close(now: 1)
        let before = s.statistics
        for k in 2000..<6000 {
            if case .committed = s.add(reading(k), now: 2) { #expect(eventually { s.checkpointsIdle }) }
        }
        // The thread's own checkpoints went on (the writer may have done the first, had the
        // first part left a long WAL behind).
        let after = s.statistics
        #expect(after.checkpoints - after.checkpointsInWriter > before.checkpoints - before.checkpointsInWriter)
        try s.close(now: 3)
    }
}
