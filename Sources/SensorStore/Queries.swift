import CSQLite
import SensorDecode

/// Streams exported rows in time order from one read snapshot, in constant memory.
///
/// Rows come from one SQLite statement walking the `(time_us, sensor_id)` primary key (or the
/// `readings_by_sensor` index for a single sensor), so nothing is sorted or buffered whatever
/// the range. The snapshot (a read transaction) lasts until `close()` or the end of the rows;
/// the logger keeps writing meanwhile. One open cursor per `StoreReader` at a time.
///
/// Two ways to read it: `next()` returns each row as an `ExportRow` value; `step()` moves to the
/// next row and leaves it in the cursor (`timeMicros`, `sensorID`, `samples`, and `values` by
/// column of `quantities`), which allocates nothing per row: export writes millions of them.
public final class ExportCursor {
    /// Every quantity present in the exported rows, sorted by key: the CSV header.
    public let quantities: [Quantity]
    /// The sensors the rows may name (all, or the selected ones), by id.
    public let sensors: [Int64: SensorInfo]

    /// The current row (after `step()` returned `true`): its time (µs), sensor and samples.
    // Unchecked exclusivity here and below: written once per row by `step()` only, and a cursor
    // is used by one loop at a time.
    @exclusivity(unchecked) public private(set) var timeMicros: Int64 = 0
    @exclusivity(unchecked) public private(set) var sensorID: Int64 = 0
    @exclusivity(unchecked) public private(set) var samples: Int = 0
    /// The current row's value for each column of `quantities`, NaN where it has none (a stored
    /// NaN reads the same: export writes both as an empty cell). The memory belongs to the
    /// cursor and is overwritten by the next `step()`.
    public var values: UnsafeBufferPointer<Double> { UnsafeBufferPointer(cells) }

    private let reader: StoreReader
    @exclusivity(unchecked) private var statement: Statement?
    private let cells: UnsafeMutableBufferPointer<Double>
    /// `sensors` again, as an array indexed by id where the ids are dense enough (they are
    /// rowids, so usually 1...n): a row costs an array read, not a hash.
    private let sensorByID: [SensorInfo?]
    /// Column in `quantities` by quantity id (-1: not a column), likewise dense; ids beyond it
    /// are looked up in `sparseColumns`. Precomputed so that a row needs no hashing or sorting.
    private let columnByID: [Int32]
    private let sparseColumns: [Int64: Int]
    /// The reader's quantities by id, likewise (for `row()`).
    private let quantityByID: [Quantity?]

    /// - Parameter columns: the quantity ids of `quantities`, in the same order.
    init(
        reader: StoreReader, quantities: [Quantity], columns: [Int64], sensors: [Int64: SensorInfo],
        statement: Statement
    ) {
        self.reader = reader
        self.quantities = quantities
        self.sensors = sensors
        self.statement = statement
        cells = .allocate(capacity: quantities.count)
        cells.initialize(repeating: .nan)
        sensorByID = Self.dense(sensors, limit: 4 * sensors.count + 64)
        quantityByID = Self.dense(reader.quantitiesByID, limit: 4096)
        var byID: [Int64: Int] = [:]
        // Only ids the quantities table knows get a column: a row naming an unknown id (a damaged
        // file) shows that quantity as empty in CSV, as `next()` reports it as NaN.
        for (column, id) in columns.enumerated() where reader.cachedQuantity(id) != nil { byID[id] = column }
        let dense = Self.dense(byID, limit: 4096)
        columnByID = dense.map { Int32($0 ?? -1) }
        sparseColumns = dense.isEmpty ? byID : [:]
    }

    /// `table` as an array indexed by key, or empty when a key is negative or not below `limit`.
    private static func dense<V>(_ table: [Int64: V], limit: Int) -> [V?] {
        guard let top = table.keys.max(), top < limit, table.keys.allSatisfy({ $0 >= 0 }) else { return [] }
        var out = [V?](repeating: nil, count: Int(top) + 1)
        for (k, v) in table { out[Int(k)] = v }
        return out
    }

    deinit {
        close()
        cells.deallocate()
    }

    /// Moves to the next row, or returns `false` at the end (which also ends the snapshot).
    public func step() throws(StoreError) -> Bool {
        guard let s = statement else { return false }
        let more: Bool
        do { more = try s.step() } catch {
            close()
            throw error
        }
        guard more else {
            close()
            try reader.checkUnlockedReadHeld("export from \(reader.path)")
            return false
        }
        timeMicros = s.int64(0)
        sensorID = s.int64(1)
        samples = s.int(2)
        let cells = cells
        for i in cells.indices { cells[i] = .nan }
        let ok = MeasurementCodec.decode(s.blob(3)) { qid, v in
            let column = qid >= 0 && qid < columnByID.count ? Int(columnByID[Int(qid)]) : sparseColumns[qid] ?? -1
            // A quantity id stored twice in a row (only a damaged file has that): the last wins.
            if column >= 0 { cells[column] = v }
        }
        guard ok else {
            close()
            throw .sqlite(
                code: SQLITE_CORRUPT,
                message: "malformed measurements in the row of sensor \(sensorID) at \(timeMicros) µs",
                attempted: "export from \(reader.path)")
        }
        return true
    }

    /// The current row's sensor. A sensor missing from the snapshot's table would be a damaged
    /// file; it shows as its id with `?` for model and decoder.
    public var sensor: SensorInfo {
        let sid = sensorID
        let known = sid >= 0 && sid < sensorByID.count ? sensorByID[Int(sid)] : sensors[sid]
        return known
            ?? SensorInfo(
                id: sid, address: BDAddress(rawValue: 0), addressType: .publicDevice, decoderID: "?", model: "?",
                alias: nil, radioName: nil, firstSeenMicros: 0, lastSeenMicros: 0, lastBatteryPercent: nil,
                lastRSSI: nil)
    }

    /// The current row as a value, with every measurement it stores (also those of quantities
    /// that are not columns) sorted by quantity key.
    public func row() throws(StoreError) -> ExportRow {
        var ms: [Measurement] = []
        if let s = statement {
            ms.reserveCapacity(4)
            var badID: Int64? = nil
            // `step()` has checked the blob: it decodes whole.
            MeasurementCodec.decode(s.blob(3)) { qid, v in
                let q = qid >= 0 && qid < quantityByID.count ? quantityByID[Int(qid)] : reader.cachedQuantity(qid)
                if let q { ms.append(Measurement(q, v)) } else { badID = qid }
            }
            if let badID { ms.append(Measurement(try reader.quantity(badID), .nan)) }
            if ms.count > 1 { ms.sort { $0.quantity < $1.quantity } }
        }
        return ExportRow(timeMicros: timeMicros, sensor: sensor, samples: samples, measurements: ms)
    }

    /// The next row, or `nil` at the end (which also ends the snapshot).
    public func next() throws(StoreError) -> ExportRow? {
        guard try step() else { return nil }
        return try row()
    }

    /// Ends the snapshot early. Idempotent.
    public func close() {
        guard statement != nil else { return }
        statement = nil
        // Ending a read transaction cannot lose data; a failure here leaves nothing to undo.
        _ = reader.connection.rollbackIfNeeded()
    }
}

extension StoreReader {
    func cachedQuantity(_ id: Int64) -> Quantity? { quantitiesByID[id] }

    /// Streams the rows of a time range, optionally of some sensors only.
    /// - Parameters:
    ///   - range: `[from, to)` in µs since the epoch; clipped to the retention horizon.
    ///   - sensors: addresses or aliases; empty exports every sensor.
    /// - Returns: a cursor whose `quantities` lists the columns before the first row is read.
    /// - Throws: `.unknownSensor` for a selector that matches nothing, or SQLite errors.
    public func export(range: TimeRange = .all, sensors selectors: [SensorSelector] = []) throws(StoreError)
        -> ExportCursor
    {
        if let f = range.from, let t = range.to, f > t {
            throw .invalidArgument("the time range ends before it starts")
        }
        try connection.exec("BEGIN", "begin an export from \(path)")
        do throws(StoreError) {
            try loadQuantities()
            let from = try effectiveFrom(range)
            let to = range.to ?? .max
            let selected = try resolve(selectors)
            let sensors: [Int64: SensorInfo]
            if let selected { sensors = selected } else { sensors = try allSensorsByID() }
            let present = try quantitiesPresent(from: from, to: to, sensors: selected.map { Set($0.keys) })
            let s: Statement
            if let selected, selected.count == 1, let id = selected.keys.first {
                s = try connection.prepare(
                    "SELECT time_us, sensor_id, samples, data FROM readings INDEXED BY readings_by_sensor "
                        + "WHERE sensor_id = ?3 AND time_us >= ?1 AND time_us < ?2 ORDER BY time_us")
                try s.bind(3, id)
            } else if let selected {
                // `+sensor_id` keeps the planner on the primary key: rows stream in time order, unsorted.
                let list = selected.keys.sorted().map(String.init).joined(separator: ",")
                s = try connection.prepare(
                    "SELECT time_us, sensor_id, samples, data FROM readings WHERE time_us >= ?1 AND time_us < ?2 "
                        + "AND +sensor_id IN (\(list)) ORDER BY time_us, sensor_id")
            } else {
                s = try connection.prepare(
                    "SELECT time_us, sensor_id, samples, data FROM readings WHERE time_us >= ?1 AND time_us < ?2 "
                        + "ORDER BY time_us, sensor_id")
            }
            try s.bind(1, from)
            try s.bind(2, to)
            return ExportCursor(
                reader: self, quantities: present.map(\.quantity), columns: present.map(\.id), sensors: sensors,
                statement: s)
        } catch {
            _ = connection.rollbackIfNeeded()
            throw error
        }
    }

    /// The quantities in `[from, to)` with their ids, sorted by key: rollups for whole hours, raw
    /// rows for the edges.
    private func quantitiesPresent(from: Int64, to: Int64, sensors: Set<Int64>?) throws(StoreError)
        -> [(id: Int64, quantity: Quantity)]
    {
        var ids = Set<Int64>()
        let (hours, raw) = Self.split(from: from, to: to)
        if !hours.isEmpty {
            let s = try connection.prepare(
                "SELECT hour, sensor_id, stats FROM rollup_hourly WHERE hour >= ?1 AND hour < ?2")
            try s.bind(1, hours.lowerBound)
            try s.bind(2, hours.upperBound)
            while try s.step() {
                guard sensors?.contains(s.int64(1)) ?? true else { continue }
                SensorStats.decodeStats(s.blob(2), hourStart: s.int64(0) * Schema.microsPerHour) { id, _ in ids.insert(id) }
            }
        }
        for r in raw {
            try forEachRaw(r, sensors: sensors) { _, _, _, data in
                MeasurementCodec.decode(data) { qid, _ in ids.insert(qid) }
            }
        }
        var out: [(id: Int64, quantity: Quantity)] = []
        for id in ids { out.append((id, try quantity(id))) }
        return out.sorted { $0.quantity < $1.quantity }
    }

    /// Calls `body(time, sensorID, samples, data)` for the raw rows of a range.
    func forEachRaw(
        _ r: Range<Int64>, sensors: Set<Int64>?, _ body: (Int64, Int64, Int64, UnsafeRawBufferPointer) -> Void
    ) throws(StoreError) {
        let s = try connection.prepare(
            "SELECT time_us, sensor_id, samples, data FROM readings WHERE time_us >= ?1 AND time_us < ?2")
        try s.bind(1, r.lowerBound)
        try s.bind(2, r.upperBound)
        while try s.step() {
            let sid = s.int64(1)
            guard sensors?.contains(sid) ?? true else { continue }
            body(s.int64(0), sid, s.int64(2), s.blob(3))
        }
    }

    // MARK: - Summary

    private struct GroupKey: Hashable {
        var sensor: Int64
        var period: Int64
    }

    /// Per-sensor statistics over a time range, whole or split by hour or day.
    ///
    /// Whole hours come from `rollup_hourly` (invariant 4), the partial hours at the edges from
    /// raw rows, all in one snapshot; so a 24 h summary reads a few thousand rows whatever the
    /// size of the database.
    /// - Parameters:
    ///   - range: `[from, to)` in µs; clipped to the retention horizon.
    ///   - sensors: addresses or aliases; empty summarizes every sensor with rows in the range.
    ///   - grouping: one summary per sensor, or per sensor and hour/day.
    /// - Returns: sorted by sensor address, then period.
    public func summary(
        range: TimeRange = .all, sensors selectors: [SensorSelector] = [], by grouping: SummaryGrouping = .none
    ) throws(StoreError) -> [SensorSummary] {
        if let f = range.from, let t = range.to, f > t {
            throw .invalidArgument("the time range ends before it starts")
        }
        return try inReadTransaction { () throws(StoreError) -> [SensorSummary] in
            try loadQuantities()
            let from = try effectiveFrom(range)
            let to = range.to ?? .max
            let selected = try resolve(selectors)
            let filter = selected.map { Set($0.keys) }
            let h = Schema.microsPerHour
            let period: (Int64) -> Int64
            switch grouping {
            case .none: period = { _ in 0 }
            case .hour: period = { SensorStore.hour($0) * h }
            case .day(let offset):
                period = { t in
                    let local = t + offset * 1_000_000
                    let d: Int64 = 86_400_000_000
                    let day = local >= 0 ? local / d : (local - d + 1) / d
                    return day * d - offset * 1_000_000
                }
            }
            var groups: [GroupKey: SensorStats] = [:]
            var (hours, raw) = Self.split(from: from, to: to)
            // An hour that a period boundary cuts (days at a UTC+5:30 midnight) cannot come from
            // its rollup: its raw rows are read instead; every other hour still uses the rollup.
            let cut: (Int64) -> Bool = { hourStart in period(hourStart) != period(hourStart + h - 1) }
            if case .day(let offset) = grouping, offset % 3600 != 0, !hours.isEmpty {
                let extent = try connection.prepare("SELECT min(hour), max(hour) FROM rollup_hourly")
                if try extent.step(), !extent.isNull(0) {
                    let lo = max(hours.lowerBound, extent.int64(0))
                    let hi = min(hours.upperBound, extent.int64(1) + 1)
                    var hour = lo
                    while hour < hi {
                        if cut(hour * h) { raw.append((hour * h)..<(hour * h + h)) }
                        hour += 1
                    }
                }
            }
            var damaged = false
            if !hours.isEmpty {
                let s = try connection.prepare(
                    "SELECT hour, sensor_id, n_rows, n_samples, last_time_us, stats FROM rollup_hourly "
                        + "WHERE hour >= ?1 AND hour < ?2")
                try s.bind(1, hours.lowerBound)
                try s.bind(2, hours.upperBound)
                while try s.step() {
                    let sid = s.int64(1)
                    guard filter?.contains(sid) ?? true else { continue }
                    let hourStart = s.int64(0) * h
                    if cut(hourStart) { continue }  // read from raw rows (above)
                    groups[GroupKey(sensor: sid, period: period(hourStart)), default: SensorStats()].merge(
                        rowsOf: s, hourStart: hourStart, damaged: &damaged)
                }
            }
            var items: [(id: Int64, value: Double)] = []
            for r in raw {
                try forEachRaw(r, sensors: filter) { t, sid, n, data in
                    items.removeAll(keepingCapacity: true)
                    if !MeasurementCodec.decode(data, { items.append(($0, $1)) }) { damaged = true }
                    items.sort { $0.id < $1.id }
                    groups[GroupKey(sensor: sid, period: period(t)), default: SensorStats()].addRow(
                        samples: n, time: t, items)
                }
            }
            if damaged {
                throw .sqlite(
                    code: SQLITE_CORRUPT, message: "malformed measurements or rollups",
                    attempted: "summarize \(path)")
            }
            let sensors: [Int64: SensorInfo]
            if let selected { sensors = selected } else { sensors = try allSensorsByID() }
            var out: [SensorSummary] = []
            out.reserveCapacity(groups.count)
            for (g, st) in groups {
                guard let info = sensors[g.sensor] else { continue }  // a sensor being forgotten
                var qs: [QuantitySummary] = []
                for (id, a) in st.quantities {
                    qs.append(
                        QuantitySummary(
                            quantity: try quantity(id), rows: Int(a.rows), samples: Int(a.samples), min: a.min,
                            mean: a.rows > 0 ? a.sum / Double(a.rows) : .nan, max: a.max, last: a.last,
                            lastTimeMicros: a.lastTime))
                }
                qs.sort { $0.quantity < $1.quantity }
                out.append(
                    SensorSummary(
                        sensor: info, periodStartMicros: grouping == .none ? nil : g.period, rows: Int(st.rows),
                        samples: Int(st.samples), lastTimeMicros: st.lastTime, quantities: qs))
            }
            for i in out.indices { out[i].quantities.sort { $0.quantity < $1.quantity } }
            out.sort { ($0.sensor.address, $0.periodStartMicros ?? 0) < ($1.sensor.address, $1.periodStartMicros ?? 0) }
            return out
        }
    }
}

extension SensorStats {
    /// Merges one `rollup_hourly` row (columns n_rows, n_samples, last_time_us, stats at 2–5).
    fileprivate mutating func merge(rowsOf s: Statement, hourStart: Int64, damaged: inout Bool) {
        rows += s.int64(2)
        samples += s.int64(3)
        lastTime = Swift.max(lastTime, s.int64(4))
        if !SensorStats.decodeStats(s.blob(5), hourStart: hourStart, { merge($0, $1) }) { damaged = true }
    }
}
