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
/// UNCHANGED. Checkpoints still come every `pages` new WAL pages, so the card sees the same
/// number of syncs and a power cut can lose what it could before: the commits since the last
/// checkpoint (the store's header, GUARANTEE).
///
/// BOUNDS. The WAL stays bounded even when the worker cannot keep up or cannot run:
/// - A commit that leaves `writerLimit` pages or more in the WAL checkpoints in the writer, as
///   SQLite's default does. The worker may be falling behind a slow card, or be mid-checkpoint
///   each time a commit appends (the WAL only starts over from its beginning when a write begins
///   after every page was copied).
/// - If the worker cannot start (no thread, no connection), the writer does every checkpoint
///   itself: the behaviour before this type.
///
/// THREADS. `committed(walPages:writer:)` and `stop()` run on the writer's thread, `work()` on
/// the worker's. INVARIANT: the fields marked "guarded" are read and written only with `lock`
/// held; `lock` is never held across a SQLite call.
final class Checkpointer: @unchecked Sendable {
    /// New WAL pages between two checkpoints (SQLite's default autocheckpoint).
    let pages: Int
    /// WAL pages from which the writer checkpoints itself.
    let writerLimit: Int
    private let path: String
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private let wake: UnsafeMutablePointer<pthread_cond_t>

    // Guarded by `lock`.
    private var requested = false
    private var stopping = false
    /// WAL pages already copied by the last checkpoint; a WAL shorter than this has started over.
    private var copiedPages = 0
    private var checkpointsDone = 0
    private var checkpointsInWriter = 0
    /// The worker is in a checkpoint.
    private var running = false
    /// The last checkpoint's result code (SQLITE_BUSY, "another one is running", not counted).
    private var lastResult: Int32 = SQLITE_OK
    /// The worker takes requests: set before its thread starts, cleared if it cannot open the
    /// database. From then on the writer checkpoints.
    private var workerReady = false

    // The writer's own.
    private var worker: pthread_t? = nil
    /// The thread could not be created: the writer checkpoints.
    private var noThread = false

    init(path: String, pages: Int, writerLimit: Int) {
        self.path = path
        self.pages = max(1, pages)
        self.writerLimit = max(self.pages, writerLimit)
        lock = .allocate(capacity: 1)
        wake = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        pthread_cond_init(wake, nil)
    }

    deinit {
        // `stop()` was called (the store's deinit), so no thread uses these any more.
        pthread_cond_destroy(wake)
        pthread_mutex_destroy(lock)
        wake.deallocate()
        lock.deallocate()
    }

    /// Checkpoints completed: in all, and of those by the writer.
    var completed: (all: Int, inWriter: Int) { locked { (checkpointsDone, checkpointsInWriter) } }

    /// No checkpoint is asked for or running (for tests).
    var idle: Bool { locked { !requested && !running } }

    /// The result code of the last checkpoint that ran, by the worker or the writer.
    var result: Int32 { locked { lastResult } }

    /// Called by the writer after each commit with the pages now in the WAL (SQLite's WAL hook).
    func committed(walPages: Int, writer: OpaquePointer) {
        let wanted: Bool = locked {
            // Pages since the last checkpoint; a WAL shorter than what was copied has started over.
            let new = walPages >= copiedPages ? walPages - copiedPages : walPages
            guard new >= pages else { return false }
            requested = true
            return true
        }
        if walPages >= writerLimit || (wanted && !workerTakesRequests()) {
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
        var walFrames: Int32 = 0
        var copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &walFrames, &copied)
        locked {
            requested = false
            switch rc {
            case SQLITE_OK where walFrames < 0:
                // Not in WAL mode: impossible for the store's files (Schema.open checked).
                lastResult = SQLITE_ERROR
            case SQLITE_OK:
                copiedPages = Int(max(0, copied))
                checkpointsDone += 1
                if inWriter { checkpointsInWriter += 1 }
                lastResult = rc
            case SQLITE_BUSY:
                // Another checkpoint (the worker's, or a reader process's) is running: it will
                // copy these pages, or the next commit asks again.
                break
            default:
                lastResult = rc
            }
        }
    }

    /// Starts the worker on the first request; whether it takes them.
    private func workerTakesRequests() -> Bool {
        if worker != nil { return locked { workerReady } }
        if noThread { return false }
        locked {
            workerReady = true
            stopping = false  // a store used again after `close`
        }
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
            locked { workerReady = false }
            noThread = true
            return false
        }
        worker = thread
        return true
    }

    /// The worker: waits for a request, checkpoints on its own connection, until stopped.
    private func work() {
        // Signals are for the logger loop's thread (its handlers wake its poll): none lands here.
        var signals = sigset_t()
        sigfillset(&signals)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        var db: OpaquePointer?
        // Read-write, not creating: the writer made the file. NOMUTEX: this thread only.
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            // The writer checkpoints from its next commit on (it checks `workerReady`).
            locked { workerReady = false }
            return
        }
        defer { sqlite3_close_v2(db) }
        // A connection finds the WAL when it first reads the file; until then a checkpoint on it
        // does nothing ("not in WAL mode", -1 pages).
        guard sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nil, nil, nil) == SQLITE_OK else {
            locked { workerReady = false }
            return
        }
        while true {
            let go: Bool = locked {
                running = false
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
