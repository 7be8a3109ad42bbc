import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// A consistent copy of a store, made while the logger may be writing it, with SQLite's online
/// backup (https://sqlite.org/backup.html).
///
/// Copying the file itself is not a backup of a WAL database: the newest commits are in the
/// `-wal` file beside it, and a copy taken during a checkpoint mixes two states. The online backup
/// reads the whole source in one read transaction, one committed snapshot, while a writer in WAL
/// mode goes on committing; what it writes is one self-contained file, with no `-wal` to carry.
public enum StoreBackup {
    /// A copy that was made and checked.
    public struct Copy: Sendable, Equatable {
        /// The copy's size.
        public var bytes: Int64
    }

    /// Copies the store at `source` to `destination`, replacing what is there only with a whole,
    /// checked copy.
    ///
    /// The source is opened for reading only (a file that is not ours, newer or damaged is never
    /// written). The copy is written to a temporary file beside `destination`, checked with
    /// `PRAGMA quick_check`, synced, and renamed over it; the folder is synced after the rename.
    /// On any failure before the rename the temporary file is removed and `destination` is as it
    /// was; a failed folder sync after it leaves the whole copy in place, maybe not yet durable.
    ///
    /// `shouldStop` is asked between steps of `pagesPerStep` pages; when it says yes the copy ends
    /// with an error of code `stoppedCode`, nothing written (a Ctrl-C on a long copy to a USB stick).
    public static func copy(
        _ source: String, replacing destination: String, busyTimeoutMillis: Int32 = 5000,
        shouldStop: () -> Bool = { false }
    ) throws(StoreError) -> Copy {
        let (from, access) = try Schema.openForReading(path: source, busyTimeoutMillis: busyTimeoutMillis)
        // The process id keeps two backups (a timer and a user) off each other's file; one left
        // by a killed backup of the same id is ours to remove.
        let temporary = destination + ".tmp.\(getpid())"
        func removeTemporary() { for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) } }
        removeTemporary()
        do throws(StoreError) {
            let copy = try write(from, to: temporary, busyTimeoutMillis: busyTimeoutMillis, shouldStop: shouldStop)
            // Read without locks (a read-only folder, no writer then): a writer that came since
            // may have changed the file under the copy.
            if access.writerCame {
                throw StoreError.sqlite(code: SQLITE_BUSY, message: "a writer opened the database during the copy", attempted: "")
            }
            try check(temporary)
            if rename(temporary, destination) != 0 { throw systemError("rename the copy over it") }
            if !syncFolder(of: destination) { throw systemError("sync its folder") }
            return copy
        } catch {
            removeTemporary()
            // The temporary file is ours; the user named the destination.
            guard case .sqlite(let code, let message, _) = error else { throw error }
            throw .sqlite(code: code, message: message, attempted: "back up \(source) to \(destination)")
        }
    }

    /// Pages copied between two questions to `shouldStop`: 4 MiB of 4 KiB pages, well under a
    /// second on a Pi Zero's SD card.
    static let pagesPerStep: Int32 = 1024

    /// The primary code of the error a copy stopped by `shouldStop` throws.
    public static let stoppedCode = SQLITE_INTERRUPT

    /// An I/O failure with `errno`'s reason.
    private static func systemError(_ what: String) -> StoreError {
        .sqlite(code: SQLITE_IOERR, message: "cannot \(what) (\(String(cString: strerror(errno))))", attempted: "")
    }

    /// `fsync` of the folder holding `path`, so that the rename survives a power cut.
    private static func syncFolder(of path: String) -> Bool {
        let fd = open(Connection.folder(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return fsync(fd) == 0
    }

    /// The online backup of `from` into a new file at `path`, in rollback-journal mode.
    /// The whole file is synced at each commit (`synchronous=FULL`), so the rename that follows
    /// never puts a part of it in place.
    private static func write(
        _ from: Connection, to path: String, busyTimeoutMillis: Int32, shouldStop: () -> Bool
    ) throws(StoreError) -> Copy {
        // No other connection knows the new file: it is never busy. The callers name the files
        // in their message (`attempted`).
        let to = try Connection(path: path, readOnly: false, create: true, busyTimeoutMillis: 0)
        let attempted = ""
        try to.exec("PRAGMA synchronous=FULL", attempted)
        // One read transaction on the source for the whole copy: the backup uses it instead of
        // taking one per step, so every step reads the same snapshot, and a writer's commit
        // between two steps neither mixes states nor restarts the copy.
        try Schema.whileBusy(timeoutMillis: busyTimeoutMillis) { () throws(StoreError) in
            try from.exec("BEGIN", attempted)
            do throws(StoreError) {
                _ = try from.scalarInt("SELECT count(*) FROM sqlite_schema")
            } catch {
                _ = from.rollbackIfNeeded()
                throw error
            }
        }
        defer { _ = from.rollbackIfNeeded() }
        // Unsafe: the backup handle is valid from a non-nil init to its finish, which is called
        // exactly once below, before either connection can be closed (both outlive this scope).
        guard let backup = sqlite3_backup_init(to.handle, "main", from.handle, "main") else {
            throw to.error(sqlite3_extended_errcode(to.handle), attempted)
        }
        var stepped: Int32 = SQLITE_OK
        do throws(StoreError) {
            repeat {
                if shouldStop() {
                    throw StoreError.sqlite(code: stoppedCode, message: "stopped before the copy was whole", attempted: attempted)
                }
                // A step that finds a file locked (SQLITE_BUSY/LOCKED) copied nothing and may be retried.
                try Schema.whileBusy(timeoutMillis: busyTimeoutMillis) { () throws(StoreError) in
                    stepped = sqlite3_backup_step(backup, pagesPerStep)
                    if stepped == SQLITE_BUSY || stepped == SQLITE_LOCKED {
                        throw StoreError.sqlite(code: stepped, message: "the database is locked", attempted: attempted)
                    }
                }
            } while stepped == SQLITE_OK
        } catch {
            sqlite3_backup_finish(backup)
            throw error
        }
        // Finish reports the step's error, if any, on the destination connection.
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
            throw to.error(finished != SQLITE_OK ? sqlite3_extended_errcode(to.handle) : stepped, attempted)
        }
        // The copied header says WAL, like the source's: a backup is one file, so that copying
        // it elsewhere or restoring it cannot leave its newest pages behind in a `-wal`.
        guard try to.scalarText("PRAGMA journal_mode=DELETE") == "delete" else {
            throw .sqlite(code: SQLITE_ERROR, message: "the copy stayed in WAL mode", attempted: attempted)
        }
        let pages = try to.scalarInt("PRAGMA page_count") ?? 0
        let pageSize = try to.scalarInt("PRAGMA page_size") ?? 0
        return Copy(bytes: pages * pageSize)
    }

    /// `PRAGMA quick_check` of the finished copy, through a connection of its own.
    private static func check(_ path: String) throws(StoreError) {
        switch StoreIntegrity.quickCheck(path) {
        case .success(["ok"]):
            return
        case .success(let problems):
            throw .sqlite(code: SQLITE_CORRUPT, message: problems.prefix(3).joined(separator: "; "), attempted: "")
        case .failure(let failure):
            throw .sqlite(code: SQLITE_IOERR, message: failure.message, attempted: "")
        }
    }
}
