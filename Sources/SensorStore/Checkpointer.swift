import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// WAL checkpoints on a thread of their own, so that the logger never waits for the disk to sync.
///
/// WHY. A checkpoint copies the WAL's pages into the database file and syncs both files. SQLite's
/// default runs it inside the commit that takes the WAL past 1000 pages, so the logger loop stood
/// still for two syncs while the radio kept talking: ~9 ms each on this machine's disk, and tens
/// to hundreds of ms on an SD card. An ingest of 500 k rows spent 1.9 s of its 4.0 s in 210
/// `fdatasync` calls (strace). Here the commit only counts pages and signals, and a worker thread
/// with its own connection runs the checkpoint. It is PASSIVE, so it never waits for, nor blocks,
/// the writer or a reader.
///
/// UNCHANGED. A checkpoint is still asked for once `pages` WAL pages are not yet copied, so the
/// card sees the same number of syncs and a power cut can lose what it could before: the commits
/// since the last checkpoint (the store's header, GUARANTEE). Its syncs are the same too: a
/// checkpoint syncs alike under synchronous NORMAL and FULL, which differ only at commits, and
/// the worker never commits.
///
/// BOUNDS. The WAL stays bounded even when the worker cannot keep up or cannot run:
/// - A commit that leaves `writerLimit` pages or more in the WAL checkpoints in the writer, as
///   SQLite's default does, once the worker's checkpoint (if one runs) has ended. The worker may
///   be falling behind a slow card, or be mid-checkpoint each time a commit appends: the WAL only
///   starts over from its beginning when a write begins after every page was copied, which the
///   writer's own checkpoint ensures.
/// - If the worker cannot run (no connection, no thread), the writer does every checkpoint itself:
///   the behaviour before this type. The reason (`unavailable`) is logged once.
/// What no checkpoint can help: readers that always overlap (one holding an old snapshot, or a
/// stream of short ones) keep the WAL from starting over, as with SQLite's own checkpoints.
///
/// THREADS. `committed(walPages:writer:)` and `stop()` run on the writer's thread, `work()` on
/// the worker's. INVARIANT: the fields marked "guarded" are read and written only with `lock`
/// held; `lock` is never held across a SQLite call. The worker's connection is used by one thread
/// at a time: the writer's until the worker starts, the worker's from then on.
final class Checkpointer: @unchecked Sendable {
    /// Uncopied WAL pages that ask for a checkpoint (SQLite's default autocheckpoint).
    let pages: Int
    /// WAL pages from which the writer checkpoints itself.
    let writerLimit: Int
    /// The worker's connection, opened with the writer's (so it is the file the writer validated);
    /// `nil` if it could not be opened.
    private let db: OpaquePointer?
    /// The pthread objects, at fixed addresses (pthread forbids moving them, which a stored
    /// property may do). INVARIANT: allocated and initialised in `init`, destroyed and freed in
    /// `deinit` only, once no thread uses them.
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    /// Signalled by the writer: a request, or stop.
    private let wake: UnsafeMutablePointer<pthread_cond_t>
    /// Signalled by the worker when a checkpoint of its ended.
    private let finished: UnsafeMutablePointer<pthread_cond_t>

    // Guarded by `lock`.
    private var requested = false
    private var running = false
    private var stopping = false
    /// The WAL's pages at the last commit: a commit that finds fewer means the WAL started over.
    private var lastWALPages = 0
    /// Bumped at each start-over: a checkpoint that saw another WAL does not count its pages.
    private var walGeneration = 0
    /// Pages of the current WAL already copied into the database.
    private var copiedPages = 0
    private var largestWAL = 0
    private var checkpointsDone = 0
    private var checkpointsInWriter = 0
    /// The last checkpoint's result (SQLITE_BUSY, "another checkpoint is running", is not
    /// recorded).
    private var lastResult: Int32 = SQLITE_OK

    // The writer's own.
    private var worker: pthread_t? = nil
    /// Why the worker cannot run, once known; then the writer checkpoints. Kept apart from the
    /// checkpoints' result: the writer's checkpoint that follows a failed thread start at once
    /// replaced it there, and the store never logged why its checkpoints ran in the writer.
    private(set) var unavailable: Unavailable? = nil

    enum Unavailable: Equatable, CustomStringConvertible {
        /// Its connection did not open: the SQLite result code.
        case connection(Int32)
        /// Its thread did not start: `pthread_create`'s error number.
        case thread(Int32)

        var description: String {
            switch self {
            case .connection(let rc): "no connection of its own: \(String(cString: sqlite3_errstr(rc))) (code \(rc))"
            case .thread(let errno): "no thread: \(String(cString: strerror(errno))) (errno \(errno))"
            }
        }
    }

    /// Opens the worker's connection to `path`; call right after the writer's own open.
    init(path: String, pages: Int, writerLimit: Int, busyTimeoutMillis: Int32) {
        self.pages = max(1, pages)
        self.writerLimit = max(self.pages, writerLimit)
        lock = .allocate(capacity: 1)
        wake = .allocate(capacity: 1)
        finished = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        pthread_cond_init(wake, nil)
        pthread_cond_init(finished, nil)
        var handle: OpaquePointer?
        // Read-write, not creating: the writer made and validated the file. NOMUTEX: one thread
        // at a time (see THREADS).
        var rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        if rc == SQLITE_OK, let handle {
            // Extended codes, as the writer's: SQLITE_BUSY_RECOVERY is still a busy, and an I/O
            // error is logged with its kind.
            sqlite3_extended_result_codes(handle, 1)
            sqlite3_busy_timeout(handle, busyTimeoutMillis)
            // A connection finds the WAL when it first reads the file; until then a checkpoint
            // on it does nothing ("not in WAL mode", -1 pages).
            rc = sqlite3_exec(handle, "SELECT count(*) FROM sqlite_schema", nil, nil, nil)
        }
        if rc != SQLITE_OK {
            sqlite3_close_v2(handle)
            handle = nil
        }
        db = handle
        if handle == nil { unavailable = .connection(rc == SQLITE_OK ? SQLITE_CANTOPEN : rc) }
    }

    deinit {
        // `stop()` was called (the store's deinit), so no thread uses these any more.
        sqlite3_close_v2(db)
        pthread_cond_destroy(wake)
        pthread_cond_destroy(finished)
        pthread_mutex_destroy(lock)
        wake.deallocate()
        finished.deallocate()
        lock.deallocate()
    }

    /// Checkpoints completed: in all, and of those by the writer.
    var completed: (all: Int, inWriter: Int) { locked { (checkpointsDone, checkpointsInWriter) } }

    /// The most pages the WAL held after a commit (for tests).
    var largestWALPages: Int { locked { largestWAL } }

    /// No checkpoint is asked for or running (for tests).
    var idle: Bool { locked { !requested && !running } }

    /// The result code of the last checkpoint that ran, by the worker or the writer, or why the
    /// worker cannot run.
    var result: Int32 { locked { lastResult } }

    /// Called by the writer after each commit with the pages now in the WAL (SQLite's WAL hook).
    func committed(walPages: Int, writer: OpaquePointer) {
        let wanted: Bool = locked {
            if walPages < lastWALPages {  // the WAL started over: nothing of it is copied yet
                walGeneration &+= 1
                copiedPages = 0
            }
            lastWALPages = walPages
            largestWAL = max(largestWAL, walPages)
            // Not while one runs: it copies these pages, and asking again would start another
            // (two more syncs) for the few pages committed meanwhile.
            guard walPages - min(copiedPages, walPages) >= pages, !running else { return false }
            requested = true
            return true
        }
        if walPages >= writerLimit {
            // The writer's own checkpoint must run for the WAL to start over, so it waits for the
            // worker's to end (as SQLite's inline checkpoint would have waited for the disk), and
            // takes the request so that the worker starts no other meanwhile.
            locked {
                requested = false
                while running { pthread_cond_wait(finished, lock) }
            }
            checkpoint(writer, inWriter: true)
        } else if wanted && !workerStarted() {
            checkpoint(writer, inWriter: true)
        } else if wanted {
            pthread_cond_signal(wake)
        }
    }

    /// Ends the worker after the checkpoint it may be running. Idempotent.
    func stop() {
        guard let thread = worker else { return }
        locked { stopping = true }
        pthread_cond_signal(wake)
        pthread_join(thread, nil)
        worker = nil
    }

    /// A PASSIVE checkpoint on `db`; records what it copied or why it failed.
    private func checkpoint(_ db: OpaquePointer, inWriter: Bool) {
        let generation: Int = locked {
            requested = false
            return walGeneration
        }
        var walFrames: Int32 = 0
        var copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &walFrames, &copied)
        locked {
            switch rc & 0xFF {
            case SQLITE_OK where walFrames < 0:
                // Not in WAL mode: impossible for the store's files (Schema.open checked).
                lastResult = SQLITE_ERROR
            case SQLITE_OK:
                if generation == walGeneration { copiedPages = Int(copied) }
                checkpointsDone += 1
                if inWriter { checkpointsInWriter += 1 }
                lastResult = rc
            case SQLITE_BUSY:
                // Another checkpoint (the worker's, or a reader process's) is running: it will
                // copy these pages, or a later commit asks again.
                break
            default:
                lastResult = rc
            }
        }
    }

    /// Starts the worker on the first request; whether it runs.
    private func workerStarted() -> Bool {
        if worker != nil { return true }
        if unavailable != nil { return false }
        locked { stopping = false }  // a store used again after `close`
        // Signals are for the logger loop's thread (its handlers wake its poll): the worker
        // starts with them blocked, all but those a fault raises in the thread itself.
        var blocked = sigset_t()
        var previous = sigset_t()
        sigfillset(&blocked)
        for fault in [SIGSEGV, SIGBUS, SIGFPE, SIGILL] { sigdelset(&blocked, fault) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { context in
                // The worker's reference, given at creation and released when it returns.
                let checkpointer = Unmanaged<Checkpointer>.fromOpaque(context!).takeRetainedValue()
                checkpointer.work()
                return nil
            }, context)
        guard rc == 0 else {
            Unmanaged<Checkpointer>.fromOpaque(context).release()
            unavailable = .thread(rc)  // logged once by the store; checkpoints fall back to the writer
            return false
        }
        worker = thread
        return true
    }

    /// The worker: waits for a request, checkpoints on its own connection, until stopped.
    private func work() {
        guard let db else { return }  // unreachable: not started without a connection
        while true {
            let go: Bool = locked {
                if running {
                    running = false
                    pthread_cond_broadcast(finished)
                }
                while !requested && !stopping { pthread_cond_wait(wake, lock) }
                running = !stopping
                return running
            }
            guard go else { return }
            checkpoint(db, inWriter: false)
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }
}
