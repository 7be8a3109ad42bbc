import CSQLite
import Testing

@testable import SensorStore

/// `StoreError.kind` (SQLite.swift): the CLI's exit codes and messages rest on it.
@Suite struct StoreErrorTests {
    @Test(arguments: [
        (SQLITE_NOTADB, StoreError.Kind.notOurs), (SQLITE_CORRUPT, .damaged), (SQLITE_CANTOPEN, .cannotOpen),
        (SQLITE_READONLY, .readOnly), (SQLITE_PERM, .readOnly), (SQLITE_AUTH, .readOnly), (SQLITE_FULL, .diskFull),
        (SQLITE_BUSY, .busy), (SQLITE_LOCKED, .busy), (SQLITE_IOERR, .io), (SQLITE_ERROR, .io),
    ])
    func sqliteCodesMapToTheirKind(code: Int32, kind: StoreError.Kind) {
        #expect(StoreError.sqlite(code: code, message: "m", attempted: "a").kind == kind)
    }

    /// SQLITE_IOERR_WRITE, SQLITE_BUSY_RECOVERY, SQLITE_CANTOPEN_ISDIR (sqlite3.h; macros Swift does not import).
    @Test func extendedCodesMapAsTheirPrimaryCode() {
        #expect(StoreError.sqlite(code: SQLITE_IOERR | (3 << 8), message: "m", attempted: "a").kind == .io)
        #expect(StoreError.sqlite(code: SQLITE_BUSY | (1 << 8), message: "m", attempted: "a").kind == .busy)
        #expect(StoreError.sqlite(code: SQLITE_CANTOPEN | (2 << 8), message: "m", attempted: "a").kind == .cannotOpen)
    }

    @Test func storeOwnErrorsHaveTheirKind() {
        #expect(StoreError.newerSchema(path: "p", found: 9, supported: 2).kind == .newerVersion)
        #expect(StoreError.foreignDatabase(path: "p", reason: "r").kind == .notOurs)
        #expect(StoreError.unknownSensor("x").kind == .unknownSensor)
        #expect(StoreError.invalidArgument("x").kind == .invalidArgument)
    }
}
