import CSQLite

/// The integrity of a store file as SQLite sees it, for `doctor`.
public enum StoreIntegrity {
    public struct Failure: Error { public let message: String }

    /// `PRAGMA quick_check` over a read-only connection, so that a damaged file is never written.
    public static func quickCheck(_ path: String) -> Result<[String], Failure> {
        // Opening a FIFO would wait for ever (see `Connection.nonFileKind`).
        if let kind = Connection.nonFileKind(path) { return .failure(.init(message: "it is \(kind), not a file")) }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil)
        // INVARIANT: a handle SQLite returned is closed exactly once, on every path.
        defer { if let db { sqlite3_close_v2(db) } }
        guard rc == SQLITE_OK, let db else {
            return .failure(.init(message: db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))))
        }
        sqlite3_busy_timeout(db, 5000)
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &stmt, nil) == SQLITE_OK, let stmt else {
            return .failure(.init(message: String(cString: sqlite3_errmsg(db))))
        }
        defer { sqlite3_finalize(stmt) }
        var lines: [String] = []
        while true {
            let step = sqlite3_step(stmt)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else {
                // A header or schema page so damaged that the check cannot run is damage too.
                let message = String(cString: sqlite3_errmsg(db))
                if step & 0xFF == SQLITE_CORRUPT { lines.append(message); break }
                return .failure(.init(message: message))
            }
            lines.append(sqlite3_column_text(stmt, 0).map { String(cString: $0) } ?? "")
        }
        return .success(lines)
    }
}
