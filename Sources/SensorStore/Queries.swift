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
/// next row and leaves it in the cursor (`current`: time, sensor, samples, and `values` by
/// column of `quantities`), which allocates nothing per row: export writes millions of them.
public final class ExportCursor {
    /// Every quantity present in the exported rows, sorted by key: the CSV header.
    public let quantities: [Quantity]

    /// Whether the rows come from a hub (`collect`): they may name the receiver whose copy each
    /// is (RowReceivers.swift), `receiver`. `false` for a logger's own file.
    public let hasReceivers: Bool

    /// The current row (after `step()` returned `true`). Written by `step()` only, in one access
    /// (each access to a class's stored property is checked for exclusivity at run time); a
    /// cursor is used by one loop at a time (not Sendable). A stored property, which another
    /// module reads in place: the export loop reads its fields from here, not through the
    /// computed properties below.
    public private(set) var current: Row

    /// The current row's fields (see `current`).
    public struct Row {
        /// Its time (µs), sensor and samples.
        public fileprivate(set) var timeMicros: Int64 = 0
        public fileprivate(set) var sensorID: Int64 = 0
        public fileprivate(set) var samples = 0
        /// It holds a reading stamped while the clock was not synchronised (`UnsynchronisedRows`);
        /// always `false` when the store has no such span.
        public fileprivate(set) var clockUnsynchronised = false
        /// Its value for each column of `quantities`, NaN where it has none (a stored NaN reads
        /// the same: export writes both as an empty cell). Written in place by the next `step()`
        /// (copied only if the caller still holds this array then).
        public fileprivate(set) var values: [Double]
    }

    /// The fields of `current`.
    public var timeMicros: Int64 { current.timeMicros }
    public var sensorID: Int64 { current.sensorID }
    public var samples: Int { current.samples }
    public var clockUnsynchronised: Bool { current.clockUnsynchronised }
    public var values: [Double] { current.values }
    /// The store has spans of `clock_unsynced`: the statement's column 4 flags each row.
    public let mayFlagClock: Bool
    /// The receiver whose published copy the current row is, and the RSSI it published; `nil`
    /// for a logger's own rows.
    public var receiver: String? { hasReceivers ? statement?.text(receiverColumn) : nil }
    public var receiverRSSI: Int8? {
        guard hasReceivers, let s = statement, !s.isNull(receiverColumn + 1) else { return nil }
        return Int8(truncatingIfNeeded: s.int64(receiverColumn + 1))
    }
    /// The statement's columns after the four of every row: the clock flag, then the receiver's two.
    private var receiverColumn: Int32 { mayFlagClock ? 5 : 4 }
    private let reader: StoreReader
    private var statement: Statement?
    /// The sensors of recent rows, direct-mapped by id (rowids: consecutive ids never collide).
    /// The rows' sensors are looked up in the snapshot as they come rather than loaded up front,
    /// so memory stays bounded whatever the number of sensors; rows of one minute name the same
    /// few sensors over and over.
    private var sensorCache: [SensorInfo?] = Array(repeating: nil, count: ExportCursor.sensorCacheSize)
    private static let sensorCacheSize = 4096
    /// Column in `quantities` by quantity id (-1: not a column), as an array indexed by id where
    /// the ids are dense enough (they are rowids, so usually 1...n); ids beyond it are looked up
    /// in `sparseColumns`. Precomputed so that a row needs no hashing or sorting.
    private let columnByID: [Int32]
    private let sparseColumns: [Int64: Int]
    /// The reader's quantities by id, likewise (for `row()`).
    private let quantityByID: [Quantity?]

    /// - Parameter columns: the quantity ids of `quantities`, in the same order.
    /// - Parameter flagsClock: the statement's column 4 is `StoreReader.unsynchronisedPredicate`.
    /// - Parameter hasReceivers: the statement's last two columns are the row's receiver and RSSI.
    init(
        reader: StoreReader, quantities: [Quantity], columns: [Int64], statement: Statement, flagsClock: Bool,
        hasReceivers: Bool
    ) {
        self.reader = reader
        mayFlagClock = flagsClock
        self.hasReceivers = hasReceivers
        self.quantities = quantities
        self.statement = statement
        current = Row(values: Array(repeating: .nan, count: quantities.count))
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

    deinit { close() }

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
        guard read(s, into: &current) else {
            close()
            throw .sqlite(
                code: SQLITE_CORRUPT,
                message: "malformed measurements in the row of sensor \(sensorID) at \(timeMicros) µs",
                attempted: "export from \(reader.path)")
        }
        return true
    }

    /// Reads the statement's row into `row`; `false` if its measurements are malformed.
    private func read(_ s: Statement, into row: inout Row) -> Bool {
        row.timeMicros = s.int64(0)
        row.sensorID = s.int64(1)
        row.samples = s.int(2)
        if mayFlagClock { row.clockUnsynchronised = s.int(4) != 0 }
        var cells = row.values.mutableSpan  // one uniqueness check a row, not one a value
        for i in cells.indices { cells[i] = .nan }
        return s.decodeMeasurements(3) { qid, v in
            let column = qid >= 0 && qid < columnByID.count ? Int(columnByID[Int(qid)]) : sparseColumns[qid] ?? -1
            // A quantity id stored twice in a row (only a damaged file has that): the last wins.
            if column >= 0 { cells[column] = v }
        }
    }

    /// The current row's sensor. A sensor missing from the snapshot's table would be a damaged
    /// file; it shows as its id with `?` for model and decoder.
    public var sensor: SensorInfo {
        get throws(StoreError) {
            let sid = sensorID
            let slot = Int(UInt64(bitPattern: sid) % UInt64(Self.sensorCacheSize))
            if let cached = sensorCache[slot], cached.id == sid { return cached }
            let info =
                try reader.sensor(id: sid)
                ?? SensorInfo(
                    id: sid, address: BDAddress(rawValue: 0), addressType: .publicDevice, decoderID: "?", model: "?",
                    alias: nil, radioName: nil, firstSeenMicros: 0, lastSeenMicros: 0, lastBatteryPercent: nil,
                    lastRSSI: nil)
            sensorCache[slot] = info
            return info
        }
    }

    /// The current row as a value, with every measurement it stores (also those of quantities
    /// that are not columns) sorted by quantity key.
    public func row() throws(StoreError) -> ExportRow {
        var ms: [Measurement] = []
        if let s = statement {
            ms.reserveCapacity(4)
            var badID: Int64? = nil
            // `step()` has checked the blob: it decodes whole.
            s.decodeMeasurements(3) { qid, v in
                let q = qid >= 0 && qid < quantityByID.count ? quantityByID[Int(qid)] : reader.cachedQuantity(qid)
                if let q { ms.append(Measurement(q, v)) } else { badID = qid }
            }
            if let badID { ms.append(Measurement(try reader.quantity(badID), .nan)) }
            if ms.count > 1 { ms.sort { $0.quantity < $1.quantity } }
        }
        return ExportRow(
            timeMicros: timeMicros, sensor: try sensor, samples: samples, measurements: ms, receiver: receiver,
            receiverRSSI: receiverRSSI)
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
        try reopenIfWriterCame()
        try connection.exec("BEGIN", "begin an export from \(path)")
        do throws(StoreError) {
            try loadQuantities()
            let from = try effectiveFrom(range)
            let to = range.to ?? .max
            let selected = try resolve(selectors)
            let present = try quantitiesPresent(from: from, to: to, sensors: selected.map { Set($0.keys) })
            // A hub's rows name their receiver (RowReceivers.swift); a logger's own file has none,
            // and its export reads `readings` alone.
            let receivers = try connection.scalarInt("SELECT EXISTS (SELECT 1 FROM row_receivers)") == 1
            // The clock flag costs a lookup per row: only asked for when there is something to flag.
            let flagsClock = try hasUnsynchronisedSpans()
            let columns = "SELECT r.time_us, r.sensor_id, r.samples, r.data"
                + (flagsClock ? ", " + Self.unsynchronisedPredicate(row: "r") : "")
                + (receivers ? ", h.receiver, h.rssi_dbm" : "")
            let join = receivers
                ? " LEFT JOIN row_receivers h ON h.time_us = r.time_us AND h.sensor_id = r.sensor_id" : ""
            let s: Statement
            if let selected, selected.count == 1, let id = selected.keys.first {
                s = try connection.prepare(
                    columns + " FROM readings AS r INDEXED BY readings_by_sensor" + join
                        + " WHERE r.sensor_id = ?3 AND r.time_us >= ?1 AND r.time_us < ?2 ORDER BY r.time_us")
                try s.bind(3, id)
            } else if let selected {
                // `+sensor_id` keeps the planner on the primary key: rows stream in time order, unsorted.
                let list = selected.keys.sorted().map(String.init).joined(separator: ",")
                s = try connection.prepare(
                    columns + " FROM readings AS r" + join + " WHERE r.time_us >= ?1 AND r.time_us < ?2 "
                        + "AND +r.sensor_id IN (\(list)) ORDER BY r.time_us, r.sensor_id")
            } else {
                s = try connection.prepare(
                    columns + " FROM readings AS r" + join + " WHERE r.time_us >= ?1 AND r.time_us < ?2 "
                        + "ORDER BY r.time_us, r.sensor_id")
            }
            try s.bind(1, from)
            try s.bind(2, to)
            return ExportCursor(
                reader: self, quantities: present.map(\.quantity), columns: present.map(\.id), statement: s,
                flagsClock: flagsClock, hasReceivers: receivers)
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
                s.decodeStats(2, hourStart: s.int64(0) * Schema.microsPerHour) { id, _ in ids.insert(id) }
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
        _ r: Range<Int64>, sensors: Set<Int64>?, _ body: (Int64, Int64, Int64, Span<UInt8>) -> Void
    ) throws(StoreError) {
        let s = try connection.prepare(
            "SELECT time_us, sensor_id, samples, data FROM readings WHERE time_us >= ?1 AND time_us < ?2")
        try s.bind(1, r.lowerBound)
        try s.bind(2, r.upperBound)
        while try s.step() {
            let sid = s.int64(1)
            guard sensors?.contains(sid) ?? true else { continue }
            let time = s.int64(0)
            let samples = s.int64(2)
            s.withBlob(3) { body(time, sid, samples, $0) }
        }
    }

    // MARK: - Summary

    /// Per-sensor statistics over a time range, whole or split by hour or day, of the sensors
    /// that have rows in it. Holds them all: `forEachSensorSummary` streams them instead.
    /// - Returns: sorted by sensor address, then period.
    public func summary(
        range: TimeRange = .all, sensors selectors: [SensorSelector] = [], by grouping: SummaryGrouping = .none
    ) throws(StoreError) -> [SensorSummary] {
        var out: [SensorSummary] = []
        try forEachSensorSummary(range: range, sensors: selectors, by: grouping) { _, summaries in
            out += summaries
        }
        return out
    }

    /// Calls `body` with every sensor (or the selected ones), by address, and its statistics over
    /// a time range, whole or split by hour or day (empty when it has no rows there), all from
    /// one snapshot.
    ///
    /// Whole hours come from `rollup_hourly` (invariant 4), the partial hours at the edges from
    /// raw rows; so a 24 h summary reads a few thousand rows whatever the size of the database.
    /// One statement walks the sensors in address order, a second the rollup and raw rows in
    /// (address, time) order, and the two are merged: one sensor's periods are in memory at a
    /// time, never all sensors' (anyone in range can make up a million addresses). The second
    /// is sorted by SQLite, which spills to temporary files beyond its cache, so its memory is
    /// bounded too.
    /// - Parameters:
    ///   - range: `[from, to)` in µs; clipped to the retention horizon.
    ///   - sensors: addresses or aliases; empty means every sensor.
    ///   - grouping: one summary per sensor, or per sensor and hour/day, sorted by period.
    public func forEachSensorSummary(
        range: TimeRange = .all, sensors selectors: [SensorSelector] = [], by grouping: SummaryGrouping = .none,
        _ body: (SensorInfo, [SensorSummary]) throws(StoreError) -> Void
    ) throws(StoreError) {
        if let f = range.from, let t = range.to, f > t {
            throw .invalidArgument("the time range ends before it starts")
        }
        try inReadTransaction { () throws(StoreError) in
            try loadQuantities()
            let from = try effectiveFrom(range)
            let to = range.to ?? .max
            let selected = try resolve(selectors)
            let h = Schema.microsPerHour
            let period: (Int64) -> Int64
            var dayOffset: Int64? = nil
            switch grouping {
            case .none: period = { _ in 0 }
            case .hour: period = { SensorStore.hour($0) * h }
            case .day(let offset):
                dayOffset = offset
                period = { t in
                    let local = t + offset * 1_000_000
                    let d: Int64 = 86_400_000_000
                    let day = local >= 0 ? local / d : (local - d + 1) / d
                    return day * d - offset * 1_000_000
                }
            }
            let (hours, raw) = Self.split(from: from, to: to)
            let ids: String? = selected.map { $0.keys.sorted().map(String.init).joined(separator: ",") }
            let only: String = ids.map { " AND %@ IN (\($0))" } ?? ""
            // An hour that a local midnight cuts (days at a UTC+5:30 midnight) cannot come from
            // its rollup: its raw rows are read instead. An hour starting `L` seconds into the
            // local day holds a midnight strictly inside it when L > 86400 - 3600.
            let cutHour = "(?5 AND ((%@ * 3600 + ?6) % 86400 + 86400) % 86400 > 82800)"
            func sub(_ template: String, _ column: String) -> String { template.replacingAll("%@", with: column) }
            let rollups: String =
                "SELECT s.address, r.hour * 3600000000, 0, r.n_rows, r.n_samples, r.last_time_us, r.stats "
                + "FROM rollup_hourly r JOIN sensors s ON s.id = r.sensor_id "
                + "WHERE r.hour >= ?1 AND r.hour < ?2 AND NOT \(sub(cutHour, "r.hour"))\(sub(only, "r.sensor_id"))"
            let rawRows: String =
                "SELECT s.address, x.time_us, 1, 1, x.samples, x.time_us, x.data "
                + "FROM readings x JOIN sensors s ON s.id = x.sensor_id "
                + "WHERE ((x.time_us >= ?3 AND x.time_us < ?4) OR (x.time_us >= ?7 AND x.time_us < ?8) "
                + "OR (x.time_us >= ?9 AND x.time_us < ?10 AND \(sub(cutHour, "(x.time_us / 3600000000)"))))"
                + sub(only, "x.sensor_id")
            let data = try connection.prepare(rollups + " UNION ALL " + rawRows + " ORDER BY 1, 2")
            try data.bind(1, hours.lowerBound)
            try data.bind(2, hours.upperBound)
            let edges = raw + Array(repeating: 0..<0, count: 2 - raw.count)
            try data.bind(3, edges[0].lowerBound)
            try data.bind(4, edges[0].upperBound)
            try data.bind(7, edges[1].lowerBound)
            try data.bind(8, edges[1].upperBound)
            try data.bind(5, dayOffset != nil ? 1 : 0)
            try data.bind(6, dayOffset ?? 0)
            // The whole hours in µs, clamped where the range is unbounded.
            let (low, lowOverflow) = hours.lowerBound.multipliedReportingOverflow(by: h)
            let (high, highOverflow) = hours.upperBound.multipliedReportingOverflow(by: h)
            try data.bind(9, lowOverflow ? Int64.min : low)
            try data.bind(10, highOverflow ? Int64.max : high)

            let which: String = ids.map { " WHERE id IN (\($0))" } ?? ""
            let list = try connection.prepare("SELECT \(Self.sensorColumns) FROM sensors\(which) ORDER BY address")
            var more = try data.step()
            var damaged = false
            var items: [(id: Int64, value: Double)] = []
            var periods: [(start: Int64, stats: SensorStats)] = []
            while try list.step() {
                let info = Self.sensor(list)
                let address = Int64(bitPattern: info.address.rawValue)
                periods.removeAll(keepingCapacity: true)
                // Both statements order by address; every data row's sensor is in the list (the join).
                while more, data.int64(0) <= address {
                    if data.int64(0) == address {
                        let t = data.int64(1)
                        let p = period(t)
                        if periods.last?.start != p { periods.append((p, SensorStats())) }
                        if data.int64(2) == 0 {
                            periods[periods.count - 1].stats.merge(rollupOf: data, hourStart: t, damaged: &damaged)
                        } else {
                            items.removeAll(keepingCapacity: true)
                            if !data.decodeMeasurements(6, { items.append(($0, $1)) }) { damaged = true }
                            items.sort { $0.id < $1.id }
                            periods[periods.count - 1].stats.addRow(samples: data.int64(4), time: t, items)
                        }
                    }
                    more = try data.step()
                }
                if damaged {
                    throw .sqlite(
                        code: SQLITE_CORRUPT, message: "malformed measurements or rollups",
                        attempted: "summarize \(path)")
                }
                var summaries: [SensorSummary] = []
                for (start, st) in periods {
                    var qs: [QuantitySummary] = []
                    for (id, a) in st.quantities {
                        qs.append(
                            QuantitySummary(
                                quantity: try quantity(id), rows: Int(a.rows), samples: Int(a.samples), min: a.min,
                                mean: a.rows > 0 ? a.sum / Double(a.rows) : .nan, max: a.max, last: a.last,
                                lastTimeMicros: a.lastTime))
                    }
                    qs.sort { $0.quantity < $1.quantity }
                    summaries.append(
                        SensorSummary(
                            sensor: info, periodStartMicros: grouping == .none ? nil : start, rows: Int(st.rows),
                            samples: Int(st.samples), lastTimeMicros: st.lastTime, quantities: qs))
                }
                try body(info, summaries)
            }
        }
    }
}

extension SensorStats {
    /// Merges one `rollup_hourly` row (columns n_rows, n_samples, last_time_us, stats at 3–6).
    fileprivate mutating func merge(rollupOf s: Statement, hourStart: Int64, damaged: inout Bool) {
        rows += s.int64(3)
        samples += s.int64(4)
        lastTime = Swift.max(lastTime, s.int64(5))
        if !s.decodeStats(6, hourStart: hourStart, { merge($0, $1) }) { damaged = true }
    }
}

extension String {
    /// Every occurrence of `target` replaced (without Foundation).
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        var out = ""
        var rest = self[...]
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}
