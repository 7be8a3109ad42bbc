import CSQLite
import Foundation
import SensorDecode
import Testing

@testable import SensorStore

/// `StoreBackup.copy`: one committed snapshot of a store another connection holds open and
/// writes, in one self-contained file; on failure the destination as it was.
@Suite struct StoreBackupTests {
    let t0: Int64 = 1_700_000_000_000_000

    func reading(_ k: Int) -> Reading {
        Reading(
            address: BDAddress(rawValue: 0xA4C1_3800_0000 | UInt64(k % 4)), decoderID: "test", model: "M",
            measurements: [Measurement(.temperatureC, Double(k % 1000) / 10)],
            timeMicros: t0 + Int64(k) * 60_000_000, rssi: -60)
    }

    func writer(_ path: String) throws -> SensorStore {
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        return try SensorStore(path: path, configuration: config)
    }

    func readingCount(_ path: String) throws -> Int64? {
        try Connection(path: path, readOnly: true, create: false, busyTimeoutMillis: 1000)
            .scalarInt("SELECT count(*) FROM readings")
    }

    @Test func theCopyHasWhatIsCommittedInTheWALAndNotAnOpenTransaction() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let source = dir.file("r.db")
        let store = try writer(source)
        for k in 0..<500 { _ = store.add(reading(k), now: 0) }
        _ = store.flush(now: 0)
        // The writer still has the file open: its commits are in the WAL, not yet in the file.
        #expect(((try? FileManager.default.attributesOfItem(atPath: source + "-wal"))?[.size] as? Int ?? 0) > 0)
        // Another writer's transaction, open during the copy.
        let other = try Connection(path: source, readOnly: false, create: false, busyTimeoutMillis: 1000)
        try other.exec("BEGIN IMMEDIATE", "begin")
        try other.exec("DELETE FROM readings", "delete")

        let copy = try StoreBackup.copy(source, replacing: dir.file("copy.db"))
        try other.exec("ROLLBACK", "roll back")

        #expect(try readingCount(dir.file("copy.db")) == 500)
        #expect(copy.bytes == Int64((try FileManager.default.attributesOfItem(atPath: dir.file("copy.db")))[.size] as? Int ?? -1))
        #expect(fileBytes(dir.file("copy.db"))?[18...19] == [1, 1], "rollback-journal mode: one file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["copy.db", "r.db", "r.db-shm", "r.db-wal"])
        try store.close(now: 1)
    }

    /// A store of more than a few steps' pages: a few readings and 20 MB of filler in `meta`.
    func largeStore(_ path: String) throws {
        let store = try writer(path)
        for k in 0..<50 { _ = store.add(reading(k), now: 0) }
        try store.close(now: 0)
        try Connection(path: path, readOnly: false, create: false, busyTimeoutMillis: 1000)
            .exec("INSERT INTO meta VALUES ('test-filler', randomblob(20000000))", "filler")
    }

    @Test func aCommitBetweenTwoStepsIsNotInTheCopyAndDoesNotRestartIt() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let source = dir.file("r.db")
        try largeStore(source)
        let other = try Connection(path: source, readOnly: false, create: false, busyTimeoutMillis: 1000)
        var steps = 0
        _ = try StoreBackup.copy(source, replacing: dir.file("copy.db")) {
            steps += 1
            if steps == 2 { try? other.exec("DELETE FROM readings", "a writer's commit between two steps") }
            return false
        }
        #expect(steps > 2 && steps < 20, "\(steps) steps: the copy restarted, or was not made in steps")
        #expect(try readingCount(source) == 0, "the writer's commit took effect")
        #expect(try readingCount(dir.file("copy.db")) == 50, "the copy is the snapshot from before it")
    }

    @Test func aStoppedCopyThrowsAndLeavesTheDestinationAsItWas() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        try largeStore(dir.file("r.db"))
        try Data("previous copy".utf8).write(to: URL(fileURLWithPath: dir.file("copy.db")))
        var asked = 0
        #expect {
            try StoreBackup.copy(dir.file("r.db"), replacing: dir.file("copy.db")) {
                asked += 1
                return asked == 2
            }
        } throws: { ($0 as? StoreError)?.sqliteCode == StoreBackup.stoppedCode }
        #expect(fileBytes(dir.file("copy.db")) == Array("previous copy".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("copy") } == ["copy.db"])
    }

    @Test func aSourceThatIsNotOursIsRefusedAndTheDestinationKept() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let foreign = try Connection(path: dir.file("other.db"), readOnly: false, create: true, busyTimeoutMillis: 1000)
        try foreign.exec("CREATE TABLE t(x)", "create")
        try Data("previous copy".utf8).write(to: URL(fileURLWithPath: dir.file("copy.db")))
        #expect {
            try StoreBackup.copy(dir.file("other.db"), replacing: dir.file("copy.db"))
        } throws: { ($0 as? StoreError)?.kind == .notOurs }
        #expect(fileBytes(dir.file("copy.db")) == Array("previous copy".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["copy.db", "other.db"])
    }

    @Test func aMissingFolderIsCannotOpenAndNamesTheDestination() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let store = try writer(dir.file("r.db"))
        _ = store.add(reading(0), now: 0)
        try store.close(now: 0)
        let destination = dir.file("no/such/folder/copy.db")
        #expect {
            try StoreBackup.copy(dir.file("r.db"), replacing: destination)
        } throws: { error in
            guard let e = error as? StoreError else { return false }
            return e.kind == .cannotOpen && e.description.contains(destination) && !e.description.contains(".tmp.")
        }
    }
}
