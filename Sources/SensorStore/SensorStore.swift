import CSQLite
import SensorDecode

// SensorStore: readings in one SQLite file that survives a year on a Pi's SD card.
//
// GUARANTEE. A batch of rows is committed atomically with the hourly rollups that summarize it;
// a reading is either in a committed batch or still in this process's memory. A crash (kill -9,
// power loss) loses at most the rows not yet committed: the open downsampling buckets (one
// interval, 60 s by default) and the rows completed since the last commit (at most
// `batchSeconds` of them, 10 minutes by default: `BatchTimingTests`). With `synchronous=NORMAL`
// in WAL mode a power cut may also lose the last commits before it, never the database's
// consistency.
//
// FILES. SensorStore.swift (this: writer, batching, retention, invariants), Schema.swift (layout
// and why, migrations, refusing foreign/newer/damaged files), Downsampler.swift (folding and
// de-duplication, bounded), MeasurementCodec.swift (row encoding), StoreReader.swift and
// Queries.swift (sensors, alias, forget, export, summary), Rollups.swift (hourly aggregates),
// SQLite.swift (checked C calls, errors), StoreClock.swift (the trusted time), ClockTrust.swift (the
// stage before the store that holds readings until the clock can be trusted).
//
// DEFINITIONS.
// - *reading*: what a decoder made of one advertisement (`SensorDecode.Reading`).
// - *row*: one sensor's readings folded over one interval (`StoredRow`, table `readings`).
// - *batch*: the rows committed in one transaction: every `batchSeconds` (monotonic, driven by
//   the caller's `tick(now:)`) or every `batchRows` rows, whichever comes first.
// - *horizon*: `meta.prune_horizon_us`; retention has removed, or is removing, rows before it.
// - *trusted now*: the wall time the store believes (`TrustedTime` over the injected
//   `StoreClock`), never a reading's stamp.
//
// INVARIANTS.
// (1) A row counts as stored only after the COMMIT of its batch returned SQLITE_OK; until then
//     it stays in `pending`, across any number of failed attempts (disk full, busy).
// (2) `PRAGMA user_version` equals the number of applied migrations, and `application_id` is
//     `Schema.applicationID`. A file with a larger version, another application id, or that is
//     not SQLite is never written (checked read-only before the writable open).
// (3) `readings` has at most one row per (time_us, sensor_id), and no advertisement is counted
//     in it twice. A row keeps the receive times of its first and last advertisement
//     (`first_after_us`, `last_after_us`; NULL in rows stored before migration 2). A row that
//     meets a stored one of its (time, sensor) (`StoredSpan.meets`): heard wholly before or after
//     the stored advertisements, it is merged in (samples added, continuous values weighted by
//     samples, whole numbers the later row's, span widened); overlapping them, it takes the
//     stored row's place if it folded more advertisements (the full capture after a truncated
//     one), else it is a replay and changes nothing. Rows without a span are never merged into.
//     A merged row's (hour, sensor) rollup is computed again from the rows in the same
//     transaction. Limit: new advertisements stamped inside a stored row's span (a clock stepped
//     back into an interval already committed) are taken for a replay. Rows other loggers
//     published (a hub's, `add(published:…)`) meet stored ones by receiver instead: the
//     strongest copy is kept (RowReceivers.swift).
// (4) For every hour at or after the horizon, each `rollup_hourly` row equals the aggregate of
//     the raw rows of its (hour, sensor): n_rows, n_samples, last time, and per quantity rows,
//     samples, sum, min, max and the value at the latest time. Both are written
//     in the same transaction, so every reader snapshot satisfies it. (Scope: not for a sensor
//     while `StoreReader.forget` deletes it in steps; its last step removes the rollups.)
// (5) Memory is bounded whatever the radio shows: the downsampler tracks ≤ `maxSensors`
//     sensors (evicting the least recently heard eighth), `pending` holds ≤ `maxPendingRows`
//     rows (`.dropOldest`: dropping the oldest tenth, counted and logged once; `.refuseReadings`:
//     refusing readings while the rows pending and the open buckets would not fit), the quantity id cache holds
//     ≤ `maxCachedQuantities` keys (cleared when full), and the commit caches of sensor ids and
//     latest rollups hold ≤ max(64, `maxSensors`) entries each (cleared when full).
// (6) A failure is logged once when it starts or changes kind (one line,
//     `StoreError.description`) and once when writing resumes. Retries wait `retrySeconds` of
//     the `StoreClock`'s monotonic time, doubling up to `maxRetrySeconds`; so a failing database
//     costs a bounded number of attempts (each O(pending)) per real minute, whatever the pace of
//     the caller's clock.
// (7) Retention deletes at most `pruneRowsPerStep` rows per transaction, oldest first, and only
//     rollup hours whose raw rows are all gone.
// (8) No `readings` row of a sensor is later than its `sensors.last_seen_us`: a row's time is at
//     most its last receive time, and the sensor's upsert raises `last_seen_us` to that in the
//     same transaction (`forget` deletes the rows before the sensor). `commit` relies on it to
//     insert rows later than that in multi-row statements without asking which were ignored.
// (9) A checkpoint is asked for once `checkpointPages` WAL pages are not yet copied, as SQLite's
//     autocheckpoint would, and runs on the checkpoint thread; the writer checkpoints itself once
//     the WAL holds four times that, and every time if that thread has no connection or could not
//     start (logged once). So the WAL starts over within a few commits, unless readers
//     always overlap or checkpoints fail (logged, invariant 6), as with SQLite's own
//     (`CheckpointTests`).
// (10) Time. Retention cuts at `retentionSeconds` before the trusted now (floored to the hour),
//     so the horizon is never later than the trusted now; a reading is stored only if stamped
//     from that cutoff (or the horizon) to `futureToleranceSeconds` after the trusted now, the
//     others are counted and logged once; while the trusted now cannot be right (before 2026),
//     the latest admitted is `TrustedTime.standIn` (the stamps `ClockTrust` gives a clock that
//     never synced) plus that tolerance. Readings `add` takes flagged widen a span of
//     `clock_unsynced`, written with the next batch. A horizon found later than now (set by a store before
//     migration 2 from a future-stamped reading) is undone at open (`Schema.repairHorizon`).
// (11) At most `maxNewSensorsPerHour` sensors are created per hour of the callers' clock, counted
//     only by committed batches; the rows of an unknown address beyond that are not stored
//     (counted, logged once), the rows of a known sensor always are. With invariant 5 this bounds
//     what a crowd of spoofed addresses costs on disk as well as in memory.
//
// THREADS. A `SensorStore` is used from one thread (the logger loop); it is not Sendable. It
// starts one thread of its own, with its own connection, for WAL checkpoints (Checkpointer.swift),
// stopped by `close` and when the store is released.
// Readers (`StoreReader`, a user's `sqlite3`) use their own connections in any process.
//
// USAGE (the logger loop; `now` is CLOCK_MONOTONIC seconds, read by the caller):
// ```
// let store = try SensorStore(path: path, configuration: config, clock: SystemClock(), log: { logLine($0) })
// poll loop: for each decoded reading → store.add(reading, now: now)
//            on every wake-up or timeout (about once a second) → store.tick(now: now, wallMicros: wall)
// at SIGTERM/SIGINT → try store.close(now: now)      // writes open buckets, commits
// ```
// A `.failed` result or `currentFailure` is informational: the store already logged it and
// keeps the rows; the loop just carries on. `replay` calls `add` with the capture's times and
// `close` at the end. Queries: `StoreReader` (Queries.swift).

/// The writer's knobs; every default is what `run` should use.
public struct StoreConfiguration: Sendable, Equatable {
    public var downsample: DownsampleConfiguration
    /// Commit the pending rows once the oldest has waited this long (the callers' seconds).
    /// Default 600, for the SD card: rows complete together at each interval's end, and a commit
    /// writes a page of `readings_by_sensor` per sensor however few rows each has, so committing
    /// every 60 s interval wrote several times the budget of 600 bytes a row, every 10 minutes
    /// stays within it (`scripts/bench`, "SD-card writes"). It bounds what a crash loses (GUARANTEE).
    public var batchSeconds: Double
    /// …or as soon as this many rows are pending. Default 1000.
    public var batchRows: Int
    /// Bound of the pending rows while the database refuses writes. Default 100 000 (~30 MB).
    public var maxPendingRows: Int
    /// What happens at that bound (invariant 5). Default `.dropOldest`.
    public var pendingOverflow: PendingOverflow
    /// While the database refuses writes, the wait before the next attempt starts at
    /// `retrySeconds` (default 5) and doubles after each failed one up to `maxRetrySeconds` (default
    /// 60): monotonic seconds of the `StoreClock`, not the caller's clock, which a replay runs on
    /// its capture's time.
    public var retrySeconds: Double
    public var maxRetrySeconds: Double
    /// Keep this much history, measured back from the trusted current time (`StoreClock`, never
    /// the readings' times); `nil` keeps everything. Any value is safe: the cutoff saturates.
    public var retentionSeconds: Int64?
    /// A reading stamped later than this after the trusted current time is not stored (counted in
    /// `futureTimes`, logged once). Default 600 s: captures from a machine whose clock is a little
    /// fast still replay whole.
    public var futureToleranceSeconds: Int64
    /// A wall clock that stepped ahead is trusted once it has held for this long (`TrustedTime`).
    /// Default 60 s.
    public var clockSettleSeconds: Double
    /// At most this many sensors are created (first stored) per hour of the callers' clock (a
    /// replay's is its capture's); readings of further unknown addresses are not stored until the
    /// hour is over (invariant 11). Default 256: anyone in range can advertise random addresses.
    public var maxNewSensorsPerHour: Int
    public var pruneRowsPerStep: Int
    /// Seconds between retention steps once nothing is left to prune. Default 60.
    public var pruneEverySeconds: Double
    /// How long a commit waits for another writer's lock (e.g. `forget`). Default 200 ms.
    public var busyTimeoutMillis: Int32
    /// Bound of the quantity key → id cache. Default 4096.
    public var maxCachedQuantities: Int
    /// A checkpoint (WAL pages copied into the database and synced) every this many new WAL
    /// pages, run by a thread of the store's (Checkpointer.swift). Default 1000, SQLite's own.
    public var checkpointPages: Int

    public init(
        downsample: DownsampleConfiguration = DownsampleConfiguration(), batchSeconds: Double = 600,
        batchRows: Int = 1000, maxPendingRows: Int = 100_000, pendingOverflow: PendingOverflow = .dropOldest,
        retrySeconds: Double = 5, maxRetrySeconds: Double = 60, retentionSeconds: Int64? = nil,
        pruneRowsPerStep: Int = 1000, pruneEverySeconds: Double = 60, busyTimeoutMillis: Int32 = 200,
        maxCachedQuantities: Int = 4096, checkpointPages: Int = 1000, futureToleranceSeconds: Int64 = 600,
        clockSettleSeconds: Double = 60, maxNewSensorsPerHour: Int = 256
    ) {
        self.downsample = downsample
        self.batchSeconds = batchSeconds
        self.batchRows = batchRows
        self.maxPendingRows = maxPendingRows
        self.pendingOverflow = pendingOverflow
        self.retrySeconds = retrySeconds
        self.maxRetrySeconds = maxRetrySeconds
        self.retentionSeconds = retentionSeconds
        self.pruneRowsPerStep = pruneRowsPerStep
        self.pruneEverySeconds = pruneEverySeconds
        self.busyTimeoutMillis = busyTimeoutMillis
        self.maxCachedQuantities = maxCachedQuantities
        self.checkpointPages = checkpointPages
        self.futureToleranceSeconds = futureToleranceSeconds
        self.clockSettleSeconds = clockSettleSeconds
        self.maxNewSensorsPerHour = maxNewSensorsPerHour
    }
}

/// What the store does when `maxPendingRows` rows wait while the database refuses writes.
public enum PendingOverflow: Sendable, Equatable {
    /// Drops the oldest tenth of the pending rows (counted in `droppedRows`, logged once): a
    /// logger keeps the newest readings and goes on.
    case dropOldest
    /// Takes no more readings (`add` refuses them, counted in `refusedReadings`) and drops
    /// nothing: a replay stops there, and replaying the capture again stores what is missing.
    case refuseReadings
}

/// What the writer has done since it opened.
public struct StoreStatistics: Sendable, Equatable {
    public var downsample = DownsampleStatistics()
    /// Rows newly inserted by committed batches.
    public var committedRows = 0
    /// Rows of committed batches whose (sensor, time) was stored with other advertisements: merged
    /// into the stored row, or put in its place (invariant 3).
    public var mergedRows = 0
    /// Rows of committed batches already stored (the same advertisements again): not stored again.
    public var ignoredRows = 0
    public var committedBatches = 0
    public var failedCommits = 0
    /// Rows given up because `pending` reached `maxPendingRows` while the database was failing.
    public var droppedRows = 0
    /// Readings `add` refused because `pending` was full (`PendingOverflow.refuseReadings`).
    public var refusedReadings = 0
    /// Rows not stored because their sensor was unknown and the hour's `maxNewSensorsPerHour`
    /// sensors were made (invariant 11).
    public var newSensorRowsRefused = 0
    /// Readings not stored because their time lies outside 1970…2255 (a corrupt capture's stamp).
    public var implausibleTimes = 0
    /// Readings stamped more than `futureToleranceSeconds` after the trusted current time.
    public var futureTimes = 0
    /// Readings older than the retention horizon or cutoff (they would be deleted, or hidden, at once).
    public var beyondRetention = 0
    public var prunedRows = 0
    /// WAL checkpoints completed, by the checkpoint thread or by the writer…
    public var checkpoints = 0
    /// …of which by the writer: the WAL had reached four times `checkpointPages`.
    public var checkpointsInWriter = 0
}

/// The result of one commit attempt.
public enum FlushResult: Sendable, Equatable {
    case nothingPending
    /// Not yet due, or waiting before a retry.
    case notDue
    case committed(rows: Int, inserted: Int)
    /// Nothing was written; the rows stay pending and will be retried.
    case failed(StoreError)
}

/// The logger's sink: downsamples readings and writes them in batches (see the file header).
///
/// Driven by the caller's loop: `add(_:now:)` for each reading, `tick(now:)` from the timer, both
/// with the caller's clock in seconds, which paces batches and retention steps. The real time
/// (retention's anchor, how far ahead a reading may be stamped, the pace of retries) comes from
/// the injected `StoreClock` only.
public final class SensorStore {
    public let path: String
    public let configuration: StoreConfiguration
    /// The downsampler's counters are read from it when asked, not copied at every reading.
    public var statistics: StoreStatistics {
        var s = counters
        s.downsample = downsampler.statistics
        (s.checkpoints, s.checkpointsInWriter) = checkpointer.completed
        return s
    }
    private var counters = StoreStatistics()
    /// The failure the writer is living through, `nil` when the last attempt succeeded.
    public private(set) var currentFailure: StoreError?

    /// Internal, not private: the outbox (Outbox.swift) adds its triggers and reads on it.
    let connection: Connection
    private let checkpointer: Checkpointer
    /// The checkpoint result last logged (invariant 6).
    private var reportedCheckpointResult = SQLITE_OK
    /// Whether why the checkpoint thread cannot run (`Checkpointer.unavailable`) was logged.
    private var reportedWorkerUnavailable = false
    private let log: (String) -> Void
    private let clock: any StoreClock
    private var trustedTime: TrustedTime
    /// The trusted current time at the last `refreshTime`, and what it admits: a reading is stored
    /// only if its time lies in `acceptFrom...acceptUntil` (see `add`).
    private var trustedNowMicros: Int64 = 0
    private var acceptFrom: Int64 = .min
    private var acceptUntil: Int64 = .max
    /// `meta.prune_horizon_us` as this writer last read or wrote it.
    private var horizonMicros: Int64 = .min
    /// The writer's thread's own (see THREADS): the checkpoint thread never touches them.
    private var downsampler: Downsampler
    private var pending: [StoredRow] = []
    private var pendingSince: Double?
    /// While failing: when (the clock's monotonic seconds) the next attempt may be made, and how
    /// long the wait after the next failure will be.
    private var nextAttemptAt = -Double.infinity
    private var retryDelay = 0.0
    private var failedAttempts = 0
    /// The hour (of the callers' clock, from `newSensorWindowStart`) whose new sensors
    /// `newSensorsInWindow` counts (invariant 11), and whether the cap was logged.
    private var newSensorWindowStart = -Double.infinity
    private var newSensorsInWindow = 0
    private var reportedSensorCap = false
    private var droppedThisEpisode = 0
    private var quantityIDs: [String: Int64] = [:]
    private var lastPruneAt = -Double.infinity
    /// What this connection's last commits left in `sensors` and `rollup_hourly`: each batch
    /// sensor's id, `last_seen_us` and quantity ids (`CachedSensor`), and each sensor's latest
    /// rollup hour. Valid only while `PRAGMA data_version` still reads `cacheVersion` (no other
    /// connection has committed since; our own commits leave it unchanged), and emptied by a
    /// failed commit and by `pruneStep`, so a batch reads back a sensor or a rollup only when the
    /// cache cannot vouch for it. Bounded like the downsampler (invariant 5).
    private var sensorCache: [BDAddress: CachedSensor] = [:]
    private var rollupCache: [Int64: (hour: Int64, stats: SensorStats)] = [:]
    private var cacheVersion: Int64?
    private var pruneBacklog = false
    /// The span of receive times of readings `add` took flagged, as this writer records it in
    /// `clock_unsynced`: its row once committed (`id`), whether it still grows (no trusted
    /// reading came since), and whether it changed since the last commit.
    private struct UnsyncedSpan {
        var id: Int64?
        var from: Int64
        var to: Int64
        var open = true
        var dirty = true
    }
    private var unsynced: UnsyncedSpan?

    private let selectSensor: Statement
    private let insertSensor: Statement
    private let updateSensor: Statement
    private let selectQuantity: Statement
    private let insertQuantity: Statement
    /// Multi-row INSERTs by row count (`insertChunkSizes`), prepared on first use.
    private var insertReadings: [Int: Statement] = [:]
    private let selectRollup: Statement
    /// A stored row by (time, sensor), its replacement (merges, invariant 3), and one sensor's
    /// rows of an hour (`RollupRebuild.hourSQL`).
    private let selectStored: Statement
    private let updateStored: Statement
    private let selectHourRows: Statement
    /// Multi-row rollup writes by row count (`insertChunkSizes`), prepared on first use.
    private var writeRollups: [Int: Statement] = [:]
    private let dataVersion: Statement
    /// `row_receivers`' statements, prepared with the first published row's batch.
    private var rowReceivers: RowReceiverTable?

    /// Opens (creating if needed) the store at `path` for writing.
    ///
    /// - Parameters:
    ///   - path: the database file. A file that is not ours, newer, or damaged is refused
    ///     untouched (invariant 2).
    ///   - clock: the real time (`StoreClock`); a horizon it shows to lie in the future is undone
    ///     (invariant 10).
    ///   - log: receives one-line messages about failures and recoveries (invariant 6).
    /// - Throws: `StoreError` if the file cannot be opened, validated or migrated.
    public init(
        path: String, configuration: StoreConfiguration = StoreConfiguration(),
        clock: any StoreClock = SystemClock(), log: @escaping (String) -> Void = { _ in }
    )
        throws(StoreError)
    {
        self.path = path
        self.configuration = configuration
        self.log = log
        self.clock = clock
        self.trustedTime = TrustedTime(settleSeconds: configuration.clockSettleSeconds)
        self.downsampler = Downsampler(configuration.downsample)
        let c = try Schema.open(path: path, create: true, busyTimeoutMillis: configuration.busyTimeoutMillis)
        // NORMAL in WAL: a commit is durable once the WAL is synced at checkpoint; a power cut can
        // lose the last commits but never corrupt the file, and the SD card sees far fewer fsyncs.
        try c.exec("PRAGMA synchronous = NORMAL", "set synchronous on \(path)")
        // 768 KiB of page cache (192 pages). Appends touch few pages: the last leaf of `readings`,
        // one `readings_by_sensor` leaf per active sensor, the interior pages above them, the
        // current rollup and sensor pages, ~130 pages with 50 sensors. The cache only gives pages
        // back at its limit, so the limit is what a long run's RSS grows by; 512 KiB was below the
        // working set, 768 KiB holds it (measurements: BENCHMARKS.md and git history).
        try c.exec("PRAGMA cache_size = -768", "set cache_size on \(path)")
        self.connection = c
        // Checkpoints leave the commit (Checkpointer.swift); the WAL hook that asks for them is
        // set last, below.
        let pages = max(1, configuration.checkpointPages)
        checkpointer = Checkpointer(
            path: path, pages: pages, writerLimit: 4 * pages, busyTimeoutMillis: configuration.busyTimeoutMillis)
        // The WAL file is kept at up to the size it reaches before the writer checkpoints (a
        // frame is a page and 24 bytes) and reused from its start: cutting it back at every
        // restart cost the writer ~5 ms, and the next commits extended it again. A long reader
        // holding back checkpoints can grow it further; it is cut back to this afterwards.
        let pageSize = try c.scalarInt("PRAGMA page_size") ?? 4096
        let walBytes = Int64(checkpointer.writerLimit + pages) * (pageSize + 24)
        try c.exec("PRAGMA journal_size_limit = \(walBytes)", "set journal_size_limit on \(path)")
        // A sensor is looked up, then updated by id or inserted: an upsert (ON CONFLICT DO UPDATE)
        // runs under a statement journal, whose 64 KiB buffer was malloc'ed and freed for every
        // sensor of every batch (two brk calls each, 20 % of the writer's system time).
        selectSensor = try c.prepare("SELECT id, last_seen_us FROM sensors WHERE address = ?1")
        insertSensor = try c.prepare(
            """
            INSERT INTO sensors (address, address_type, decoder_id, model, radio_name, first_seen_us, last_seen_us,
                                 last_battery_pct, last_rssi_dbm)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        // The facts of the latest hearing win; first/last seen only widen (batches may come out
        // of order after a failure). Right-hand sides read the row as it was.
        updateSensor = try c.prepare(
            """
            UPDATE sensors SET
                address_type = CASE WHEN ?7 >= last_seen_us THEN ?2 ELSE address_type END,
                decoder_id = CASE WHEN ?7 >= last_seen_us THEN ?3 ELSE decoder_id END,
                model = CASE WHEN ?7 >= last_seen_us THEN ?4 ELSE model END,
                radio_name = CASE WHEN ?7 >= last_seen_us THEN coalesce(?5, radio_name) ELSE radio_name END,
                last_battery_pct = CASE WHEN ?7 >= last_seen_us
                                   THEN coalesce(?8, last_battery_pct) ELSE last_battery_pct END,
                last_rssi_dbm = CASE WHEN ?7 >= last_seen_us THEN coalesce(?9, last_rssi_dbm) ELSE last_rssi_dbm END,
                first_seen_us = min(first_seen_us, ?6),
                last_seen_us = max(last_seen_us, ?7)
            WHERE id = ?1
            """)
        selectQuantity = try c.prepare("SELECT id FROM quantities WHERE key = ?1")
        insertQuantity = try c.prepare("INSERT INTO quantities (key, is_integer) VALUES (?1, ?2) RETURNING id")
        selectRollup = try c.prepare(
            "SELECT n_rows, n_samples, last_time_us, stats FROM rollup_hourly WHERE hour = ?1 AND sensor_id = ?2")
        dataVersion = try c.prepare("PRAGMA data_version")
        selectStored = try c.prepare(
            "SELECT samples, data, first_after_us, last_after_us FROM readings WHERE time_us = ?1 AND sensor_id = ?2")
        updateStored = try c.prepare(
            "UPDATE readings SET samples = ?3, data = ?4, first_after_us = ?5, last_after_us = ?6 "
                + "WHERE time_us = ?1 AND sensor_id = ?2")
        selectHourRows = try c.prepare(RollupRebuild.hourSQL)
        let wall = clock.wallMicros()
        if TrustedTime.plausible(wall), try Schema.repairHorizon(c, nowMicros: wall) {
            log("store: \(path): the retention horizon lay in the future (set from a future-stamped reading); "
                + "it is removed and the rollups before it computed again, so every stored row is visible")
        }
        horizonMicros = try c.scalarInt("SELECT value FROM meta WHERE key = 'prune_horizon_us'") ?? .min
        refreshTime()
        // Last, once nothing can throw: an init that throws runs no deinit, which is what removes
        // the hook before the checkpointer goes. It replaces SQLite's own autocheckpoint.
        sqlite3_wal_hook(
            c.handle,
            { context, db, _, walPages in
                if let context, let db {
                    Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue()
                        .committed(walPages: Int(walPages), writer: db)
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(checkpointer).toOpaque())
    }

    /// Rows waiting for their commit (not yet stored).
    public var pendingRows: Int { pending.count }
    /// With `PendingOverflow.refuseReadings`: the database refuses writes and `pending` has room
    /// for no more than the open buckets' rows, so `add` takes no reading (invariant 5).
    public var isRefusingReadings: Bool {
        configuration.pendingOverflow == .refuseReadings && currentFailure != nil
            && pending.count + downsampler.trackedSensors + 1 > max(1, configuration.maxPendingRows)
    }
    /// Sensors with in-memory downsampling state.
    public var trackedSensors: Int { downsampler.trackedSensors }

    /// Takes one reading. Commits when `batchRows` rows are pending. Never throws: a failing
    /// database is a state (`currentFailure`), logged once and retried (invariants 1, 6).
    /// - Parameters:
    ///   - now: the caller's monotonic clock, seconds.
    ///   - unsynchronised: its time comes from a clock not known to be right (`ClockTrust`): its
    ///     receive time goes into a span of `clock_unsynced`, committed with the next batch.
    @discardableResult
    public func add(_ reading: consuming Reading, now: Double, unsynchronised: Bool = false) -> FlushResult {
        let time = reading.timeMicros
        if let refused = refusal(time) { return refused }
        if unsynchronised {
            flagUnsynchronised(time)
        } else {
            unsynced?.open = false
        }
        let before = pending.count
        downsampler.add(reading, into: &pending)
        return added(since: before, now: now)
    }

    /// Takes one row another logger stored and published (the hub, `collect`): stored as it
    /// is, not folded, at its own time; of the copies several receivers publish of one row, the
    /// strongest is kept (RowReceivers.swift). `reading.rssi` is the RSSI `receiver` published.
    @discardableResult
    public func add(published reading: Reading, samples: Int, receiver: String, now: Double) -> FlushResult {
        if let refused = refusal(reading.timeMicros) { return refused }
        let before = pending.count
        pending.append(StoredRow(published: reading, samples: samples, receiver: receiver))
        return added(since: before, now: now)
    }

    /// What `add` answers for a reading it does not take (its time, or a full `pending`), else `nil`.
    private func refusal(_ time: Int64) -> FlushResult? {
        if isRefusingReadings {
            counters.refusedReadings += 1
            return currentFailure.map { .failed($0) } ?? .notDue
        }
        guard Schema.storableTimes.contains(time), time >= acceptFrom, time <= acceptUntil else {
            refuse(time)
            return pending.isEmpty ? .nothingPending : .notDue
        }
        return nil
    }

    /// `add`'s end: the new rows' bookkeeping, and a commit once `batchRows` are pending.
    private func added(since before: Int, now: Double) -> FlushResult {
        appended(since: before, now: now)
        assert(withinMemoryBounds())
        if pending.count >= configuration.batchRows { return flush(now: now, force: false) }
        return pending.isEmpty ? .nothingPending : .notDue
    }

    /// Widens the open span of flagged receive times by `time`, or opens one. A span not yet
    /// written is widened even once closed: it then also covers the trusted readings between (a
    /// row is flagged that need not be, never the other way).
    private func flagUnsynchronised(_ time: Int64) {
        if var span = unsynced, span.open || span.dirty {
            span.from = min(span.from, time)
            span.to = max(span.to, time)
            span.open = true
            span.dirty = true
            unsynced = span
        } else {
            unsynced = UnsyncedSpan(id: nil, from: time, to: time)
        }
    }

    /// Counts (and logs, the first of each kind) a reading `add` does not store for its time.
    private func refuse(_ time: Int64) {
        if !Schema.storableTimes.contains(time) {
            if counters.implausibleTimes == 0 {
                log("store: readings stamped outside 1970–2255 are not stored (the first: \(time) µs)")
            }
            counters.implausibleTimes += 1
        } else if time > acceptUntil {
            if counters.futureTimes == 0 {
                log(
                    "store: readings stamped more than \(configuration.futureToleranceSeconds) s after the current time "
                        + "(\(trustedNowMicros) µs) are rejected (the first: \(time) µs)")
            }
            counters.futureTimes += 1
        } else {
            if counters.beyondRetention == 0 {
                log("store: readings older than the retention cutoff (\(acceptFrom) µs) are rejected (the first: \(time) µs)")
            }
            counters.beyondRetention += 1
        }
    }

    /// Reads the clocks: the trusted current time (`TrustedTime`), and from it the times `add`
    /// accepts: from the retention cutoff (or the horizon, if later) to `futureToleranceSeconds`
    /// after now.
    private func refreshTime() {
        let monotonic = clock.monotonicSeconds()
        trustedNowMicros = trustedTime.now(wall: clock.wallMicros(), monotonic: monotonic)
        let tolerance = Self.saturatingMicros(seconds: max(0, configuration.futureToleranceSeconds))
        // A clock that cannot be right (rule d) cannot tell how far ahead is too far: the bound is
        // then the time `ClockTrust` gives the readings of such a clock (`TrustedTime.standIn`).
        let latest =
            TrustedTime.plausible(trustedNowMicros)
            ? trustedNowMicros : max(trustedNowMicros, TrustedTime.standIn(monotonic: monotonic))
        acceptUntil = latest.addingReportingOverflow(tolerance).overflow ? .max : latest + tolerance
        acceptFrom = max(horizonMicros, retentionCutoff() ?? .min)
    }

    /// `seconds` in µs, saturating at the bounds of `Int64`.
    static func saturatingMicros(seconds: Int64) -> Int64 {
        let (us, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        return overflow ? (seconds < 0 ? .min : .max) : us
    }

    /// Where retention cuts now: `retentionSeconds` before the trusted current time, floored to
    /// the hour; `nil` without retention, with a clock that cannot be right (`TrustedTime`
    /// rule d), or when the cutoff lies before any storable time. Never traps: the arithmetic
    /// saturates for any `retentionSeconds`.
    func retentionCutoff() -> Int64? {
        guard let keep = configuration.retentionSeconds, TrustedTime.plausible(trustedNowMicros) else { return nil }
        let keepMicros = Self.saturatingMicros(seconds: max(0, keep))
        let (t, overflow) = trustedNowMicros.subtractingReportingOverflow(keepMicros)
        guard !overflow, t > Schema.storableTimes.lowerBound else { return nil }
        return Self.hour(t) * Schema.microsPerHour
    }

    /// The timer: closes finished downsampling buckets, commits when due, and runs one retention
    /// step when due. Call it every few seconds (a poll timeout is enough): it closes the buckets
    /// of a silent radio and paces retries.
    /// - Parameters:
    ///   - now: the caller's monotonic clock, seconds.
    ///   - wallMicros: the wall clock (µs since the epoch), so buckets close even while the radio
    ///     is silent; `nil` closes them by the radio's time only (replays).
    @discardableResult
    public func tick(now: Double, wallMicros: Int64? = nil) -> FlushResult {
        refreshTime()
        let before = pending.count
        downsampler.closeDue(wallMicros: wallMicros, into: &pending)
        appended(since: before, now: now)
        let result = flush(now: now, force: false)
        if currentFailure == nil, configuration.retentionSeconds != nil,
            pruneBacklog || now - lastPruneAt >= configuration.pruneEverySeconds
        {
            lastPruneAt = now
            do throws(StoreError) {
                try pruneStep()
            } catch {
                // A failed prune leaves the data as it was; it is retried at the next step time.
                log(error.description)
                pruneBacklog = false
            }
        }
        return result
    }

    /// Commits every pending row now, whatever the timers say (while failing, only once the
    /// retry's wait is over, unless `force`: invariant 6).
    @discardableResult
    public func flush(now: Double, force: Bool = true) -> FlushResult {
        guard !pending.isEmpty else { return .nothingPending }
        if !force {
            let due =
                pending.count >= configuration.batchRows
                || now - (pendingSince ?? now) >= configuration.batchSeconds
            guard due else { return .notDue }
            if currentFailure != nil, clock.monotonicSeconds() < nextAttemptAt { return .notDue }
        }
        do throws(StoreError) {
            if now - newSensorWindowStart >= 3600 || now < newSensorWindowStart {
                newSensorWindowStart = now
                newSensorsInWindow = 0
            }
            let before = newSensorsInWindow
            let (inserted, merged, refused) = try commit(pending)
            let n = pending.count
            counters.committedRows += inserted
            counters.mergedRows += merged
            counters.newSensorRowsRefused += refused
            counters.ignoredRows += n - inserted - merged - refused
            if refused > 0, !reportedSensorCap {
                reportedSensorCap = true
                log(
                    "store: \(configuration.maxNewSensorsPerHour) new sensors this hour (\(before) before this batch): "
                        + "readings of further unknown addresses are not stored until the hour is over; "
                        + "known sensors are always stored")
            }
            counters.committedBatches += 1
            pending.removeAll(keepingCapacity: pending.count <= 4 * configuration.batchRows)
            pendingSince = nil
            nextAttemptAt = -Double.infinity
            retryDelay = 0
            reportCheckpoints()
            if currentFailure != nil {
                log(
                    "store: writing to \(path) resumed after \(failedAttempts) failed attempts; \(n) pending rows committed"
                )
                currentFailure = nil
                failedAttempts = 0
                droppedThisEpisode = 0
            }
            return .committed(rows: n, inserted: inserted)
        } catch {
            counters.failedCommits += 1
            failedAttempts += 1
            if currentFailure?.sqliteCode != error.sqliteCode || currentFailure == nil {
                log(
                    "\(error.description); keeping \(pending.count) rows in memory, retrying in "
                        + "\(configuration.retrySeconds) s, then less often, up to every \(configuration.maxRetrySeconds) s"
                )
            }
            currentFailure = error
            // Backing off on the real clock (invariant 6): an attempt costs as much as the rows
            // pending, so a fixed pace of the caller's clock made a replay's backlog quadratic.
            retryDelay =
                failedAttempts == 1
                ? max(0, configuration.retrySeconds)
                : min(max(configuration.retrySeconds, configuration.maxRetrySeconds), retryDelay * 2)
            nextAttemptAt = clock.monotonicSeconds() + retryDelay
            return .failed(error)
        }
    }

    /// No checkpoint is asked for or running (for tests).
    var checkpointsIdle: Bool { checkpointer.idle }
    /// The most pages the WAL held after a commit (for tests).
    var largestWALPages: Int { checkpointer.largestWALPages }

    /// Logs a change in how checkpoints fare, once (invariant 6). A failed checkpoint loses
    /// nothing: the commits stay in the WAL, which grows until a checkpoint succeeds.
    private func reportCheckpoints() {
        if !reportedWorkerUnavailable, let why = checkpointer.unavailable {
            reportedWorkerUnavailable = true
            log("store: checkpoints of \(path) run in the writer's thread; the checkpoint thread has \(why)")
        }
        let rc = checkpointer.result
        guard rc != reportedCheckpointResult else { return }
        reportedCheckpointResult = rc
        if rc == SQLITE_OK {
            log("store: checkpoints of \(path) succeed again")
        } else {
            log(
                "store: checkpoint of \(path) failed: \(String(cString: sqlite3_errstr(rc))) (code \(rc)); "
                    + "committed rows stay in the WAL, which grows until a checkpoint succeeds")
        }
    }

    /// Writes out every open bucket and commits. Call before exiting; the store stays usable.
    /// - Throws: the commit's `StoreError`; the rows then stay pending (a later call may succeed).
    public func close(now: Double) throws(StoreError) {
        let before = pending.count
        downsampler.closeAll(into: &pending)
        appended(since: before, now: now)
        // The last commit has no later retry: it waits for another writer (a second logger, a
        // `sensors alias`) as long as opening a store does, where a batch waits only briefly.
        sqlite3_busy_timeout(connection.handle, max(configuration.busyTimeoutMillis, Schema.openPatienceMillis))
        let result = flush(now: now, force: true)
        // The checkpoint running now is finished; closing the connection copies the rest.
        checkpointer.stop()
        if case .failed(let e) = result { throw e }
    }

    deinit {
        sqlite3_wal_hook(connection.handle, nil, nil)
        checkpointer.stop()
    }

    /// For fault tests: limits the file to `pages` pages (`PRAGMA max_page_count`), which makes
    /// SQLite answer SQLITE_FULL exactly as a full disk does. Returns the limit in force.
    @discardableResult
    public func setMaxPageCount(_ pages: Int64) throws(StoreError) -> Int64 {
        try connection.scalarInt("PRAGMA max_page_count = \(pages)") ?? 0
    }

    /// Pages in the database file now.
    public func pageCount() throws(StoreError) -> Int64 {
        try connection.scalarInt("PRAGMA page_count") ?? 0
    }

    // MARK: - Batching

    /// Invariant 5's in-memory part; cheap, so DEBUG builds assert it after every change.
    private func withinMemoryBounds() -> Bool {
        pending.count <= max(1, configuration.maxPendingRows)
            && downsampler.trackedSensors <= max(1, configuration.downsample.maxSensors)
            && quantityIDs.count <= configuration.maxCachedQuantities
            && sensorCache.count <= cacheBound && rollupCache.count <= cacheBound
    }

    /// The bookkeeping of rows the downsampler appended to `pending` from index `before` on.
    private func appended(since before: Int, now: Double) {
        guard pending.count > before else { return }
        if before == 0 { pendingSince = now }
        // A row shares its reading's measurement list (`StoredRow.listed`), which decoders reserve
        // for 8: harmless for one batch, but a backlog while the database refuses writes keeps
        // rows for long, so beyond a batch each row keeps a list of its own size (invariant 5's
        // `maxPendingRows` rows stay ~30 MB).
        if pending.count > configuration.batchRows {
            for i in max(before, configuration.batchRows)..<pending.count { pending[i].compact() }
        }
        // As if checked after each row: the oldest tenth goes whenever the bound is passed.
        while pending.count > max(1, configuration.maxPendingRows) {
            // Invariant 5: drop the oldest tenth at once (amortized O(1) per row).
            let n = max(1, configuration.maxPendingRows / 10)
            pending.removeFirst(n)
            counters.droppedRows += n
            if droppedThisEpisode == 0 {
                log(
                    "store: \(n) oldest pending rows dropped: \(configuration.maxPendingRows) rows waiting while \(path) refuses writes"
                )
            }
            droppedThisEpisode += n
        }
    }

    private struct RollupKey: Hashable {
        var hour: Int64
        var sensorID: Int64
    }

    /// Rows per multi-row INSERT, largest first. One statement execution per row cost as much as
    /// the insert itself (VM start, cursor opens, halt, reset: ~40 % of `sqlite3_step`), and
    /// within one execution the table cursor stays on its last leaf, so appends skip the descent.
    /// 64 × 4 parameters stays far below SQLITE_MAX_VARIABLE_NUMBER (999 in old builds).
    static let insertChunkSizes = [64, 8, 1]

    /// A sensor as the last commit left it (`sensorCache`): its id, `last_seen_us`, and its last
    /// row's quantity-id mapping (`BatchSensor.quantities`, `.ids`, `.order`), which the first row
    /// of its next batch reuses rather than working it out again (a hashed lookup per quantity
    /// key and three arrays). Sound because quantity ids never change (`quantities.id` is never reused).
    private struct CachedSensor {
        var id: Int64
        var lastSeen: Int64
        var quantities: [Quantity]
        var ids: [Int64]
        var order: [Int]
    }

    /// One sensor of the batch being committed.
    private struct BatchSensor {
        var address: BDAddress
        /// Index (in the batch) of the row heard last: its facts go to `sensors`.
        var latest: Int
        var first: Int64
        var battery: Double?
        var batteryTime = Int64.min
        var id: Int64 = 0
        /// Rows of this sensor with `time_us` above this are certainly not stored yet (see `commit`).
        var newAbove = Int64.max
        /// `sensors.last_seen_us` once the batch is written.
        var lastSeen = Int64.min
        /// Quantity ids of the last row's measurements (same quantities, same order: reused).
        var quantities: [Quantity] = []
        var ids: [Int64] = []
        /// Indices into the row's key-ordered measurements in ascending quantity id (the codec's order).
        var order: [Int] = []
        /// The rollup the previous row went to, so consecutive rows of one hour hash nothing.
        var rollupHour = Int64.min
        var rollupSlot = -1
        /// Not in `sensors` and over this hour's budget of new sensors (invariant 11): its rows
        /// are not stored.
        var refused = false
    }

    /// The batch `commit` is writing, as its steps leave it (one value, so each step says what it
    /// reads and changes).
    private struct Batch {
        let rows: [StoredRow]
        /// What the batch's errors say was attempted.
        let attempted: String
        /// One entry per distinct sensor of the batch (`readSensors`), and each row's entry.
        var sensors: [BatchSensor] = []
        var slotOfRow: [Int]
        /// Sensors this batch creates (invariant 11), counted once it commits.
        var created = 0
        /// Quantity ids made in this transaction: cached only once it commits.
        var newQuantities: [String: Int64] = [:]
        /// Rows certainly not stored yet, in time order per sensor (`sortRows`); the others
        /// (replays, out-of-order rows); and how many rows an over-budget new sensor had.
        var fresh: [Int] = []
        var others: [Int] = []
        var refusedRows = 0
        /// The batch's rollups, aggregated in memory (one upsert per key). Slots by key are made
        /// only once a row may go to an hour its sensor has left (the `others`): a sensor's fresh
        /// rows come in time order, so each change of hour among them is a new (hour, sensor) and
        /// no key needs hashing.
        var rollups: [(key: RollupKey, stats: SensorStats)] = []
        var rollupSlot: [RollupKey: Int] = [:]
        var rollupSlotMade = false
        /// Rollups of rows merged into stored ones: read again from the rows.
        var recompute: Set<RollupKey> = []
        var inserted = 0
        var merged = 0
        /// Where each row's blob ends in `insert`'s buffer (kept to reuse its storage).
        var ends: [Int] = []

        init(rows: [StoredRow], attempted: String) {
            self.rows = rows
            self.attempted = attempted
            slotOfRow = [Int](repeating: 0, count: rows.count)
        }

        /// Row `i`'s (hour, sensor) rollup, begun with the row: its items follow by `addItem`.
        /// `inOrder`: the row is later than every row of its sensor before it in this batch.
        mutating func beginRollup(_ i: Int, inOrder: Bool) -> Int {
            let time = rows[i].timeMicros
            let s = slotOfRow[i]
            let hour = SensorStore.hour(time)
            if sensors[s].rollupHour != hour {
                let key = RollupKey(hour: hour, sensorID: sensors[s].id)
                if !inOrder && !rollupSlotMade {
                    for k in rollups.indices { rollupSlot[rollups[k].key] = k }
                    rollupSlotMade = true
                }
                if !inOrder, let k = rollupSlot[key] {
                    sensors[s].rollupSlot = k
                } else {
                    sensors[s].rollupSlot = rollups.count
                    if rollupSlotMade { rollupSlot[key] = rollups.count }
                    // Room for the row's quantities at once: grown one at a time, each new
                    // rollup reallocated its list twice (three quantities).
                    var stats = SensorStats()
                    stats.quantities.reserveCapacity(rows[i].count)
                    rollups.append((key, stats))
                }
                sensors[s].rollupHour = hour
            }
            rollups[sensors[s].rollupSlot].stats.beginRow(samples: Int64(rows[i].samples), time: time)
            return sensors[s].rollupSlot
        }

        /// Adds row `i` (inserted; its sensor's mapping describes it) to its (hour, sensor) rollup.
        /// The same per-item steps as `insert`'s loop, which does them while it encodes the
        /// row's blob (one pass over the values).
        mutating func addToRollup(_ i: Int) {
            let slot = beginRollup(i, inOrder: false)
            let s = slotOfRow[i]
            for j in sensors[s].order.indices {
                let k = sensors[s].order[j]
                rollups[slot].stats.addItem(
                    j, id: sensors[s].ids[k], value: rows[i].measurement(k).value,
                    samples: Int64(rows[i].samples), time: rows[i].timeMicros)
            }
        }
    }

    /// One transaction: sensors, quantities, rows, rollups. Returns the rows newly inserted, merged
    /// into stored ones, and refused (invariant 11).
    ///
    /// Invariant 3 needs to know which rows were ignored as already stored, to keep them out of
    /// the rollups; a multi-row INSERT only reports a total. So rows are split: a row whose time
    /// is above its sensor's `last_seen_us` as read in this transaction (invariant 8: no stored row
    /// of the sensor is later) and above every earlier row of its sensor in the batch is *new*
    /// and goes in multi-row chunks, each checked to insert all its rows; any other row (replays,
    /// out-of-order rows) goes alone, with its own `changes` check, after the new ones (it can only
    /// collide with a stored or an earlier row, never with a later new one).
    private func commit(_ rows: [StoredRow]) throws(StoreError) -> (inserted: Int, merged: Int, refused: Int) {
        let attempted = "commit a batch of \(rows.count) rows to \(path)"
        try connection.exec("BEGIN IMMEDIATE", "begin a batch on \(path)")
        do throws(StoreError) {
            // Before any read of the batch: did another connection commit since our last batch?
            let version = try dataVersion.step() ? dataVersion.int64(0) : nil
            dataVersion.reset()
            if version == nil || version != cacheVersion { dropCaches() }
            var batch = Self.readSensors(rows, attempted: attempted)
            try upsertSensors(&batch)
            Self.sortRows(&batch)
            try insertFresh(&batch)
            for i in batch.fresh where batch.rows[i].receiver != nil { try recordReceiver(i, batch) }
            try insertOrMergeOthers(&batch)
            let written = try rollupsToWrite(batch)
            // Written with multi-row statements (`insertChunkSizes`), every `stats` blob encoded in
            // place into one buffer: one statement per rollup cost a VM start, halt and reset each,
            // and each blob an array grown byte by byte. Keys are distinct (one rollup per (hour,
            // sensor): see `Batch.rollupSlot`), so one multi-row INSERT OR REPLACE does what the
            // single-row ones did.
            var unwritten = written[...]
            for size in Self.insertChunkSizes {
                while unwritten.count >= size {
                    try writeRollups(unwritten.prefix(size))
                    unwritten = unwritten.dropFirst(size)
                }
            }
            let spanID = try recordUnsynchronised()
            try connection.exec("COMMIT", attempted)
            rememberCommitted(batch, written: written, version: version)
            if let spanID, var span = unsynced {
                span.id = spanID
                span.dirty = false
                unsynced = span.open ? span : nil
            }
            return (batch.inserted, batch.merged, batch.refusedRows)
        } catch {
            if let e = connection.rollbackIfNeeded() { log(e.description) }
            dropCaches()
            if case .sqlite(let code, let message, _) = error {
                throw .sqlite(code: code, message: message, attempted: attempted)
            }
            throw error
        }
    }

    /// Step 1: the batch's distinct sensors, each with its latest row (whose facts go to
    /// `sensors`), first hearing and latest battery. Looked up once per row: an `AddressIndex`, not
    /// a SipHash-ing `Dictionary`.
    private static func readSensors(_ rows: [StoredRow], attempted: String) -> Batch {
        var b = Batch(rows: rows, attempted: attempted)
        var sensorSlot = AddressIndex(capacity: min(rows.count, 64))
        let batteryKey = Quantity.batteryPercent
        for i in rows.indices {
            // Fields read in place: a copy of the row would retain its strings and arrays.
            let address = rows[i].address
            let heard = rows[i].lastHeardMicros
            let battery = rows[i].value(batteryKey)
            let s: Int
            if let known = sensorSlot[address] {
                s = known
                b.sensors[s].first = min(b.sensors[s].first, rows[i].firstHeardMicros)
                if heard >= rows[b.sensors[s].latest].lastHeardMicros { b.sensors[s].latest = i }
            } else {
                s = b.sensors.count
                sensorSlot.set(address, s)
                b.sensors.append(BatchSensor(address: address, latest: i, first: rows[i].firstHeardMicros))
            }
            if let battery, heard >= b.sensors[s].batteryTime {
                b.sensors[s].battery = battery
                b.sensors[s].batteryTime = heard
            }
            b.slotOfRow[i] = s
        }
        return b
    }

    /// Step 2: one upsert per sensor with its latest facts; a new one only within the hour's
    /// budget (invariant 11). Learns each sensor's id, and above which time its rows are new.
    private func upsertSensors(_ b: inout Batch) throws(StoreError) {
        let rows = b.rows
        for s in b.sensors.indices {
            let address = Int64(bitPattern: b.sensors[s].address.rawValue)
            // Before the update raises it: no stored row of the sensor is later (invariant 8).
            let known: Int64?
            if let c = sensorCache[b.sensors[s].address] {
                known = c.id
                b.sensors[s].newAbove = c.lastSeen
                b.sensors[s].quantities = c.quantities
                b.sensors[s].ids = c.ids
                b.sensors[s].order = c.order
            } else {
                let q = selectSensor
                try q.bind(1, address)
                known = try q.step() ? q.int64(0) : nil
                b.sensors[s].newAbove = known == nil ? Int64.min : q.int64(1)
                q.reset()
            }
            if known == nil {
                // Invariant 11: a flood of unknown addresses gets so many sensors an hour.
                guard newSensorsInWindow + b.created < max(0, configuration.maxNewSensorsPerHour) else {
                    b.sensors[s].refused = true
                    continue
                }
                b.created += 1
            }
            let row = rows[b.sensors[s].latest]
            b.sensors[s].lastSeen = max(b.sensors[s].newAbove, row.lastHeardMicros)
            let u = known == nil ? insertSensor : updateSensor
            try u.bind(1, known ?? address)
            try u.bind(2, Int64(row.addressType.rawValue))
            try u.bind(3, row.decoderID)
            try u.bind(4, row.model)
            try u.bind(5, row.name)
            try u.bind(6, b.sensors[s].first)
            try u.bind(7, row.lastHeardMicros)
            try u.bind(8, b.sensors[s].battery)
            try u.bind(9, row.rssi.map { Int64($0) })
            try u.run()
            u.reset()
            b.sensors[s].id = known ?? connection.lastInsertRowID
        }
    }

    /// Step 3: each row is fresh (later than anything stored or earlier in the batch for its
    /// sensor), another (it may meet a stored row), or refused (its new sensor is over budget).
    private static func sortRows(_ b: inout Batch) {
        b.fresh.reserveCapacity(b.rows.count)
        for i in b.rows.indices {
            let s = b.slotOfRow[i]
            let t = b.rows[i].timeMicros
            if b.sensors[s].refused {
                b.refusedRows += 1
            } else if t > b.sensors[s].newAbove {
                b.fresh.append(i)
                b.sensors[s].newAbove = t
            } else {
                b.others.append(i)
            }
        }
    }

    /// Step 4: the fresh rows, in multi-row chunks that must each insert every row, rolled up as
    /// they are encoded.
    private func insertFresh(_ b: inout Batch) throws(StoreError) {
        var next = b.fresh[...]
        for size in Self.insertChunkSizes {
            while next.count >= size {
                let chunk = next.prefix(size)
                next = next.dropFirst(size)
                let n = try insert(chunk, rollingUp: true, &b)
                guard n == size else {
                    // Invariant 8 did not hold: stop before the rollups diverge from the rows.
                    throw StoreError.sqlite(
                        code: SQLITE_CORRUPT,
                        message: "\(size - n) rows of \(size) were already stored though later than their "
                            + "sensor's last_seen_us", attempted: b.attempted)
                }
                b.inserted += n
            }
        }
    }

    /// Step 5: the other rows one by one: inserted if their (time, sensor) is free, else merged
    /// into the stored row or left as a replay (invariant 3), or for a published row, put in
    /// its place or dropped by receiver (RowReceivers.swift).
    private func insertOrMergeOthers(_ b: inout Batch) throws(StoreError) {
        for i in b.others {
            if try insert([i], rollingUp: false, &b) == 1 {
                b.addToRollup(i)
                b.inserted += 1
                try recordReceiver(i, b)
            } else if try (b.rows[i].receiver != nil ? replaceIfOutranked(i, b) : mergeIntoStored(i, b)) {
                b.merged += 1
                b.recompute.insert(RollupKey(hour: Self.hour(b.rows[i].timeMicros), sensorID: b.sensors[b.slotOfRow[i]].id))
            }
        }
    }

    /// Makes row `i`'s sensor's id mapping (`BatchSensor.ids`, `.order`) describe row `i`,
    /// reusing the last one when it fits; returns the sensor's slot.
    private func mapQuantities(_ i: Int, _ b: inout Batch) throws(StoreError) -> Int {
        let rows = b.rows
        let s = b.slotOfRow[i]
        // In the row's key order (`StoredRow.measurement`): no array is built per row.
        let n = rows[i].count
        var same = b.sensors[s].quantities.count == n
        if same {
            for k in 0..<n where b.sensors[s].quantities[k] != rows[i].measurement(k).quantity {
                same = false
                break
            }
        }
        if !same {
            var ids: [Int64] = []
            ids.reserveCapacity(n)
            for k in 0..<n { ids.append(try quantityID(rows[i].measurement(k).quantity, staged: &b.newQuantities)) }
            b.sensors[s].quantities = (0..<n).map { rows[i].measurement($0).quantity }
            b.sensors[s].order = ids.indices.sorted { ids[$0] < ids[$1] }
            b.sensors[s].ids = ids
        }
        return s
    }

    /// Inserts rows `chunk` with one statement; returns how many were inserted. With
    /// `rollingUp`, each row goes to its rollup as its blob is written (one pass over its
    /// values, no intermediate list, nothing captured: a lazy view over the row for
    /// `addRow` retained three arrays a row): only for chunks that must insert every row,
    /// where any other outcome throws and the rollups are dropped with the transaction.
    private func insert(_ chunk: ArraySlice<Int>, rollingUp: Bool, _ b: inout Batch) throws(StoreError) -> Int {
        let rows = b.rows
        // Every row's blob in one buffer, each written in place right after its sensor's mapping
        // is made current (a row's mapping may change between rows of the chunk: a sensor's
        // quantities changed); the mapping may read or insert a quantity (throws), so rows are
        // appended one at a time.
        var items = 0
        for i in chunk { items += rows[i].count }
        var blobs: [UInt8] = []
        blobs.reserveCapacity(items * MeasurementCodec.maxItemBytes)
        b.ends.removeAll(keepingCapacity: true)
        for i in chunk {
            let s = try mapQuantities(i, &b)
            let slot = rollingUp ? b.beginRollup(i, inOrder: true) : -1
            let samples = Int64(rows[i].samples)
            let time = rows[i].timeMicros
            blobs.append(addingCapacity: b.sensors[s].order.count * MeasurementCodec.maxItemBytes) {
                (o: inout OutputSpan<UInt8>) in
                for j in b.sensors[s].order.indices {
                    let k = b.sensors[s].order[j]
                    let id = b.sensors[s].ids[k]
                    let value = rows[i].measurement(k).value
                    MeasurementCodec.writeVarint(UInt64(bitPattern: id), to: &o)
                    MeasurementCodec.writeValue(value, to: &o)
                    if rollingUp {
                        b.rollups[slot].stats.addItem(j, id: id, value: value, samples: samples, time: time)
                    }
                }
            }
            b.ends.append(blobs.count)
        }
        let st = try insertStatement(rows: chunk.count)
        do throws(StoreError) {
            var p: Int32 = 1
            for i in chunk {
                try st.bind(p, rows[i].timeMicros)
                try st.bind(p + 1, b.sensors[b.slotOfRow[i]].id)
                try st.bind(p + 2, rows[i].samples)
                try st.bind(p + 4, rows[i].firstHeardMicros &- rows[i].timeMicros)
                try st.bind(p + 5, rows[i].lastHeardMicros &- rows[i].timeMicros)
                p += 6
            }
            // The blobs are parameters 4, 10, …. Left bound after the run (no clearing reset):
            // every one of the statement's 6 × rows parameters is bound again here before its
            // next run.
            try st.runBindingPieces(of: blobs, ends: b.ends, first: 4, stride: 6)
            return connection.changes
        } catch {
            st.reset()
            throw error
        }
    }

    /// Row `i` (its sensor's mapping describes it) met a stored row of its (time, sensor):
    /// merges it in, puts it in its place, or leaves it (invariant 3). Returns whether
    /// the stored row changed.
    private func mergeIntoStored(_ i: Int, _ b: Batch) throws(StoreError) -> Bool {
        let row = b.rows[i]
        let sensor = b.sensors[b.slotOfRow[i]]
        let time = row.timeMicros
        let q = selectStored
        try q.bind(1, time)
        try q.bind(2, sensor.id)
        guard try q.step(), !q.isNull(2), !q.isNull(3) else {
            q.reset()
            return false  // stored before migration 2: which advertisements it holds is unknown
        }
        let stored = StoredSpan(samples: q.int64(0), first: time &+ q.int64(2), last: time &+ q.int64(3))
        let incoming = StoredSpan(samples: Int64(row.samples), first: row.firstHeardMicros, last: row.lastHeardMicros)
        var items: [(id: Int64, value: Double)] = []
        items.reserveCapacity(sensor.order.count)
        for k in sensor.order { items.append((sensor.ids[k], row.measurement(k).value)) }
        let result: (span: StoredSpan, items: [(id: Int64, value: Double)])
        switch stored.meets(incoming) {
        case .replay:
            q.reset()
            return false
        case .replace:
            q.reset()
            result = (incoming, items)
        case .merge:
            var old: [(id: Int64, value: Double)] = []
            let ok = q.decodeMeasurements(1) { old.append(($0, $1)) }
            q.reset()
            guard ok else {
                throw StoreError.sqlite(
                    code: SQLITE_CORRUPT, message: "malformed row of sensor \(sensor.id) at \(time) µs",
                    attempted: b.attempted)
            }
            var integer: Set<Int64> = []
            for k in sensor.order where row.measurement(k).quantity.isInteger {
                integer.insert(sensor.ids[k])
            }
            result = (stored.merged(with: incoming), StoredSpan.merge(old, stored, items, incoming, lastWins: integer))
        }
        try rewriteStored(time: time, sensorID: sensor.id, span: result.span, items: result.items)
        return true
    }

    /// Puts `span` and `items` (ascending ids) in the place of the stored row at (time, sensor).
    private func rewriteStored(
        time: Int64, sensorID: Int64, span: StoredSpan, items: [(id: Int64, value: Double)]
    ) throws(StoreError) {
        var data: [UInt8] = []
        MeasurementCodec.encode(items, into: &data)
        let u = updateStored
        try u.bind(1, time)
        try u.bind(2, sensorID)
        try u.bind(3, span.samples)
        if data.isEmpty {
            try u.bindEmptyBlob(4)
        } else {
            try u.bind(4, data)
        }
        try u.bind(5, span.first &- time)
        try u.bind(6, span.last &- time)
        try u.run()
        u.reset()
    }

    /// `row_receivers`, its statements prepared on first use.
    private func receiverTable() throws(StoreError) -> RowReceiverTable {
        if let t = rowReceivers { return t }
        let t = try RowReceiverTable(connection)
        rowReceivers = t
        return t
    }

    /// Records who published row `i`, just inserted, if another logger did (RowReceivers.swift).
    private func recordReceiver(_ i: Int, _ b: Batch) throws(StoreError) {
        guard let by = b.rows[i].publishedBy else { return }
        try receiverTable().record(by, time: b.rows[i].timeMicros, sensorID: b.sensors[b.slotOfRow[i]].id)
    }

    /// Published row `i` (its sensor's mapping describes it) met a stored row of its (time,
    /// sensor): takes its place if its receiver outranks the stored row's, else is dropped
    /// (RowReceivers.swift). Returns whether the stored row changed.
    private func replaceIfOutranked(_ i: Int, _ b: Batch) throws(StoreError) -> Bool {
        let row = b.rows[i]
        let sensor = b.sensors[b.slotOfRow[i]]
        guard let by = row.publishedBy else { return false }
        let table = try receiverTable()
        guard by.outranks(try table.receiver(time: row.timeMicros, sensorID: sensor.id)) else { return false }
        var items: [(id: Int64, value: Double)] = []
        items.reserveCapacity(sensor.order.count)
        for k in sensor.order { items.append((sensor.ids[k], row.measurement(k).value)) }
        let span = StoredSpan(samples: Int64(row.samples), first: row.firstHeardMicros, last: row.lastHeardMicros)
        try rewriteStored(time: row.timeMicros, sensorID: sensor.id, span: span, items: items)
        try table.record(by, time: row.timeMicros, sensorID: sensor.id)
        return true
    }

    /// Step 6: the rollups as they are to be stored: the batch's merged into the stored hour (from
    /// the cache or read: one row per (hour, sensor)), and a merged row's hour read again from the
    /// rows (its old value may have been the hour's minimum or maximum), this batch's rows of it
    /// included.
    private func rollupsToWrite(_ b: Batch) throws(StoreError) -> [(key: RollupKey, stats: SensorStats)] {
        var recomputed: [RollupKey: SensorStats] = [:]
        for k in b.recompute {
            recomputed[k] = try RollupRebuild.stats(hour: k.hour, sensorID: k.sensorID, using: selectHourRows)
        }
        var written: [(key: RollupKey, stats: SensorStats)] = []
        written.reserveCapacity(b.rollups.count)
        for (k, batchStats) in b.rollups {
            if let r = recomputed.removeValue(forKey: k) {
                written.append((k, r))
                continue
            }
            let hourStart = k.hour * Schema.microsPerHour
            var merged = SensorStats()
            let q = selectRollup
            let cached = rollupCache[k.sensorID].flatMap { $0.hour == k.hour ? $0.stats : nil }
            if let cached {
                merged = cached
            } else if try readRollup(k) {
                merged.rows = q.int64(0)
                merged.samples = q.int64(1)
                merged.lastTime = q.int64(2)
                let ok = q.decodeStats(3, hourStart: hourStart) { merged.merge($0, $1) }
                guard ok else {
                    q.reset()
                    throw StoreError.sqlite(
                        code: SQLITE_CORRUPT, message: "malformed rollup of sensor \(k.sensorID), hour \(k.hour)",
                        attempted: b.attempted)
                }
                q.reset()
            } else {
                q.reset()
            }
            merged.merge(batchStats)
            written.append((k, merged))
        }
        for (k, r) in recomputed { written.append((k, r)) }
        return written
    }

    /// Step 7: the span of flagged receive times, inserted or widened in `clock_unsynced`; returns
    /// its row's id, `nil` when it had not changed.
    private func recordUnsynchronised() throws(StoreError) -> Int64? {
        guard let span = unsynced, span.dirty else { return nil }
        let st = try connection.prepare(
            span.id == nil
                ? "INSERT INTO clock_unsynced (from_us, to_us) VALUES (?2, ?3)"
                : "UPDATE clock_unsynced SET from_us = ?2, to_us = ?3 WHERE id = ?1")
        try st.bind(1, span.id ?? 0)
        try st.bind(2, span.from)
        try st.bind(3, span.to)
        try st.run()
        return span.id ?? connection.lastInsertRowID
    }

    /// Step 8, once committed: the caches now describe the file (see `sensorCache`), and the
    /// batch's new sensors count against the hour's budget.
    private func rememberCommitted(
        _ b: Batch, written: [(key: RollupKey, stats: SensorStats)], version: Int64?
    ) {
        cacheVersion = version
        if sensorCache.count + b.sensors.count > cacheBound { sensorCache.removeAll() }
        for s in b.sensors where !s.refused {
            sensorCache[s.address] = CachedSensor(
                id: s.id, lastSeen: s.lastSeen, quantities: s.quantities, ids: s.ids, order: s.order)
        }
        if rollupCache.count + written.count > cacheBound { rollupCache.removeAll() }
        for (k, stats) in written where rollupCache[k.sensorID].map({ $0.hour <= k.hour }) ?? true {
            rollupCache[k.sensorID] = (k.hour, stats)
        }
        // Only now are the new ids real (a rolled-back id could be reused by SQLite).
        if quantityIDs.count + b.newQuantities.count > configuration.maxCachedQuantities { quantityIDs.removeAll() }
        if b.newQuantities.count <= configuration.maxCachedQuantities {
            quantityIDs.merge(b.newQuantities) { a, _ in a }
        }
        assert(withinMemoryBounds())
        newSensorsInWindow += b.created
    }

    /// Steps `selectRollup` for `k`: `true` with its row to read (the caller resets it).
    private func readRollup(_ k: RollupKey) throws(StoreError) -> Bool {
        try selectRollup.bind(1, k.hour)
        try selectRollup.bind(2, k.sensorID)
        return try selectRollup.step()
    }

    /// Writes `chunk` with one `INSERT OR REPLACE` of its size (parameters `(hour, sensor_id,
    /// n_rows, n_samples, last_time_us, stats)` per rollup).
    private func writeRollups(
        _ chunk: ArraySlice<(key: RollupKey, stats: SensorStats)>
    ) throws(StoreError) {
        let st = try rollupStatement(rows: chunk.count)
        let room = chunk.reduce(0) { $0 + $1.stats.quantities.count } * SensorStats.maxStatsBytes
        var ends: [Int] = []
        ends.reserveCapacity(chunk.count)
        let blobs = [UInt8](capacity: room) { (o: inout OutputSpan<UInt8>) in
            for (k, stats) in chunk {
                stats.writeStats(hourStart: k.hour * Schema.microsPerHour, to: &o)
                ends.append(o.count)
            }
        }
        do throws(StoreError) {
            var p: Int32 = 1
            for (k, stats) in chunk {
                try st.bind(p, k.hour)
                try st.bind(p + 1, k.sensorID)
                try st.bind(p + 2, stats.rows)
                try st.bind(p + 3, stats.samples)
                try st.bind(p + 4, stats.lastTime)
                p += 6
            }
            // The blobs are parameters 6, 12, …. Left bound after the run (no clearing reset):
            // every one of the statement's 6 × rollups parameters is bound again here before its
            // next run.
            try st.runBindingPieces(of: blobs, ends: ends, first: 6, stride: 6)
        } catch {
            st.reset()
            throw error
        }
    }

    /// `INSERT OR REPLACE` of `rows` rollups, prepared on first use.
    private func rollupStatement(rows n: Int) throws(StoreError) -> Statement {
        try Self.multiRow(
            connection, "INSERT OR REPLACE INTO rollup_hourly (hour, sensor_id, n_rows, n_samples, last_time_us, stats)",
            columns: 6, rows: n, cache: &writeRollups)
    }

    /// `head VALUES (?, …), …`: `rows` tuples of `columns` parameters, prepared on first use and
    /// kept in `cache` by row count.
    private static func multiRow(
        _ c: Connection, _ head: String, columns: Int, rows n: Int, cache: inout [Int: Statement]
    ) throws(StoreError) -> Statement {
        if let s = cache[n] { return s }
        let tuple = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        let s = try c.prepare(head + " VALUES " + Array(repeating: tuple, count: n).joined(separator: ", "))
        cache[n] = s
        return s
    }

    /// Bound of each of the commit caches (invariant 5): as many sensors as the downsampler tracks.
    private var cacheBound: Int { max(64, configuration.downsample.maxSensors) }

    /// Forgets what the caches know (another connection wrote, a commit failed, a prune ran).
    private func dropCaches() {
        sensorCache.removeAll()
        rollupCache.removeAll()
        cacheVersion = nil
    }

    /// `INSERT OR IGNORE` of `rows` rows (invariant 3), parameters `(time_us, sensor_id, samples,
    /// data)` per row in order.
    private func insertStatement(rows n: Int) throws(StoreError) -> Statement {
        try Self.multiRow(
            connection, "INSERT OR IGNORE INTO readings (time_us, sensor_id, samples, data, first_after_us, last_after_us)",
            columns: 6, rows: n,
            cache: &insertReadings)
    }

    /// The id of a quantity key, creating it inside the current transaction if new.
    private func quantityID(_ q: Quantity, staged: inout [String: Int64]) throws(StoreError) -> Int64 {
        if let id = quantityIDs[q.key] ?? staged[q.key] { return id }
        let s = selectQuantity
        try s.bind(1, q.key)
        var id: Int64? = nil
        if try s.step() { id = s.int64(0) }
        s.reset()
        if id == nil {
            let i = insertQuantity
            try i.bind(1, q.key)
            try i.bind(2, q.isInteger ? 1 : 0)
            if try i.step() { id = i.int64(0) }
            i.reset()
        }
        guard let id else {
            throw StoreError.sqlite(
                code: SQLITE_INTERNAL, message: "no id for quantity \(q.key)", attempted: "store quantity")
        }
        staged[q.key] = id
        return id
    }

    static func hour(_ t: Int64) -> Int64 {
        t >= 0 ? t / Schema.microsPerHour : (t - Schema.microsPerHour + 1) / Schema.microsPerHour
    }

    // MARK: - Retention

    /// One retention step (invariant 7): deletes ≤ `pruneRowsPerStep` of the oldest rows before
    /// the cutoff, and the rollup hours left without rows. `tick` calls it every
    /// `pruneEverySeconds`, or at every tick while a backlog remains. Returns the rows deleted.
    @discardableResult
    public func pruneStep() throws(StoreError) -> Int {
        // Hour-aligned, so whole rollup hours go and partial hours never straddle the horizon;
        // anchored on the trusted current time, so no reading's stamp can move it.
        refreshTime()
        guard let cutoff = retentionCutoff() else { return 0 }
        let attempted = "prune rows before \(cutoff) µs from \(path)"
        // It deletes rows and rollups behind the caches' back.
        dropCaches()
        try connection.exec("BEGIN IMMEDIATE", attempted)
        do throws(StoreError) {
            let n = max(1, configuration.pruneRowsPerStep)
            let probe = try connection.prepare(
                "SELECT time_us FROM readings WHERE time_us < ?1 ORDER BY time_us LIMIT 1 OFFSET ?2")
            try probe.bind(1, cutoff)
            try probe.bind(2, n - 1)
            let nth: Int64? = try probe.step() ? probe.int64(0) : nil
            probe.reset()
            let del = try connection.prepare("DELETE FROM readings WHERE time_us < ?1")
            var bound = nth ?? cutoff
            try del.bind(1, bound)
            try del.run()
            var deleted = connection.changes
            if deleted == 0, let nth {
                // ≥ n rows share the oldest time (one per sensor): take that one time whole.
                bound = nth + 1
                del.reset()
                try del.bind(1, bound)
                try del.run()
                deleted = connection.changes
            }
            let receivers = try connection.prepare("DELETE FROM row_receivers WHERE time_us < ?1")
            try receivers.bind(1, bound)
            try receivers.run()
            let rollups = try connection.prepare("DELETE FROM rollup_hourly WHERE hour < ?1")
            try rollups.bind(1, Self.hour(bound))
            try rollups.run()
            let horizon = try connection.prepare(
                "INSERT INTO meta (key, value) VALUES ('prune_horizon_us', ?1) "
                    + "ON CONFLICT (key) DO UPDATE SET value = max(value, excluded.value)")
            try horizon.bind(1, cutoff)
            try horizon.run()
            try connection.exec("COMMIT", attempted)
            horizonMicros = max(horizonMicros, cutoff)
            counters.prunedRows += deleted
            // At least a full step was older than the cutoff: more may remain, go on next tick.
            pruneBacklog = nth != nil
            return deleted
        } catch {
            if let e = connection.rollbackIfNeeded() { log(e.description) }
            throw error
        }
    }

    // MARK: - Invariants

    #if DEBUG
        /// Checks invariants 2, 4, 5 and 8 (the database part reads every row: tests only).
        /// - Returns: one line per violation; empty when all hold.
        public func checkInvariants() throws(StoreError) -> [String] {
            var problems: [String] = []
            if !withinMemoryBounds() { problems.append("(5) an in-memory table is over its bound") }
            if pending.count > max(1, configuration.maxPendingRows) {
                problems.append("(5) pending \(pending.count) rows")
            }
            if downsampler.trackedSensors > max(1, configuration.downsample.maxSensors) {
                problems.append("(5) downsampler tracks \(downsampler.trackedSensors) sensors")
            }
            if quantityIDs.count > configuration.maxCachedQuantities {
                problems.append("(5) quantity cache \(quantityIDs.count)")
            }
            let v = try connection.scalarInt("PRAGMA user_version") ?? -1
            if v != Int64(Schema.version) { problems.append("(2) user_version \(v) != \(Schema.version)") }
            let late = try connection.scalarInt(
                "SELECT count(*) FROM readings JOIN sensors ON sensors.id = readings.sensor_id "
                    + "WHERE readings.time_us > sensors.last_seen_us") ?? 0
            if late > 0 { problems.append("(8) \(late) rows later than their sensor's last_seen_us") }
            problems += try RollupCheck.run(connection)
            return problems
        }
    #endif
}
