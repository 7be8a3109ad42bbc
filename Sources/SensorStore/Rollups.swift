import CSQLite

/// Aggregates of stored rows: the `rollup_hourly` table's contents, and what summaries compute.
///
/// One `rollup_hourly` row per (hour, sensor) holds the row-level counts in columns and the
/// per-quantity statistics packed in `stats`, so a year of 50 sensors is 438 000 rows (not one
/// row per quantity: reading ten columns of 1.75 M rows cost 3× more in SQLite). `stats` layout,
/// once per quantity in ascending id:
///
/// | field     | encoding                          | meaning                                  |
/// |-----------|-----------------------------------|------------------------------------------|
/// | id        | varint                            | `quantities.id`                          |
/// | rows      | varint                            | stored rows carrying the quantity        |
/// | samples   | varint                            | advertisements folded into those rows    |
/// | last at   | varint                            | latest row time − hour start (µs)        |
/// | sum       | MeasurementCodec value            | of stored values                         |
/// | min, max  | MeasurementCodec value, twice     |                                          |
/// | last      | MeasurementCodec value            | value of the latest row                  |
struct QuantityStats: Equatable {
    var rows: Int64
    var samples: Int64
    var sum: Double
    var min: Double
    var max: Double
    var lastTime: Int64
    var last: Double

    init(rows: Int64, samples: Int64, sum: Double, min: Double, max: Double, lastTime: Int64, last: Double) {
        self.rows = rows
        self.samples = samples
        self.sum = sum
        self.min = min
        self.max = max
        self.lastTime = lastTime
        self.last = last
    }

    /// One stored row's value.
    init(samples: Int64, value: Double, time: Int64) {
        self.init(rows: 1, samples: samples, sum: value, min: value, max: value, lastTime: time, last: value)
    }

    mutating func merge(_ o: QuantityStats) {
        rows += o.rows
        samples += o.samples
        sum += o.sum
        min = Swift.min(min, o.min)
        max = Swift.max(max, o.max)
        if o.lastTime >= lastTime {
            lastTime = o.lastTime
            last = o.last
        }
    }
}

/// One (hour or period, sensor): counts of its rows and the statistics of each quantity.
struct SensorStats: Equatable {
    var rows: Int64 = 0
    var samples: Int64 = 0
    var lastTime = Int64.min
    /// Ascending quantity id; a handful per sensor, so a linear search beats hashing.
    var quantities: [(id: Int64, stats: QuantityStats)] = []

    static func == (a: SensorStats, b: SensorStats) -> Bool {
        a.rows == b.rows && a.samples == b.samples && a.lastTime == b.lastTime
            && a.quantities.map(\.id) == b.quantities.map(\.id) && a.quantities.map(\.stats) == b.quantities.map(\.stats)
    }

    /// Adds one stored row with its `(quantity id, value)` items.
    mutating func addRow<C: Collection<(id: Int64, value: Double)>>(samples: Int64, time: Int64, _ items: C) {
        beginRow(samples: samples, time: time)
        var j = 0
        for (id, v) in items {
            addItem(j, id: id, value: v, samples: samples, time: time)
            j += 1
        }
    }

    /// `addRow` in steps, for a caller that has the items one at a time (the writer, as it encodes
    /// them): `beginRow`, then `addItem` for item `j` = 0, 1, … of the row in order.
    @inline(__always)
    mutating func beginRow(samples: Int64, time: Int64) {
        rows += 1
        self.samples += samples
        lastTime = Swift.max(lastTime, time)
    }

    @inline(__always)
    mutating func addItem(_ j: Int, id: Int64, value: Double, samples: Int64, time: Int64) {
        let s = QuantityStats(samples: samples, value: value, time: time)
        // Rows of a sensor carry the same ids in the same (ascending) order, as `quantities` keeps
        // them: the item's position is tried before the search.
        if j < quantities.count, quantities[j].id == id {
            quantities[j].stats.merge(s)
        } else {
            merge(id, s)
        }
    }

    mutating func merge(_ id: Int64, _ s: QuantityStats) {
        if let i = quantities.firstIndex(where: { $0.id == id }) {
            quantities[i].stats.merge(s)
        } else {
            quantities.append((id, s))
            if quantities.count > 1, quantities[quantities.count - 2].id > id { quantities.sort { $0.id < $1.id } }
        }
    }

    mutating func merge(_ o: SensorStats) {
        rows += o.rows
        samples += o.samples
        lastTime = Swift.max(lastTime, o.lastTime)
        for (id, s) in o.quantities { merge(id, s) }
    }

    /// Room one quantity's entry may need: four 10-byte varints and four values (kind and a
    /// 10-byte varint, or an 8-byte double).
    static let maxStatsBytes = 4 * 10 + 4 * 11

    /// Appends the `stats` blob of the table (times relative to `hourStart`) to `out`, which has
    /// room for `maxStatsBytes` per quantity.
    func writeStats(hourStart: Int64, to out: inout OutputSpan<UInt8>) {
        for (id, s) in quantities {
            MeasurementCodec.writeVarint(UInt64(bitPattern: id), to: &out)
            MeasurementCodec.writeVarint(UInt64(bitPattern: s.rows), to: &out)
            MeasurementCodec.writeVarint(UInt64(bitPattern: s.samples), to: &out)
            MeasurementCodec.writeVarint(UInt64(bitPattern: s.lastTime &- hourStart), to: &out)
            MeasurementCodec.writeValue(s.sum, to: &out)
            MeasurementCodec.writeValue(s.min, to: &out)
            MeasurementCodec.writeValue(s.max, to: &out)
            MeasurementCodec.writeValue(s.last, to: &out)
        }
    }

    /// The `stats` blob of the table (times relative to `hourStart`).
    func statsBlob(hourStart: Int64) -> [UInt8] {
        [UInt8](capacity: quantities.count * Self.maxStatsBytes) { (o: inout OutputSpan<UInt8>) in
            writeStats(hourStart: hourStart, to: &o)
        }
    }

    /// Calls `body(id, stats)` per quantity of a `stats` blob; `false` if it is malformed.
    @discardableResult
    static func decodeStats(_ bytes: Span<UInt8>, hourStart: Int64, _ body: (Int64, QuantityStats) -> Void) -> Bool {
        var c = CodecCursor()
        while !c.isAtEnd(bytes) {
            guard let id = c.varint(bytes), let rows = c.varint(bytes), let samples = c.varint(bytes),
                let at = c.varint(bytes), let sum = c.value(bytes), let lo = c.value(bytes), let hi = c.value(bytes),
                let last = c.value(bytes)
            else { return false }
            body(
                Int64(bitPattern: id),
                QuantityStats(
                    rows: Int64(bitPattern: rows), samples: Int64(bitPattern: samples), sum: sum, min: lo, max: hi,
                    lastTime: hourStart &+ Int64(bitPattern: at), last: last))
        }
        return true
    }
}

extension Statement {
    /// `SensorStats.decodeStats` of column `c` of the current row (a `rollup_hourly.stats` blob).
    @discardableResult @inline(__always)
    func decodeStats(_ c: Int32, hourStart: Int64, _ body: (Int64, QuantityStats) -> Void) -> Bool {
        withBlob(c) { SensorStats.decodeStats($0, hourStart: hourStart, body) }
    }
}

/// Rollups computed again from the raw rows: for an (hour, sensor) whose row a merge changed
/// (a stored value can only be taken out of a minimum or maximum by reading the hour again), and
/// for the hours a bad horizon hid (`Schema.repairHorizon`).
enum RollupRebuild {
    /// Raw rows of one sensor in one hour, ordered by time (served by `readings_by_sensor`).
    static let hourSQL = "SELECT time_us, samples, data FROM readings WHERE sensor_id = ?1 AND time_us >= ?2 AND time_us < ?3"

    /// The aggregate of the raw rows of `sensorID` in `hour` (invariant 4's right-hand side), read
    /// with `st` (prepared from `hourSQL`).
    static func stats(hour: Int64, sensorID: Int64, using st: Statement) throws(StoreError) -> SensorStats {
        try st.bind(1, sensorID)
        try st.bind(2, hour * Schema.microsPerHour)
        try st.bind(3, (hour + 1) * Schema.microsPerHour)
        defer { st.reset() }
        var stats = SensorStats()
        var items: [(id: Int64, value: Double)] = []
        while try st.step() {
            items.removeAll(keepingCapacity: true)
            guard st.decodeMeasurements(2, { items.append(($0, $1)) }) else {
                throw StoreError.sqlite(
                    code: SQLITE_CORRUPT, message: "malformed row of sensor \(sensorID) at \(st.int64(0)) µs",
                    attempted: "recompute a rollup")
            }
            items.sort { $0.id < $1.id }
            stats.addRow(samples: st.int64(1), time: st.int64(0), items)
        }
        return stats
    }

    /// Replaces every rollup of an hour before `hour` by the aggregate of its raw rows, one
    /// (hour, sensor) at a time (memory stays one group's). Call inside a write transaction.
    static func rebuild(_ c: Connection, before hour: Int64) throws(StoreError) {
        let end = hour * Schema.microsPerHour
        let del = try c.prepare("DELETE FROM rollup_hourly WHERE hour < ?1")
        try del.bind(1, hour)
        try del.run()
        let keys = try c.prepare(
            "SELECT DISTINCT sensor_id, time_us / \(Schema.microsPerHour) FROM readings WHERE time_us < ?1 AND time_us >= 0")
        try keys.bind(1, end)
        let rows = try c.prepare(hourSQL)
        let insert = try c.prepare(
            "INSERT OR REPLACE INTO rollup_hourly (hour, sensor_id, n_rows, n_samples, last_time_us, stats) "
                + "VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        while try keys.step() {
            let sensor = keys.int64(0)
            let h = keys.int64(1)
            let s = try stats(hour: h, sensorID: sensor, using: rows)
            try write(s, hour: h, sensorID: sensor, using: insert)
        }
    }

    /// Writes one rollup row with `st` (parameters `(hour, sensor_id, n_rows, n_samples,
    /// last_time_us, stats)`).
    static func write(_ s: SensorStats, hour: Int64, sensorID: Int64, using st: Statement) throws(StoreError) {
        guard s.rows > 0 else { return }
        let blob = s.statsBlob(hourStart: hour * Schema.microsPerHour)
        try st.bind(1, hour)
        try st.bind(2, sensorID)
        try st.bind(3, s.rows)
        try st.bind(4, s.samples)
        try st.bind(5, s.lastTime)
        if blob.isEmpty {
            try st.bindEmptyBlob(6)
        } else {
            try st.bind(6, blob)
        }
        defer { st.reset() }
        try st.run()
    }
}
