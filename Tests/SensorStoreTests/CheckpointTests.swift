import Foundation
import SensorDecode
import Testing

@testable import SensorStore

/// WAL checkpoints run on the store's own thread (Checkpointer.swift); the writer checkpoints only
/// when the WAL has grown to four times `checkpointPages`.
@Suite struct CheckpointTests {
    let t0: Int64 = 1_700_000_000_000_000

    /// Reading `k`: 20 sensors in turn, one minute apart each, so every reading is a row.
    func reading(_ k: Int) -> Reading {
        Reading(
            address: BDAddress(rawValue: 0xA4C1_3800_0000 | UInt64(k % 20)), decoderID: "test", model: "M",
            measurements: [Measurement(.temperatureC, Double(k % 1000) / 10), Measurement(.batteryPercent, 90)],
            timeMicros: t0 + Int64(k / 20) * 60_000_000 + Int64(k % 20), rssi: -60)
    }

    func store(_ path: String, checkpointPages: Int) throws -> SensorStore {
        var config = StoreConfiguration(batchRows: 200, checkpointPages: checkpointPages)
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
        // The writer's limit (4 × 16 pages) plus one batch's pages, with room for a reader-less
        // restart that came a few commits late.
        #expect(largest < 8 * (4 * 16 + 16) * (4096 + 24))
        try s.close(now: 1)
        #expect(try s.checkInvariants() == [])
    }

    @Test func afterCloseTheWALIsGoneOnceTheStoreIsReleased() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        do {
            let s = try store(path, checkpointPages: 8)
            for k in 0..<4000 { s.add(reading(k), now: 0) }
            try s.close(now: 1)
            #expect(s.statistics.checkpoints > 0)
        }
        // SQLite removes the WAL when its last connection closes: the checkpoint thread's
        // connection must be closed before the writer's.
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
