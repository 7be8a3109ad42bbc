import CSQLite
import SensorDecode

/// A stored sensor, as the `sensors` table knows it.
public struct SensorInfo: Sendable, Equatable {
    public var id: Int64
    public var address: BDAddress
    public var addressType: AddressType
    public var decoderID: String
    public var model: String
    /// The user's name for it (`setAlias`), `nil` if none.
    public var alias: String?
    /// The name it advertises, as last heard (radio text, escaped by the decoder).
    public var radioName: String?
    /// Receive times, µs since the Unix epoch.
    public var firstSeenMicros: Int64
    public var lastSeenMicros: Int64
    public var lastBatteryPercent: Double?
    public var lastRSSI: Int8?
}

/// How a user names a sensor on the command line.
public enum SensorSelector: Sendable, Hashable, CustomStringConvertible {
    case address(BDAddress)
    case alias(String)

    /// `AA:BB:CC:DD:EE:FF` (or 12 hex digits) is an address; anything else an alias.
    public init(_ text: String) {
        if let a = BDAddress(text) { self = .address(a) } else { self = .alias(text) }
    }

    public var description: String {
        switch self {
        case .address(let a): a.description
        case .alias(let s): s
        }
    }
}

/// A half-open time range `[from, to)` in µs since the Unix epoch; `nil` is unbounded.
public struct TimeRange: Sendable, Equatable {
    public var from: Int64?
    public var to: Int64?
    public init(from: Int64? = nil, to: Int64? = nil) {
        self.from = from
        self.to = to
    }
    public static let all = TimeRange()
}

/// One exported row: a sensor's measurements at one stored time.
public struct ExportRow: Sendable, Equatable {
    /// Bucket start (see `DownsampleConfiguration`), µs since the Unix epoch.
    public var timeMicros: Int64
    public var sensor: SensorInfo
    /// Advertisements folded into this row.
    public var samples: Int
    /// Sorted by quantity key.
    public var measurements: [Measurement]
    /// For a hub's row (RowReceivers.swift): the receiver whose published copy it is, and the
    /// RSSI that receiver published; `nil` for a logger's own rows.
    public var receiver: String? = nil
    public var receiverRSSI: Int8? = nil
}

/// Statistics of one quantity of one sensor over a period.
public struct QuantitySummary: Sendable, Equatable {
    public var quantity: Quantity
    /// Stored rows that carry it, and the advertisements folded into them.
    public var rows: Int
    public var samples: Int
    /// Over stored values (row means for continuous quantities), each row weighing the same.
    public var min: Double
    public var mean: Double
    public var max: Double
    /// The value of the latest row in the period, and that row's time (µs).
    public var last: Double
    public var lastTimeMicros: Int64
}

/// One sensor over one period (the whole range, an hour, or a day).
public struct SensorSummary: Sendable, Equatable {
    public var sensor: SensorInfo
    /// Start of the hour or day (µs since the epoch, UTC instant); `nil` for the whole range.
    public var periodStartMicros: Int64?
    public var rows: Int
    public var samples: Int
    public var lastTimeMicros: Int64
    /// Sorted by quantity key.
    public var quantities: [QuantitySummary]
}

/// How a summary splits the range.
public enum SummaryGrouping: Sendable, Equatable {
    case none
    case hour
    /// Days starting at local midnight for a fixed UTC offset (seconds east of UTC). With an
    /// offset that is not whole hours, the one hour a midnight cuts each day is read raw.
    case day(utcOffsetSeconds: Int64)
}

/// Read side of the store for the CLI: export, summary, sensors, alias, forget.
///
/// Each query runs in one read transaction, so it sees one committed state: never half a batch,
/// and rollups always matching raw rows (invariant 4 of SensorStore.swift). In WAL mode it never
/// blocks the logger. Used from one thread; open one per thread or process. A reader runs one
/// query at a time: finish (or `close()`) an `ExportCursor` before the next call.
public final class StoreReader {
    public let path: String
    private(set) var connection: Connection
    /// How `connection` reads the file (see `Schema.openForReading`).
    private var access: ReadAccess
    private let busyTimeoutMillis: Int32
    /// Quantity ids are never renumbered (Schema), so the cache only ever grows with the table.
    var quantitiesByID: [Int64: Quantity] = [:]

    /// `connection` was opened by `Schema.open`, for writing.
    private var writable = false
    /// `sensor(id:)`'s statement, prepared once per connection (export looks sensors up by id).
    private var sensorByIDStatement: Statement?

    /// Opens an existing store (never creates one) read-only, so that a user who may only read
    /// the file can query it; `setAlias` and `forget` open it for writing when called. A file
    /// that is not ours, newer, or damaged is refused untouched.
    public init(path: String, busyTimeoutMillis: Int32 = 5000) throws(StoreError) {
        self.path = path
        self.busyTimeoutMillis = busyTimeoutMillis
        (connection, access) = try Schema.openForReading(path: path, busyTimeoutMillis: busyTimeoutMillis)
    }

    /// Reopens the file for writing, once, before the first write: a user who may not write it
    /// gets the writer's one-line error (SQLITE_READONLY, exit 73) here.
    private func openForWriting() throws(StoreError) {
        guard !writable else { return }
        sensorByIDStatement = nil
        connection = try Schema.open(path: path, create: false, busyTimeoutMillis: busyTimeoutMillis)
        access = .shared
        writable = true
    }

    /// Fails when the file was read without locks and a writer came meanwhile: what was read may
    /// mix two states. The next read opens the file again (`reopenIfWriterCame`).
    func checkUnlockedReadHeld(_ attempted: @autoclosure () -> String) throws(StoreError) {
        guard access.writerCame else { return }
        throw .sqlite(
            code: SQLITE_BUSY,
            message: "the logger opened the database during a read that had to go without locks (its folder is not "
                + "writable and no writer had it open); run it again",
            attempted: attempted())
    }

    // MARK: - Sensors

    static let sensorColumns =
        "id, address, address_type, decoder_id, model, alias, radio_name, first_seen_us, last_seen_us, last_battery_pct, last_rssi_dbm"

    static func sensor(_ s: Statement) -> SensorInfo {
        SensorInfo(
            id: s.int64(0), address: BDAddress(rawValue: UInt64(bitPattern: s.int64(1))),
            addressType: AddressType(rawValue: UInt8(truncatingIfNeeded: s.int64(2))), decoderID: s.text(3) ?? "",
            model: s.text(4) ?? "", alias: s.text(5), radioName: s.text(6), firstSeenMicros: s.int64(7),
            lastSeenMicros: s.int64(8), lastBatteryPercent: s.isNull(9) ? nil : s.double(9),
            lastRSSI: s.isNull(10) ? nil : Int8(truncatingIfNeeded: s.int64(10)))
    }

    /// Every stored sensor, by address. Holds them all: `forEachSensor` streams them instead.
    public func sensors() throws(StoreError) -> [SensorInfo] {
        var out: [SensorInfo] = []
        try forEachSensor { out.append($0) }
        return out
    }

    /// Calls `body` with every stored sensor, by address (the address index, no sort), one at a
    /// time from one snapshot: memory does not grow with the number of sensors (anyone in range
    /// can make up a million addresses).
    public func forEachSensor(_ body: (SensorInfo) throws(StoreError) -> Void) throws(StoreError) {
        try inReadTransaction { () throws(StoreError) in
            let s = try connection.prepare("SELECT \(Self.sensorColumns) FROM sensors ORDER BY address")
            while try s.step() { try body(Self.sensor(s)) }
        }
    }

    /// The sensor with rowid `id` in the current snapshot, `nil` if none.
    func sensor(id: Int64) throws(StoreError) -> SensorInfo? {
        let s: Statement
        if let cached = sensorByIDStatement {
            s = cached
            s.reset()
        } else {
            s = try connection.prepare("SELECT \(Self.sensorColumns) FROM sensors WHERE id = ?1")
            sensorByIDStatement = s
        }
        try s.bind(1, id)
        defer { s.reset() }
        return try s.step() ? Self.sensor(s) : nil
    }

    /// The sensor a selector names.
    /// - Throws: `.unknownSensor` if none matches.
    public func sensor(_ selector: SensorSelector) throws(StoreError) -> SensorInfo {
        let s: Statement
        switch selector {
        case .address(let a):
            s = try connection.prepare("SELECT \(Self.sensorColumns) FROM sensors WHERE address = ?1")
            try s.bind(1, Int64(bitPattern: a.rawValue))
        case .alias(let name):
            s = try connection.prepare("SELECT \(Self.sensorColumns) FROM sensors WHERE alias = ?1")
            try s.bind(1, name)
        }
        guard try s.step() else { throw .unknownSensor(selector.description) }
        return Self.sensor(s)
    }

    /// Names a sensor; `nil` removes its alias. Aliases are unique and may not look like an address.
    public func setAlias(_ alias: String?, for selector: SensorSelector) throws(StoreError) {
        if let alias {
            guard !alias.isEmpty, alias.utf8.count <= 64 else { throw .invalidArgument("an alias is 1 to 64 bytes") }
            guard BDAddress(alias) == nil else { throw .invalidArgument("alias '\(alias)' looks like an address") }
        }
        try openForWriting()
        let target = try sensor(selector)
        if let alias {
            do throws(StoreError) {
                let other = try sensor(.alias(alias))
                if other.id != target.id {
                    throw StoreError.invalidArgument("alias '\(alias)' is already used by \(other.address)")
                }
            } catch .unknownSensor {
                // Free: the expected case.
            }
        }
        let s = try connection.prepare("UPDATE sensors SET alias = ?1 WHERE id = ?2")
        try s.bind(1, alias)
        try s.bind(2, target.id)
        try s.run()
    }

    /// Deletes a sensor, its readings and its rollups. Readings go in steps of `rowsPerStep`
    /// per transaction so the logger is never locked out for long; the last step removes the
    /// remaining rows, the rollups and the sensor together. If the sensor is still on the air,
    /// the logger will store it again as a new sensor.
    /// - Returns: the number of readings deleted.
    @discardableResult
    public func forget(_ selector: SensorSelector, rowsPerStep: Int = 1000) throws(StoreError) -> Int {
        try openForWriting()
        let target = try sensor(selector)
        let attempted = "forget \(target.address) in \(path)"
        var total = 0
        let chunk = try connection.prepare(
            "DELETE FROM readings WHERE sensor_id = ?1 AND time_us IN "
                + "(SELECT time_us FROM readings WHERE sensor_id = ?1 ORDER BY time_us LIMIT ?2)")
        while true {
            try inWriteTransaction(attempted) { () throws(StoreError) in
                try chunk.bind(1, target.id)
                try chunk.bind(2, max(1, rowsPerStep))
                try chunk.run()
            }
            let n = connection.changes
            total += n
            if n < max(1, rowsPerStep) { break }
        }
        try inWriteTransaction(attempted) { () throws(StoreError) in
            for sql in [
                "DELETE FROM readings WHERE sensor_id = ?1", "DELETE FROM rollup_hourly WHERE sensor_id = ?1",
                "DELETE FROM row_receivers WHERE sensor_id = ?1",
                "DELETE FROM sensors WHERE id = ?1",
            ] {
                let s = try connection.prepare(sql)
                try s.bind(1, target.id)
                try s.run()
                if sql.hasPrefix("DELETE FROM readings") { total += connection.changes }
            }
        }
        return total
    }

    private func inWriteTransaction(_ attempted: String, _ body: () throws(StoreError) -> Void) throws(StoreError) {
        try connection.exec("BEGIN IMMEDIATE", attempted)
        do throws(StoreError) {
            try body()
            try connection.exec("COMMIT", attempted)
        } catch {
            _ = connection.rollbackIfNeeded()
            throw error
        }
    }

    /// Runs `body` in one read snapshot. Read without locks (see `checkUnlockedReadHeld`), the
    /// file is first opened again if a writer came since (through the writer's `-shm` now), and a
    /// writer that comes during the read fails it at the end: `body` may have handed rows out.
    func inReadTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        // Inside the caller's snapshot already (a query reading the sensors): part of it.
        if !connection.isAutocommit { return try body() }
        try reopenIfWriterCame()
        try connection.exec("BEGIN", "begin a read on \(path)")
        let v: T
        do throws(StoreError) {
            v = try body()
            try connection.exec("COMMIT", "end a read on \(path)")
        } catch {
            _ = connection.rollbackIfNeeded()
            throw error
        }
        try checkUnlockedReadHeld("read \(path)")
        return v
    }

    /// Before a read: a file read without locks that a writer has opened since is opened again,
    /// so the read sees what it committed.
    func reopenIfWriterCame() throws(StoreError) {
        guard access.writerCame else { return }
        sensorByIDStatement = nil
        (connection, access) = try Schema.openForReading(path: path, busyTimeoutMillis: busyTimeoutMillis)
    }

    // MARK: - Shared helpers

    func loadQuantities() throws(StoreError) {
        let s = try connection.prepare("SELECT id, key, is_integer FROM quantities")
        while try s.step() { quantitiesByID[s.int64(0)] = Quantity(s.text(1) ?? "?", integer: s.int64(2) != 0) }
    }

    func quantity(_ id: Int64) throws(StoreError) -> Quantity {
        if let q = quantitiesByID[id] { return q }
        try loadQuantities()
        // A row naming an unknown id means a damaged file; keep going with a visible name.
        return quantitiesByID[id] ?? Quantity("quantity_\(id)")
    }

    /// Start of the range, clipped to the retention horizon (rows before it may be half-pruned).
    func effectiveFrom(_ range: TimeRange) throws(StoreError) -> Int64 {
        let horizon = try connection.scalarInt("SELECT value FROM meta WHERE key = 'prune_horizon_us'") ?? .min
        return max(range.from ?? .min, horizon)
    }

    /// The selected sensors by id; `nil` means all.
    func resolve(_ selectors: [SensorSelector]) throws(StoreError) -> [Int64: SensorInfo]? {
        guard !selectors.isEmpty else { return nil }
        var out: [Int64: SensorInfo] = [:]
        for sel in selectors {
            let s = try sensor(sel)
            out[s.id] = s
        }
        return out
    }

    /// Splits `[from, to)` into whole hours (answered by rollups) and at most two raw edges.
    static func split(from: Int64, to: Int64) -> (hours: Range<Int64>, raw: [Range<Int64>]) {
        guard from < to else { return (0..<0, []) }
        let h = Schema.microsPerHour
        let firstFull = from == .min ? Int64.min / h : SensorStore.hour(from) + (from % h == 0 ? 0 : 1)
        let endFull = to == .max ? Int64.max / h : SensorStore.hour(to)
        guard firstFull < endFull else { return (0..<0, [from..<to]) }
        var raw: [Range<Int64>] = []
        if from != .min, from < firstFull * h { raw.append(from..<(firstFull * h)) }
        if to != .max, endFull * h < to { raw.append((endFull * h)..<to) }
        return (firstFull..<endFull, raw)
    }

    // MARK: - Clock

    /// The spans of receive times (µs since the epoch, inclusive) stamped by a clock not known to
    /// be right (`ClockTrust`), oldest first: a row with a reading heard within one is flagged.
    public func unsynchronisedSpans() throws(StoreError) -> [ClosedRange<Int64>] {
        let s = try connection.prepare("SELECT from_us, to_us FROM clock_unsynced ORDER BY from_us")
        var out: [ClosedRange<Int64>] = []
        while try s.step() {
            let from = s.int64(0)
            out.append(from...max(from, s.int64(1)))
        }
        return out
    }

    // MARK: - Integrity

    /// `PRAGMA integrity_check`: `["ok"]` when the file is sound.
    public func integrityCheck() throws(StoreError) -> [String] {
        let s = try connection.prepare("PRAGMA integrity_check")
        var out: [String] = []
        while try s.step() { out.append(s.text(0) ?? "") }
        return out
    }

    /// Checks invariant 4 (rollups equal raw rows above the horizon) by reading every row.
    /// - Returns: one line per violation (at most 20); empty when it holds.
    public func verifyRollups() throws(StoreError) -> [String] {
        try inReadTransaction { () throws(StoreError) in try RollupCheck.run(connection) }
    }
}

/// Recomputes the rollups from raw rows and compares (invariant 4).
enum RollupCheck {
    private struct Key: Hashable {
        var hour: Int64
        var sensor: Int64
    }

    static func run(_ c: Connection) throws(StoreError) -> [String] {
        let horizon = try c.scalarInt("SELECT value FROM meta WHERE key = 'prune_horizon_us'") ?? .min
        let minHour = horizon == .min ? Int64.min : SensorStore.hour(horizon + Schema.microsPerHour - 1)
        var expected: [Key: SensorStats] = [:]
        let raw = try c.prepare("SELECT time_us, sensor_id, samples, data FROM readings WHERE time_us >= ?1")
        try raw.bind(1, minHour == .min ? Int64.min : minHour * Schema.microsPerHour)
        var problems: [String] = []
        var items: [(id: Int64, value: Double)] = []
        while try raw.step() {
            let t = raw.int64(0)
            let sid = raw.int64(1)
            items.removeAll(keepingCapacity: true)
            let ok = raw.decodeMeasurements(3) { items.append(($0, $1)) }
            if !ok && problems.count < 20 { problems.append("row (\(t), \(sid)) has a malformed data blob") }
            items.sort { $0.id < $1.id }
            expected[Key(hour: SensorStore.hour(t), sensor: sid), default: SensorStats()].addRow(
                samples: raw.int64(2), time: t, items)
        }
        let roll = try c.prepare(
            "SELECT hour, sensor_id, n_rows, n_samples, last_time_us, stats FROM rollup_hourly WHERE hour >= ?1")
        try roll.bind(1, minHour)
        while try roll.step() {
            let k = Key(hour: roll.int64(0), sensor: roll.int64(1))
            var got = SensorStats()
            got.rows = roll.int64(2)
            got.samples = roll.int64(3)
            got.lastTime = roll.int64(4)
            let ok = roll.decodeStats(5, hourStart: k.hour * Schema.microsPerHour) { got.merge($0, $1) }
            guard let e = expected.removeValue(forKey: k) else {
                if problems.count < 20 { problems.append("(4) rollup \(k) has no raw rows") }
                continue
            }
            if !ok || !same(got, e), problems.count < 20 { problems.append("(4) rollup \(k) = \(got); raw rows give \(e)") }
        }
        for (k, _) in expected.prefix(Swift.max(0, 20 - problems.count)) { problems.append("(4) raw rows of \(k) have no rollup") }
        return problems
    }

    /// Equal, except that sums may differ in the last bits (added in another order).
    private static func same(_ a: SensorStats, _ b: SensorStats) -> Bool {
        guard a.rows == b.rows, a.samples == b.samples, a.lastTime == b.lastTime,
            a.quantities.map(\.id) == b.quantities.map(\.id)
        else { return false }
        for (x, y) in zip(a.quantities.map(\.stats), b.quantities.map(\.stats)) {
            let close = abs(x.sum - y.sum) <= 1e-9 * Swift.max(1, abs(x.sum), abs(y.sum)) * Double(x.rows)
            guard x.rows == y.rows, x.samples == y.samples, close, x.min == y.min, x.max == y.max,
                x.lastTime == y.lastTime, x.last == y.last
            else { return false }
        }
        return true
    }
}
