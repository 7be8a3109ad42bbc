import CSQLite
import SensorDecode

/// Streams exported rows in time order from one read snapshot, in constant memory.
///
/// Rows come from one SQLite statement walking the `(time_us, sensor_id)` primary key (or the
/// `readings_by_sensor` index for a single sensor), so nothing is sorted or buffered whatever
/// the range. The snapshot (a read transaction) lasts until `close()` or the end of the rows;
/// the logger keeps writing meanwhile. One open cursor per `StoreReader` at a time.
public final class ExportCursor {
    /// Every quantity present in the exported rows, sorted by key: the CSV header.
    public let quantities: [Quantity]
    /// The sensors the rows may name (all, or the selected ones), by id.
    public let sensors: [Int64: SensorInfo]
    private let reader: StoreReader
    private var statement: Statement?
    private var rowMeasurements: [Measurement] = []

    init(reader: StoreReader, quantities: [Quantity], sensors: [Int64: SensorInfo], statement: Statement) {
        self.reader = reader
        self.quantities = quantities
        self.sensors = sensors
        self.statement = statement
    }

    deinit { close() }

    /// The next row, or `nil` at the end (which also ends the snapshot).
    public func next() throws(StoreError) -> ExportRow? {
        guard let s = statement else { return nil }
        let more: Bool
        do { more = try s.step() } catch {
            close()
            throw error
        }
        guard more else {
            close()
            return nil
        }
        let sid = s.int64(1)
        // A sensor missing from the snapshot's table would be a damaged file; show its id.
        let sensor =
            sensors[sid]
            ?? SensorInfo(
                id: sid, address: BDAddress(rawValue: 0), addressType: .publicDevice, decoderID: "?", model: "?",
                alias: nil, radioName: nil, firstSeenMicros: 0, lastSeenMicros: 0, lastBatteryPercent: nil, lastRSSI: nil)
        var ms: [Measurement] = []
        ms.reserveCapacity(4)
        var badID: Int64? = nil
        let ok = MeasurementCodec.decode(s.blob(3)) { qid, v in
            if let q = reader.cachedQuantity(qid) { ms.append(Measurement(q, v)) } else { badID = qid }
        }
        if let badID { ms.append(Measurement(try reader.quantity(badID), .nan)) }
        guard ok else {
            let t = s.int64(0)
            close()
            throw .sqlite(
                code: SQLITE_CORRUPT, message: "malformed measurements in the row of sensor \(sid) at \(t) µs",
                attempted: "export from \(reader.path)")
        }
        if ms.count > 1 { ms.sort { $0.quantity < $1.quantity } }
        return ExportRow(timeMicros: s.int64(0), sensor: sensor, samples: s.int(2), measurements: ms)
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
    public func export(range: TimeRange = .all, sensors selectors: [SensorSelector] = []) throws(StoreError) -> ExportCursor {
        if let f = range.from, let t = range.to, f > t { throw .invalidArgument("the time range ends before it starts") }
        try connection.exec("BEGIN", "begin an export from \(path)")
        do throws(StoreError) {
            try loadQuantities()
            let from = try effectiveFrom(range)
            let to = range.to ?? .max
            let selected = try resolve(selectors)
            let sensors: [Int64: SensorInfo]
            if let selected { sensors = selected } else { sensors = try allSensorsByID() }
            let quantities = try quantitiesPresent(from: from, to: to, sensors: selected.map { Set($0.keys) })
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
            return ExportCursor(reader: self, quantities: quantities, sensors: sensors, statement: s)
        } catch {
            _ = connection.rollbackIfNeeded()
            throw error
        }
    }

    /// The quantities in `[from, to)`: rollups for whole hours, raw rows for the edges.
    private func quantitiesPresent(from: Int64, to: Int64, sensors: Set<Int64>?) throws(StoreError) -> [Quantity] {
        var ids = Set<Int64>()
        let (hours, raw) = Self.split(from: from, to: to)
        if !hours.isEmpty {
            let s = try connection.prepare(
                "SELECT DISTINCT sensor_id, quantity_id FROM rollup_hourly WHERE hour >= ?1 AND hour < ?2 AND quantity_id != 0")
            try s.bind(1, hours.lowerBound)
            try s.bind(2, hours.upperBound)
            while try s.step() {
                if sensors?.contains(s.int64(0)) ?? true { ids.insert(s.int64(1)) }
            }
        }
        for r in raw {
            try forEachRaw(r, sensors: sensors) { _, _, _, data in
                MeasurementCodec.decode(data) { qid, _ in ids.insert(qid) }
            }
        }
        var out: [Quantity] = []
        for id in ids { out.append(try quantity(id)) }
        return out.sorted()
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

    private struct SummaryKey: Hashable {
        var sensor: Int64
        var period: Int64
        var quantity: Int64
    }

    private struct SummaryAgg {
        var rows: Int64 = 0
        var samples: Int64 = 0
        var sum = 0.0
        var min = Double.infinity
        var max = -Double.infinity
        var lastTime = Int64.min
        var last = 0.0

        mutating func merge(rows r: Int64, samples n: Int64, sum s: Double, min lo: Double, max hi: Double, lastTime t: Int64, last v: Double) {
            rows += r
            samples += n
            sum += s
            min = Swift.min(min, lo)
            max = Swift.max(max, hi)
            if t >= lastTime {
                lastTime = t
                last = v
            }
        }
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
        if let f = range.from, let t = range.to, f > t { throw .invalidArgument("the time range ends before it starts") }
        return try inReadTransaction { () throws(StoreError) -> [SensorSummary] in
            try loadQuantities()
            let from = try effectiveFrom(range)
            let to = range.to ?? .max
            let selected = try resolve(selectors)
            let filter = selected.map { Set($0.keys) }
            let h = Schema.microsPerHour
            let period: (Int64) -> Int64
            var useRollups = true
            switch grouping {
            case .none: period = { _ in 0 }
            case .hour: period = { SensorStore.hour($0) * h }
            case .day(let offset):
                useRollups = offset % 3600 == 0
                period = { t in
                    let local = t + offset * 1_000_000
                    let d: Int64 = 86_400_000_000
                    let day = local >= 0 ? local / d : (local - d + 1) / d
                    return day * d - offset * 1_000_000
                }
            }
            var aggs: [SummaryKey: SummaryAgg] = [:]
            var (hours, raw) = Self.split(from: from, to: to)
            if !useRollups {
                hours = 0..<0
                raw = from < to ? [from..<to] : []
            }
            if !hours.isEmpty {
                let s = try connection.prepare(
                    "SELECT hour, sensor_id, quantity_id, n_rows, n_samples, sum_value, min_value, max_value, last_time_us, "
                        + "last_value FROM rollup_hourly WHERE hour >= ?1 AND hour < ?2")
                try s.bind(1, hours.lowerBound)
                try s.bind(2, hours.upperBound)
                while try s.step() {
                    let sid = s.int64(1)
                    guard filter?.contains(sid) ?? true else { continue }
                    let k = SummaryKey(sensor: sid, period: period(s.int64(0) * h), quantity: s.int64(2))
                    aggs[k, default: SummaryAgg()].merge(
                        rows: s.int64(3), samples: s.int64(4), sum: s.double(5), min: s.double(6), max: s.double(7),
                        lastTime: s.int64(8), last: s.double(9))
                }
            }
            for r in raw {
                try forEachRaw(r, sensors: filter) { t, sid, n, data in
                    let p = period(t)
                    aggs[SummaryKey(sensor: sid, period: p, quantity: Schema.rowQuantityID), default: SummaryAgg()].merge(
                        rows: 1, samples: n, sum: 0, min: 0, max: 0, lastTime: t, last: 0)
                    MeasurementCodec.decode(data) { qid, v in
                        aggs[SummaryKey(sensor: sid, period: p, quantity: qid), default: SummaryAgg()].merge(
                            rows: 1, samples: n, sum: v, min: v, max: v, lastTime: t, last: v)
                    }
                }
            }
            let sensors: [Int64: SensorInfo]
            if let selected { sensors = selected } else { sensors = try allSensorsByID() }
            struct Group: Hashable {
                var sensor: Int64
                var period: Int64
            }
            var groups: [Group: SensorSummary] = [:]
            for (k, a) in aggs where k.quantity == Schema.rowQuantityID {
                guard let info = sensors[k.sensor] else { continue }  // a sensor being forgotten
                groups[Group(sensor: k.sensor, period: k.period)] = SensorSummary(
                    sensor: info, periodStartMicros: grouping == .none ? nil : k.period, rows: Int(a.rows),
                    samples: Int(a.samples), lastTimeMicros: a.lastTime, quantities: [])
            }
            for (k, a) in aggs where k.quantity != Schema.rowQuantityID {
                let g = Group(sensor: k.sensor, period: k.period)
                guard groups[g] != nil else { continue }
                groups[g]!.quantities.append(
                    QuantitySummary(
                        quantity: try quantity(k.quantity), rows: Int(a.rows), samples: Int(a.samples), min: a.min,
                        mean: a.rows > 0 ? a.sum / Double(a.rows) : .nan, max: a.max, last: a.last, lastTimeMicros: a.lastTime))
            }
            var out = Array(groups.values)
            for i in out.indices { out[i].quantities.sort { $0.quantity < $1.quantity } }
            out.sort { ($0.sensor.address, $0.periodStartMicros ?? 0) < ($1.sensor.address, $1.periodStartMicros ?? 0) }
            return out
        }
    }
}
