import Foundation
import SensorDecode
import TestSupport
import Testing

@testable import SensorStore

#if canImport(Glibc)
    import Glibc
#endif

/// The reader's read-only open where the `-shm` cannot be created (a read-only mount, the logger
/// stopped): it reads the file without locks, and a writer that comes meanwhile is noticed, not
/// mixed into what it reads.
@Suite(.serialized)
struct StoreReaderTests {
    /// Bind mounts need root with CAP_SYS_ADMIN (this container, the test VM).
    static let canMount: Bool = {
        guard getuid() == 0 else { return false }
        let dir = TempDir("probe"), point = TempDir("probepoint")
        defer {
            dir.cleanup()
            point.cleanup()
        }
        guard sh(["mount", "--bind", dir.path, point.path]) == 0 else { return false }
        _ = sh(["umount", point.path])
        return true
    }()

    /// Writes `count` readings of 3 sensors, starting at reading `first`, and closes the store.
    func write(_ path: String, from first: Int, count: Int) throws(StoreError) {
        let store = try SensorStore(path: path, log: { _ in })
        for k in first..<(first + count) { _ = store.add(tortureReading(k, sensors: 3), now: Double(k)) }
        try store.close(now: Double(first + count))
    }

    @Test(.enabled(if: canMount, "needs root with bind mounts to make a read-only mount"))
    func aReadOnlyMountIsReadUnlockedAndAWriterThatComesIsNoticed() throws {
        try withReadOnlyMount { dir, point in
            let db = dir.file("a.db")
            try write(db, from: 0, count: 30)

            let reader = try StoreReader(path: point.file("a.db"))
            #expect(try exportAll(reader).rows.count == 30)
            #expect(try reader.summary().map(\.rows).reduce(0, +) == 30)

            // An export under way when the logger opens the file through the writable path: it ends
            // with an error instead of a mix of two states.
            let cursor = try reader.export()
            _ = try cursor.next()
            try write(db, from: 30, count: 30)
            #expect(throws: StoreError.self) { while try cursor.next() != nil {} }

            // The next query opens the file again: it sees everything committed.
            #expect(try reader.summary().map(\.rows).reduce(0, +) == 60)
            #expect(try exportAll(reader).rows.count == 60)

            // A writer that comes during a query fails it too (its rows may already be printed).
            var calls = 0
            #expect(throws: StoreError.self) {
                try reader.forEachSensorSummary { (_: SensorInfo, _: [SensorSummary]) throws(StoreError) in
                    calls += 1
                    if calls == 1 { try write(db, from: 60, count: 3) }
                }
            }
            #expect(calls >= 1)
            #expect(try reader.summary().map(\.rows).reduce(0, +) == 63)
        }
    }
}
