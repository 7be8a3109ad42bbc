import CSQLite
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
}
