import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// Why a store operation failed, in one line.
///
/// SQLite failures keep the extended result code, `sqlite3_errmsg` at the time of failure and what
/// we were attempting (e.g. "commit batch of 120 rows"), so a log line is enough to act on.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An `sqlite3_*` call failed.
    case sqlite(code: Int32, message: String, attempted: String)
    /// The database was written by a newer blesensor-log; it was opened only to read its version
    /// and was not modified.
    case newerSchema(path: String, found: Int32, supported: Int32)
    /// The file is an SQLite database, but not a blesensor-log store; it was not modified.
    case foreignDatabase(path: String, reason: String)
    /// No stored sensor matches the address or alias the user gave.
    case unknownSensor(String)
    /// A caller passed a value the store cannot use (empty alias, reversed time range, …).
    case invalidArgument(String)

    /// The primary SQLite result code (`code & 0xFF`), or `nil` when the error is not SQLite's.
    public var sqliteCode: Int32? {
        if case .sqlite(let code, _, _) = self { return code & 0xFF }
        return nil
    }

    /// The extended SQLite result code, or `nil` when the error is not SQLite's.
    public var sqliteExtendedCode: Int32? {
        if case .sqlite(let code, _, _) = self { return code }
        return nil
    }

    /// What went wrong, in the terms a caller acts on (an exit code, a message), without SQLite's codes.
    public enum Kind: Sendable, Equatable {
        /// The file is not a blesensor-log database (another application's, or not SQLite at all).
        case notOurs
        /// Written by a newer blesensor-log.
        case newerVersion
        /// Ours, but damaged (SQLITE_CORRUPT).
        case damaged
        /// The file or its folder cannot be opened or created.
        case cannotOpen
        /// Opened, but not writable: read-only file or medium, no permission.
        case readOnly
        /// The disk (or the `max_page_count` limit) is full.
        case diskFull
        /// Another connection holds the lock longer than the busy timeout.
        case busy
        /// Any other failure of the database or the file system.
        case io
        /// No stored sensor matches what the user named.
        case unknownSensor
        /// A caller passed a value the store cannot use.
        case invalidArgument
    }

    public var kind: Kind {
        switch self {
        case .newerSchema: return .newerVersion
        case .foreignDatabase: return .notOurs
        case .unknownSensor: return .unknownSensor
        case .invalidArgument: return .invalidArgument
        case .sqlite(let code, _, _):
            switch code & 0xFF {
            case SQLITE_NOTADB: return .notOurs
            case SQLITE_CORRUPT: return .damaged
            case SQLITE_CANTOPEN: return .cannotOpen
            case SQLITE_READONLY, SQLITE_PERM, SQLITE_AUTH: return .readOnly
            case SQLITE_FULL: return .diskFull
            case SQLITE_BUSY, SQLITE_LOCKED: return .busy
            default: return .io
            }
        }
    }

    /// The disk (or the `max_page_count` limit) is full: retry later, nothing was written.
    public var isDiskFull: Bool { sqliteCode == SQLITE_FULL }
    /// Another connection holds the write lock longer than our busy timeout: retry later.
    public var isBusy: Bool { sqliteCode == SQLITE_BUSY || sqliteCode == SQLITE_LOCKED }

    public var description: String {
        switch self {
        case .sqlite(let code, let message, let attempted):
            let name = String(cString: sqlite3_errstr(code))
            return "store: \(attempted): \(message) (sqlite3 code \(code): \(name))"
        case .newerSchema(let path, let found, let supported):
            return "store: \(path) was written by a newer blesensor-log (schema version \(found), this build knows "
                + "up to \(supported)); upgrade blesensor-log, the file was left untouched"
        case .foreignDatabase(let path, let reason):
            return "store: \(path) is not a blesensor-log database (\(reason)); the file was left untouched"
        case .unknownSensor(let what):
            return "store: no stored sensor matches '\(what)'"
        case .invalidArgument(let what):
            return "store: \(what)"
        }
    }
}

/// Process-wide SQLite settings, applied once before the first connection opens (a global is
/// initialized lazily, exactly once, and thread-safely), and the result of `sqlite3_initialize`.
///
/// - SQLITE_CONFIG_MEMSTATUS off. With it on (the default) every sqlite3_malloc and sqlite3_free
///   takes a global mutex to keep the counts of `sqlite3_memory_used`, which nothing here reads;
///   Debian builds SQLite without lookaside, so statements and records hit malloc often. It must
///   come before `sqlite3_initialize` and holds for the whole process, hence this one place. Had
///   something else in the process initialized SQLite first, `sqlite3_config` would answer
///   SQLITE_MISUSE and change nothing: only speed depends on it, so that is not an error.
/// - Threading stays SERIALIZED for SQLite's shared state (malloc, page-cache groups, PRNG):
///   tests, `StoreReader`s and the writer open connections on several threads at once, which
///   SQLITE_CONFIG_SINGLETHREAD would make unsafe. Each connection already skips its own mutex
///   (SQLITE_OPEN_NOMUTEX), which is all SQLITE_CONFIG_MULTITHREAD would add.
private let sqliteInitialized: Int32 = {
    _ = csqlite_config_memstatus(0)
    return sqlite3_initialize()
}()

/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before `bind` returns. (The C macro is the
/// integer -1 cast to the destructor type, which Swift cannot import; the cast is its definition.)
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection. Not thread-safe: it belongs to one thread of control, like the logger loop.
///
/// Every `sqlite3_*` result is checked; a failure becomes a `StoreError` carrying `sqlite3_errmsg`.
final class Connection {
    let handle: OpaquePointer
    let path: String

    /// Opens `path`. `create` allows creating a missing file; `readOnly` opens without write access.
    /// `immutable` (read-only only) tells SQLite that nothing changes the file while it is open: no
    /// locks, no `-shm` or `-wal` files, which is how a WAL database is read where they cannot be
    /// created (see `Schema.openForReading` for when that holds).
    init(path: String, readOnly: Bool, create: Bool, immutable: Bool = false, busyTimeoutMillis: Int32)
        throws(StoreError)
    {
        guard sqliteInitialized == SQLITE_OK else {
            // SQLite could not allocate its own mutexes or memory: nothing can be opened.
            throw .sqlite(
                code: sqliteInitialized, message: String(cString: sqlite3_errstr(sqliteInitialized)),
                attempted: "initialize SQLite to open \(path)")
        }
        if let kind = Self.nonFileKind(path) { throw .foreignDatabase(path: path, reason: "it is \(kind), not a file") }
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        // NOMUTEX: each connection is used by one thread only (see the type's comment).
        flags |= SQLITE_OPEN_NOMUTEX
        var name = path
        if immutable && readOnly {
            flags |= SQLITE_OPEN_URI
            name = Self.fileURI(path) + "?immutable=1"
        }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            // Even on failure SQLite usually returns a handle that holds the message; close it.
            var message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let db {
                // A new file in a folder that takes none (a read-only card) fails twice, and SQLite
                // keeps the second errno, its read-only retry's "No such file": the folder's is why.
                var errno = sqlite3_system_errno(db)
                if create, !readOnly, (rc & 0xFF) == SQLITE_CANTOPEN, let folder = Self.folderRefusingNewFiles(path) {
                    errno = folder
                }
                if errno != 0 { message += " (\(String(cString: strerror(errno))))" }
                sqlite3_close_v2(db)
            }
            throw .sqlite(code: rc, message: message, attempted: "open \(path)")
        }
        self.handle = db
        self.path = path
        // Extended codes tell SQLITE_IOERR_WRITE from SQLITE_IOERR_FSYNC etc. in the log line.
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMillis)
    }

    /// Why no new file can be made at `path`, which does not exist: the errno of its folder's
    /// write check (EROFS, EACCES), or `nil` when the file exists or its folder takes files.
    static func folderRefusingNewFiles(_ path: String) -> Int32? {
        guard access(path, F_OK) != 0 else { return nil }
        return access(folder(of: path), W_OK) == 0 ? nil : errno
    }

    /// The folder holding `path`: `/` for a file in the root, `.` for a bare file name.
    static func folder(of path: String) -> String {
        path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    }

    /// What `path` is when it exists and is not a regular file ("a FIFO", "a directory"), else `nil`.
    /// SQLite's open of a FIFO waits for a writer for ever; a directory or a device is no database.
    static func nonFileKind(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }  // missing: the open creates or reports it
        switch st.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }

    /// `path` as an SQLite `file:` URI (https://sqlite.org/uri.html): `%`, `?` and `#` and bytes
    /// outside printable ASCII percent-encoded; an absolute path gets the empty authority
    /// (`file:///…`), so that one starting with `//` is not read as a host name.
    static func fileURI(_ path: String) -> String {
        var out = path.hasPrefix("/") ? "file://" : "file:"
        for b in path.utf8 {
            if b > 0x20, b < 0x7F, b != UInt8(ascii: "%"), b != UInt8(ascii: "?"), b != UInt8(ascii: "#") {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(b >> 4)], hex[Int(b & 15)]], as: UTF8.self)
            }
        }
        return out
    }

    deinit {
        // sqlite3_close_v2 defers the close until the last statement is finalized; statements hold
        // a strong reference to this connection, so none is alive here.
        sqlite3_close_v2(handle)
    }

    /// The error for a failed call, with the connection's current message.
    func error(_ rc: Int32, _ attempted: @autoclosure () -> String) -> StoreError {
        var message = String(cString: sqlite3_errmsg(handle))
        let errno = sqlite3_system_errno(handle)
        if (rc & 0xFF) == SQLITE_CANTOPEN || (rc & 0xFF) == SQLITE_IOERR, errno != 0 {
            message += " (\(String(cString: strerror(errno))))"
        }
        return .sqlite(code: rc, message: message, attempted: attempted())
    }

    /// Runs SQL without results (DDL, pragmas that return nothing, BEGIN/COMMIT).
    func exec(_ sql: String, _ attempted: @autoclosure () -> String) throws(StoreError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc, attempted()) }
    }

    func prepare(_ sql: String) throws(StoreError) -> Statement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc, "prepare \(sql.prefix(60))") }
        return Statement(stmt, self)
    }

    /// The single integer a query like `PRAGMA user_version` returns.
    func scalarInt(_ sql: String) throws(StoreError) -> Int64? {
        let s = try prepare(sql)
        guard try s.step() else { return nil }
        return s.isNull(0) ? nil : s.int64(0)
    }

    /// The single text a query like `PRAGMA journal_mode=WAL` returns.
    func scalarText(_ sql: String) throws(StoreError) -> String? {
        let s = try prepare(sql)
        guard try s.step() else { return nil }
        return s.text(0)
    }

    /// The rowid of the last successful INSERT into a rowid table on this connection.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Rows changed by the last INSERT/UPDATE/DELETE on this connection.
    var changes: Int { Int(sqlite3_changes(handle)) }
    /// `true` outside an explicit transaction (SQLite rolls back on some errors by itself).
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Rolls back if a transaction is open. Used on error paths, so its own failure is reported
    /// to the caller's log rather than thrown over the original error.
    func rollbackIfNeeded() -> StoreError? {
        guard !isAutocommit else { return nil }
        let rc = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
        return rc == SQLITE_OK ? nil : error(rc, "roll back")
    }
}

/// A prepared statement. Parameters are 1-based, columns 0-based, as in the C API.
final class Statement {
    let handle: OpaquePointer
    let connection: Connection

    init(_ handle: OpaquePointer, _ connection: Connection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    private func check(_ rc: Int32, _ what: String) throws(StoreError) {
        guard rc == SQLITE_OK else { throw connection.error(rc, what) }
    }

    func bind(_ i: Int32, _ v: Int64) throws(StoreError) { try check(sqlite3_bind_int64(handle, i, v), "bind") }
    func bind(_ i: Int32, _ v: Int) throws(StoreError) { try bind(i, Int64(v)) }
    func bind(_ i: Int32, _ v: Double) throws(StoreError) { try check(sqlite3_bind_double(handle, i, v), "bind") }
    func bind(_ i: Int32, _ v: String) throws(StoreError) {
        try check(sqlite3_bind_text(handle, i, v, -1, transient), "bind")
    }
    func bind(_ i: Int32, _ v: [UInt8]) throws(StoreError) {
        // INVARIANT: with `transient` SQLite copies the bytes before returning, so the pointer
        // need not outlive the call.
        let rc = v.withUnsafeBytes { sqlite3_bind_blob(handle, i, $0.baseAddress, Int32($0.count), transient) }
        try check(rc, "bind")
    }
    /// Binds a zero-length blob (an empty measurement list; a nil pointer would bind NULL).
    func bindEmptyBlob(_ i: Int32) throws(StoreError) { try check(sqlite3_bind_zeroblob(handle, i, 0), "bind") }
    /// Binds the pieces of `bytes` ending at `ends` (the first starting at 0) to parameters
    /// `first`, `first + stride`, … without copying them, then runs the statement and resets it
    /// keeping its bindings (`resetKeepingBindings`): for the writer's multi-row INSERTs, whose
    /// other parameters the caller has bound.
    func runBindingPieces(of bytes: [UInt8], ends: [Int], first: Int32, stride: Int32) throws(StoreError) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(StoreError) in
            // INVARIANT: SQLite reads a static (nil-destructor) blob at step only, and the run
            // below ends within this closure, while `buffer` is valid and unchanged.
            var p = first
            var start = 0
            for end in ends {
                let piece = UnsafeBufferPointer(rebasing: buffer[start..<end])
                if let base = piece.baseAddress, !piece.isEmpty {
                    try check(sqlite3_bind_blob(handle, p, base, Int32(piece.count), nil), "bind")
                } else {
                    try bindEmptyBlob(p)
                }
                start = end
                p += stride
            }
            defer { resetKeepingBindings() }
            try run()
        }
    }
    func bindNull(_ i: Int32) throws(StoreError) { try check(sqlite3_bind_null(handle, i), "bind") }
    func bind(_ i: Int32, _ v: String?) throws(StoreError) {
        if let v { try bind(i, v) } else { try bindNull(i) }
    }
    func bind(_ i: Int32, _ v: Double?) throws(StoreError) {
        if let v { try bind(i, v) } else { try bindNull(i) }
    }
    func bind(_ i: Int32, _ v: Int64?) throws(StoreError) {
        if let v { try bind(i, v) } else { try bindNull(i) }
    }

    /// Steps once: `true` with a row to read, `false` when done. Errors reset the statement.
    func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let err = connection.error(rc, "run \(String(cString: sqlite3_sql(handle)).prefix(60))")
        sqlite3_reset(handle)
        throw err
    }

    /// Runs to completion (for statements that return no rows, or whose rows are ignored).
    func run() throws(StoreError) {
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Ready for new bindings. Its result repeats the last step's error, already thrown, so it is
    /// deliberately not checked.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// `reset` without clearing the bindings, for statements whose every parameter is bound
    /// again before each step (the writer's multi-row INSERTs), where clearing them is wasted
    /// work. A blob bound by `runBindingPieces` then stays bound after its buffer is
    /// freed, which is sound only because SQLite reads a binding at step and nowhere else we
    /// call (no `sqlite3_expanded_sql`), and the next step comes after the rebinding.
    func resetKeepingBindings() {
        sqlite3_reset(handle)
    }

    func int64(_ c: Int32) -> Int64 { sqlite3_column_int64(handle, c) }
    func int(_ c: Int32) -> Int { Int(sqlite3_column_int64(handle, c)) }
    func double(_ c: Int32) -> Double { sqlite3_column_double(handle, c) }
    func isNull(_ c: Int32) -> Bool { sqlite3_column_type(handle, c) == SQLITE_NULL }
    func text(_ c: Int32) -> String? {
        guard let p = sqlite3_column_text(handle, c) else { return nil }
        return String(cString: p)
    }
    /// Calls `body` with the bytes of column `c` of the current row, empty for NULL or a
    /// zero-length blob.
    @inline(__always)
    func withBlob<R, E: Error>(_ c: Int32, _ body: (Span<UInt8>) throws(E) -> R) throws(E) -> R {
        // INVARIANT: sqlite3_column_blob's memory stays valid until the statement steps, resets
        // or converts the column, none of which happens while `body` runs; the span cannot
        // outlive `body`. (Blob before bytes, as SQLite documents.)
        let p = sqlite3_column_blob(handle, c)
        let n = Int(sqlite3_column_bytes(handle, c))
        guard let p, n > 0 else { return try body(Span()) }
        return try body(UnsafeBufferPointer(start: p.bindMemory(to: UInt8.self, capacity: n), count: n).span)
    }
}
