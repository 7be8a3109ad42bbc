import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// The database layout and its migrations.
///
/// Layout, and why (measured with 3 quantities per reading, 50 sensors, SQLite 3.40; see the
/// report of issue 4):
/// - `readings` holds ONE row per sensor and time, its measurements packed by `MeasurementCodec`,
///   clustered on `(time_us, sensor_id)` in a WITHOUT ROWID table. Inserts append at the end of the
///   b-tree, an export over a time range is one sequential scan in output order, and retention
///   deletes from the front. Measured (3 quantities per reading): 49.5 bytes and one b-tree
///   insert per reading with the sensor index, against 80.6 bytes and three inserts for one row
///   per quantity (`(sensor_id, time, quantity_id, value, count)`), which also has to be
///   regrouped for export. A year of 50 sensors at 1/min (26.3 M rows) takes 50.7 bytes per
///   reading: table 32.2, `readings_by_sensor` 16.8, `rollup_hourly` 1.7.
/// - Each row also keeps when its first and last advertisement were heard, as µs after `time_us`
///   (migration 2), so a second row for its (time, sensor) is merged unless it is a replay.
/// - `readings_by_sensor (sensor_id, time_us)` serves one sensor's export, its last rows, and
///   `forget`. It costs ~17 bytes per reading; without it a one-sensor query scans every sensor.
/// - `rollup_hourly` keeps, per (hour, sensor), the row count and, packed in one blob, count/sum/
///   min/max/last per quantity (Rollups.swift), written in the same transaction as the raw rows
///   (invariant 4 in SensorStore.swift). A 24 h summary reads 24 × sensors rollup rows plus the
///   raw rows of at most two partial hours, whatever the size of the database; `--by day` over
///   a year reads 8760 rollup rows per sensor.
/// - `quantities` maps the open-ended keys (`temperature_probe_3_c`) to small ids; ids are never
///   reused or renumbered.
/// - Times are integer **microseconds since the Unix epoch, UTC** (`Reading.timeMicros`), so a
///   0-second interval keeps every advertisement's own time; hours are `time_us / 3_600_000_000`.
/// - `meta` holds `prune_horizon_us`: retention has removed (or is removing) rows before it.
/// - `clock_unsynced` holds the spans of receive times stamped by a clock not known to be right.
enum Schema {
    /// `PRAGMA application_id` of our files ("BLSG"): tells our store from another SQLite file.
    static let applicationID: Int32 = 0x424C_5347
    static let microsPerHour: Int64 = 3_600_000_000
    /// The reading times the store accepts, microseconds since the Unix epoch: 1970 to about 2255
    /// (2^53). A capture's time stamps wrap rather than trap, so a corrupt one can carry any
    /// `Int64`; hours, buckets and retention cutoffs are computed on times in this range only,
    /// where no sum or product of them overflows.
    static let storableTimes: ClosedRange<Int64> = 0...(1 << 53)

    /// Migration n (0-based) takes `user_version` from n to n + 1. Append only; never edit one
    /// that has shipped.
    static let migrations: [String] = [
        """
        CREATE TABLE sensors (
            id INTEGER PRIMARY KEY,
            address INTEGER NOT NULL UNIQUE,      -- 48-bit, AA:BB:CC:DD:EE:FF = 0xAABBCCDDEEFF
            address_type INTEGER NOT NULL,        -- HCI LE address type, as last heard
            decoder_id TEXT NOT NULL,             -- Registry id, as last heard
            model TEXT NOT NULL,
            alias TEXT UNIQUE,                    -- the user's name for it; NULL if none
            radio_name TEXT,                      -- the name it advertises, as last heard
            first_seen_us INTEGER NOT NULL,
            last_seen_us INTEGER NOT NULL,
            last_battery_pct REAL,
            last_rssi_dbm INTEGER
        );
        CREATE TABLE quantities (
            id INTEGER PRIMARY KEY,               -- from 1, never reused
            key TEXT NOT NULL UNIQUE,             -- temperature_c, humidity_pct, …
            is_integer INTEGER NOT NULL
        );
        CREATE TABLE readings (
            time_us INTEGER NOT NULL,             -- bucket start, µs since the Unix epoch (UTC)
            sensor_id INTEGER NOT NULL,
            samples INTEGER NOT NULL,             -- advertisements folded into this row
            data BLOB NOT NULL,                   -- MeasurementCodec
            PRIMARY KEY (time_us, sensor_id)
        ) WITHOUT ROWID;
        CREATE INDEX readings_by_sensor ON readings (sensor_id, time_us);
        CREATE TABLE rollup_hourly (
            hour INTEGER NOT NULL,                -- time_us / 3600000000
            sensor_id INTEGER NOT NULL,
            n_rows INTEGER NOT NULL,              -- stored rows of the sensor in the hour
            n_samples INTEGER NOT NULL,           -- advertisements folded into them
            last_time_us INTEGER NOT NULL,
            stats BLOB NOT NULL,                  -- per quantity: Rollups.swift
            PRIMARY KEY (hour, sensor_id)
        ) WITHOUT ROWID;
        CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
        """,
        // 2: the receive times of a row's first and last advertisement, as µs after `time_us`
        // (0 bytes for a row of one advertisement, `--interval 0`), so a second row for a stored
        // (time, sensor) is merged unless it is a replay (invariant 3 in SensorStore.swift).
        // NULL in rows stored before it: which advertisements they hold is unknown, so such a
        // row is never merged into, as before.
        """
        ALTER TABLE readings ADD COLUMN first_after_us INTEGER;
        ALTER TABLE readings ADD COLUMN last_after_us INTEGER;
        """,
        // clock_unsynced: the receive times of readings stamped by a clock not known to be right
        // (ClockTrust.swift, rules c and d: nothing synchronised it, or it never synced while
        // they waited), as spans: a row holding a reading heard within one is flagged.
        """
        CREATE TABLE clock_unsynced (
            id INTEGER PRIMARY KEY,
            from_us INTEGER NOT NULL,             -- the earliest such reading's time, µs since the epoch
            to_us INTEGER NOT NULL                -- the latest
        );
        """,
        // Button presses, dimmer turns, GATT notifications (EventStore.swift): one row per event
        // that passed the deduper, by address (a GATT remote need not be a sensor), in arrival
        // order (`id`); retention as for readings. One event (time, device, kind, value) is stored
        // once, so replaying a capture again adds nothing; the index also serves time order.
        """
        CREATE TABLE events (
            id INTEGER PRIMARY KEY,               -- arrival order, never reused
            time_us INTEGER NOT NULL,             -- µs since the Unix epoch (UTC)
            address INTEGER NOT NULL,             -- 48-bit, as sensors.address
            model TEXT NOT NULL,
            kind TEXT NOT NULL,                   -- button, dimmer, notify
            value TEXT NOT NULL,                  -- press, rotate_left:3, hex of a notification
            rssi_dbm INTEGER,
            encrypted INTEGER NOT NULL            -- 1 when the frame was authenticated
        );
        CREATE UNIQUE INDEX events_once ON events (time_us, address, kind, value);
        """,
        // The outbox (Outbox.swift): an entry per row committed by a writer that publishes
        // (MQTT), deleted once the broker has acknowledged it. AUTOINCREMENT: a sequence number
        // is never given twice, even after the table was emptied.
        """
        CREATE TABLE outbox (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            time_us INTEGER NOT NULL,
            sensor_id INTEGER NOT NULL
        );
        """,
        // The hub's (`collect`, RowReceivers.swift): which receiver's copy of a row is stored and
        // the RSSI it published, so a stronger copy arriving later takes its place. Written only
        // by `SensorStore.add(published:…)`: a logger's own rows (`run`) write nothing here.
        """
        CREATE TABLE row_receivers (
            time_us INTEGER NOT NULL,
            sensor_id INTEGER NOT NULL,
            receiver TEXT NOT NULL,               -- the receiver that published the stored copy
            rssi_dbm INTEGER,                     -- the RSSI it published with it; NULL if none
            PRIMARY KEY (time_us, sensor_id)
        ) WITHOUT ROWID;
        """,
    ]

    static var version: Int32 { Int32(migrations.count) }

    /// What a file holds, read without writing anything.
    struct Inspection {
        var userVersion: Int32
        var applicationID: Int32
        var objectCount: Int64
    }

    /// Reads the header fields and forces a schema parse; a non-SQLite or damaged file fails here
    /// (SQLITE_NOTADB, SQLITE_CORRUPT) before anything is written.
    ///
    /// The three reads come from one snapshot (one read transaction, or the caller's): read one
    /// by one, a process creating the file between them made ours look foreign (no
    /// application_id yet, then the tables it committed together with the id).
    static func inspect(_ c: Connection) throws(StoreError) -> Inspection {
        let attempted = "check that \(c.path) is a blesensor-log database (nothing written)"
        let ownTransaction = c.isAutocommit
        do throws(StoreError) {
            if ownTransaction { try c.exec("BEGIN", attempted) }
            let uv = try c.scalarInt("PRAGMA user_version") ?? 0
            let app = try c.scalarInt("PRAGMA application_id") ?? 0
            let objects = try c.scalarInt("SELECT count(*) FROM sqlite_schema") ?? 0
            if ownTransaction { try c.exec("COMMIT", attempted) }
            return Inspection(
                userVersion: Int32(truncatingIfNeeded: uv), applicationID: Int32(truncatingIfNeeded: app),
                objectCount: objects)
        } catch {
            if ownTransaction { _ = c.rollbackIfNeeded() }
            if case .sqlite(let code, let message, _) = error {
                throw .sqlite(code: code, message: message, attempted: attempted)
            }
            throw error
        }
    }

    /// Refuses files that are not ours or are newer than this build. Never writes.
    static func validate(_ i: Inspection, path: String) throws(StoreError) {
        if i.userVersion > version {
            throw .newerSchema(path: path, found: i.userVersion, supported: version)
        }
        if i.applicationID != applicationID {
            // An empty file (0 objects, no id) is a database we may initialize.
            if i.applicationID != 0 {
                throw .foreignDatabase(
                    path: path, reason: "application_id 0x\(String(UInt32(bitPattern: i.applicationID), radix: 16))")
            }
            if i.objectCount > 0 {
                throw .foreignDatabase(
                    path: path, reason: "it holds \(i.objectCount) tables/indexes of another application")
            }
        }
    }

    /// Brings the schema to `version`, each step and the version bump in one transaction.
    static func migrate(_ c: Connection) throws(StoreError) {
        try c.exec("BEGIN IMMEDIATE", "begin migration of \(c.path)")
        do throws(StoreError) {
            // Re-read under the write lock: another process may have migrated meanwhile.
            let i = try inspect(c)
            try validate(i, path: c.path)
            var v = i.userVersion
            while v < version {
                try c.exec(migrations[Int(v)], "apply migration \(v + 1) to \(c.path)")
                v += 1
            }
            try c.exec("PRAGMA user_version = \(version)", "set user_version")
            try c.exec("PRAGMA application_id = \(applicationID)", "set application_id")
            try c.exec("COMMIT", "commit migration of \(c.path)")
        } catch {
            _ = c.rollbackIfNeeded()
            throw error
        }
    }

    /// Undoes a retention horizon later than `nowMicros`, which the store before migration 2 set
    /// from the newest reading (one stamped in 2100 moved it there, and readers then hid every row
    /// before it). Rows below it may have been half-pruned, so the rollups of the hours before it
    /// are computed again from the rows left, after which invariant 4 holds everywhere and the
    /// horizon is removed (the next retention step sets a right one). Returns whether it did so.
    /// `nowMicros` must be a plausible time (a clock reading 1970 would undo every horizon).
    static func repairHorizon(_ c: Connection, nowMicros: Int64) throws(StoreError) -> Bool {
        let attempted = "reset the retention horizon of \(c.path)"
        guard let horizon = try c.scalarInt("SELECT value FROM meta WHERE key = 'prune_horizon_us'"),
            horizon > nowMicros
        else { return false }
        try c.exec("BEGIN IMMEDIATE", attempted)
        do throws(StoreError) {
            // Re-read under the write lock: another writer may have repaired it meanwhile.
            guard let h = try c.scalarInt("SELECT value FROM meta WHERE key = 'prune_horizon_us'"), h > nowMicros
            else {
                try c.exec("COMMIT", attempted)
                return false
            }
            try RollupRebuild.rebuild(c, before: SensorStore.hour(min(h, storableTimes.upperBound)) + 1)
            try c.exec("DELETE FROM meta WHERE key = 'prune_horizon_us'", attempted)
            try c.exec("COMMIT", attempted)
            return true
        } catch {
            _ = c.rollbackIfNeeded()
            throw error
        }
    }

    /// SQLite's extended code for "the folder is read-only, so the `-shm` cannot be created"
    /// (a C macro Swift does not import).
    static let readOnlyDirectory = SQLITE_READONLY | (6 << 8)

    /// Opens an existing store for reading, writing nothing: a user who may only read the file
    /// (the logger's database owned by root, a read-only mount) can read it.
    ///
    /// A WAL database is read through its `-shm` file: one the logger has (it exists while a
    /// writer has the file open), or one SQLite creates next to the file. Where neither can be
    /// (the folder is not writable and no writer has the file open: no `-wal` exists) the file
    /// is opened `immutable`, without locks; everything committed is then in the file itself, and
    /// `ReadAccess.unlocked` lets the reader check afterwards that no writer came meanwhile.
    ///
    /// A file of an older schema is migrated as `open` does, which needs write access.
    static func openForReading(path: String, busyTimeoutMillis: Int32) throws(StoreError)
        -> (Connection, ReadAccess)
    {
        guard let before = FileIdentity(path) else {
            throw .sqlite(code: SQLITE_CANTOPEN, message: "no such file", attempted: "open \(path)")
        }
        var c = try Connection(path: path, readOnly: true, create: false, busyTimeoutMillis: busyTimeoutMillis)
        var access = ReadAccess.shared
        let i: Inspection
        do { i = try whileBusy(timeoutMillis: busyTimeoutMillis) { () throws(StoreError) in try inspect(c) } } catch {
            let code = error.sqliteExtendedCode
            guard code == readOnlyDirectory || code.map({ $0 & 0xFF }) == SQLITE_CANTOPEN,
                FileIdentity(path + "-wal") == nil
            else { throw error }
            do throws(StoreError) {
                c = try Connection(path: path, readOnly: true, create: false, immutable: true, busyTimeoutMillis: 0)
                i = try inspect(c)
            } catch _ {
                throw error
            }
            access = .unlocked(path: path, identity: before)
        }
        try validate(i, path: path)
        if i.userVersion < version || i.applicationID != applicationID {
            return (try open(path: path, create: false, busyTimeoutMillis: busyTimeoutMillis), .shared)
        }
        return (c, access)
    }

    /// Opens a store file: checks it read-only first (a file that is foreign, newer or damaged is
    /// never opened for writing, so not even a WAL checkpoint can touch it), then opens it for
    /// writing, migrates, and turns on WAL.
    ///
    /// Processes opening one new file together take turns through SQLite's locks; where SQLite
    /// answers SQLITE_BUSY at once rather than wait (it does so where waiting could deadlock, and
    /// for the switch to WAL), the whole open is tried again, for up to `busyTimeoutMillis`: each
    /// step re-reads what the others did, so trying again is safe. Opening waits at least
    /// `openPatienceMillis`, longer than a commit would: it happens once a process, and a busy Pi
    /// (a cron `summary`, another replay migrating the same new file) must not turn it into a refusal.
    static func open(path: String, create: Bool, busyTimeoutMillis: Int32) throws(StoreError) -> Connection {
        try whileBusy(timeoutMillis: max(busyTimeoutMillis, openPatienceMillis)) { () throws(StoreError) in
            try openOnce(path: path, create: create, busyTimeoutMillis: busyTimeoutMillis)
        }
    }

    /// The least time an open keeps trying while another process holds the file's locks.
    static let openPatienceMillis: Int32 = 5000

    /// `body`, tried again after a short, growing pause while it fails with SQLITE_BUSY or
    /// SQLITE_LOCKED and `timeoutMillis` have not passed.
    static func whileBusy<T>(timeoutMillis: Int32, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        func now() -> Double {
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        }
        let deadline = now() + Double(max(0, timeoutMillis)) / 1000
        var pauseMicros: UInt32 = 2000
        while true {
            do { return try body() } catch where error.isBusy && now() < deadline {
                usleep(pauseMicros)
                pauseMicros = min(pauseMicros * 2, 100_000)
            }
        }
    }

    private static func openOnce(path: String, create: Bool, busyTimeoutMillis: Int32) throws(StoreError) -> Connection {
        var st = stat()
        let exists = stat(path, &st) == 0
        if exists, access(path, W_OK) != 0 {
            // Said plainly: the probe below would fail on the `-shm` it cannot create, with a
            // message about a read-only database that hides the reason.
            throw .sqlite(
                code: SQLITE_READONLY, message: "cannot write to it (\(String(cString: strerror(errno))))",
                attempted: "open \(path) for writing")
        }
        if exists, st.st_size > 0 {
            let probe = try Connection(path: path, readOnly: true, create: false, busyTimeoutMillis: busyTimeoutMillis)
            try validate(inspect(probe), path: path)
        } else if !exists, !create {
            throw .sqlite(code: SQLITE_CANTOPEN, message: "no such file", attempted: "open \(path)")
        }
        let c = try Connection(path: path, readOnly: false, create: create, busyTimeoutMillis: busyTimeoutMillis)
        let i = try inspect(c)
        try validate(i, path: path)
        if i.userVersion < version || i.applicationID != applicationID { try migrate(c) }
        // WAL: readers never block the writer and see only committed batches. The mode is stored
        // in the file, so readers opened later use it too.
        let mode = try c.scalarText("PRAGMA journal_mode = WAL")
        guard mode?.lowercased() == "wal" else {
            throw .sqlite(
                code: SQLITE_ERROR, message: "journal_mode is \(mode ?? "unknown")", attempted: "enable WAL on \(path)")
        }
        return c
    }
}

/// How a reader's connection sees the file.
enum ReadAccess {
    /// Through SQLite's locks and the `-shm` file: every read transaction is a committed snapshot.
    case shared
    /// `immutable`, without locks, because no writer had the file open and none could have opened
    /// it unseen. A writer that opens it later creates the `-wal` file, and one that checkpoints
    /// into the file changes its size or modification time: either means a read may have mixed
    /// two states (`writerCame`).
    case unlocked(path: String, identity: FileIdentity)

    /// A writer has (or had) the file open since it was opened unlocked.
    var writerCame: Bool {
        guard case .unlocked(let path, let identity) = self else { return false }
        return FileIdentity(path + "-wal") != nil || FileIdentity(path) != identity
    }
}

/// What `stat` says about a file's content: same inode, size and modification time means no
/// write reached it.
struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int

    /// `nil` when there is no such file.
    init?(_ path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modifiedSeconds = st.st_mtim.tv_sec
        modifiedNanoseconds = st.st_mtim.tv_nsec
    }
}
