import CSQLite
import Foundation
import TestSupport
import Testing

@testable import SensorStore

/// The process-wide SQLite settings of `Connection` (SQLite.swift).
@Suite struct SQLiteSetupTests {
    @Test func memoryStatisticsAreOffOnceAConnectionHasOpened() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let store = try SensorStore(path: dir.file("a.db"))
        try store.close(now: 0)
        // With SQLITE_CONFIG_MEMSTATUS on, an open connection's schema and page cache count here.
        #expect(sqlite3_memory_used() == 0)
        // Connections still work from several threads at once (threading stayed SERIALIZED).
        #expect(sqlite3_threadsafe() != 0)
    }

    @Test(.enabled(if: StoreReaderTests.canMount, "needs root with bind mounts to make a read-only mount"))
    func aNewDatabaseOnAReadOnlyMountSaysTheFileSystemIsReadOnly() throws {
        // SQLite's read-only retry leaves "No such file or directory" behind; the folder's
        // refusal is the reason a user can act on (a card the kernel remounted read-only).
        try withReadOnlyMount { dir, point in
            do {
                _ = try SensorStore(path: point.file("new.db"), log: { _ in })
                Issue.record("a store opened on a read-only mount")
            } catch let error as StoreError {
                #expect(error.description.contains("(Read-only file system)"), "\(error)")
                #expect(!error.description.contains("No such file"), "\(error)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        }
    }
}
