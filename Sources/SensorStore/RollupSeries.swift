import CSQLite
import SensorDecode

/// One quantity of one sensor in one hour, as `rollup_hourly` keeps it: what charts are drawn from.
public struct HourlyRollup: Sendable, Equatable {
    public var sensorID: Int64
    /// `quantities.id`; `StoreReader.quantityKeys()` names it.
    public var quantityID: Int64
    /// Hours since the epoch (UTC).
    public var hour: Int64
    /// Stored rows carrying the quantity in the hour, and the advertisements folded into them.
    public var rows: Int64
    public var samples: Int64
    /// Over stored values (row means for continuous quantities).
    public var sum: Double
    public var min: Double
    public var max: Double
    /// The latest row's value and time (µs).
    public var last: Double
    public var lastTimeMicros: Int64
}

extension StoreReader {
    /// Calls `body` for every quantity of every hourly rollup in `hours`, in one read snapshot,
    /// hour by hour (ascending), and within an hour by sensor id: a year of 50 sensors is one
    /// pass over 438 000 rollup rows, and nothing is held but the current one (the caller folds
    /// them into whatever it draws).
    /// - Parameters:
    ///   - hours: hours since the epoch, `[from, to)`; clipped to the retention horizon.
    ///   - sensors: the sensor ids to include; `nil` includes every sensor.
    /// - Throws: SQLite errors; `SQLITE_CORRUPT` for a malformed `stats` blob.
    public func forEachHourlyRollup(
        hours: Range<Int64>, sensors: Set<Int64>?, _ body: (HourlyRollup) -> Void
    ) throws(StoreError) {
        try inReadTransaction { () throws(StoreError) in
            let horizon = try effectiveFrom(TimeRange())
            // The first whole hour at or after the horizon: an hour it cuts may be half pruned.
            let first = horizon == .min ? hours.lowerBound : Swift.max(hours.lowerBound, SensorStore.hour(horizon - 1) + 1)
            guard first < hours.upperBound else { return }
            let s = try connection.prepare(
                "SELECT hour, sensor_id, stats FROM rollup_hourly WHERE hour >= ?1 AND hour < ?2 ORDER BY hour, sensor_id")
            try s.bind(1, first)
            try s.bind(2, hours.upperBound)
            var damaged = false
            while try s.step() {
                let sid = s.int64(1)
                guard sensors?.contains(sid) ?? true else { continue }
                let hour = s.int64(0)
                let ok = s.decodeStats(2, hourStart: hour * Schema.microsPerHour) { qid, q in
                    body(
                        HourlyRollup(
                            sensorID: sid, quantityID: qid, hour: hour, rows: q.rows, samples: q.samples, sum: q.sum,
                            min: q.min, max: q.max, last: q.last, lastTimeMicros: q.lastTime))
                }
                if !ok { damaged = true }
            }
            if damaged {
                throw .sqlite(code: SQLITE_CORRUPT, message: "malformed rollups", attempted: "read the rollups of \(path)")
            }
        }
    }

    /// Every quantity the store has a name for, by id (`quantities` table).
    public func quantityKeys() throws(StoreError) -> [Int64: String] {
        try loadQuantities()
        return quantitiesByID.mapValues(\.key)
    }
}
