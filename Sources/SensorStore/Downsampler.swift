import SensorDecode

/// How readings fold into stored rows. The only place downsampling and de-duplication happen.
public struct DownsampleConfiguration: Sendable, Equatable {
    /// Readings of one sensor within one interval, aligned to the Unix epoch (so 60 s buckets are
    /// UTC minutes), fold into one row stamped with the bucket's start. 0 stores every
    /// advertisement at its own receive time. Default 60 s.
    public var intervalSeconds: Int
    /// A reading whose measurements equal the sensor's last accepted reading within this window
    /// (µs) is the same frame heard again (controllers report each advertising event on several
    /// channels; Bumble reports each twice) and is dropped. Default 1 s.
    public var duplicateWindowMicros: Int64
    /// At most this many sensors have in-memory state (open bucket, last frame). A new sensor
    /// beyond it first evicts the least recently heard eighth, writing their open buckets out
    /// early, so a flood of addresses costs rows, never memory. Default 1024.
    public var maxSensors: Int

    public init(intervalSeconds: Int = 60, duplicateWindowMicros: Int64 = 1_000_000, maxSensors: Int = 1024) {
        self.intervalSeconds = intervalSeconds
        self.duplicateWindowMicros = duplicateWindowMicros
        self.maxSensors = maxSensors
    }
}

/// One row for the `readings` table: a sensor's measurements over one bucket.
///
/// Folding rule: a continuous quantity (`Quantity.isInteger == false`: temperature, humidity, …)
/// stores the **mean** of the bucket's samples; a whole-number quantity (battery %, counters,
/// states) stores the **last** value, since the mean of a counter or an on/off state is a value
/// the device never had. `samples` is how many (non-duplicate) advertisements were folded.
public struct StoredRow: Sendable, Equatable {
    public var address: BDAddress
    public var addressType: AddressType
    public var decoderID: String
    public var model: String
    /// The device's name as last heard in the bucket (radio text, already escaped by the decoder).
    public var name: String?
    public var rssi: Int8?
    /// Bucket start (or the reading's own time when the interval is 0), µs since the Unix epoch.
    public var timeMicros: Int64
    /// Receive times of the first and last folded readings (µs since the Unix epoch).
    public var firstHeardMicros: Int64
    public var lastHeardMicros: Int64
    public var samples: Int
    /// Sorted by quantity key, one entry per quantity.
    public var measurements: [Measurement]
}

/// Counters of what the downsampler did, for the logger's status line.
public struct DownsampleStatistics: Sendable, Equatable {
    public var readings = 0
    public var duplicates = 0
    /// Readings older than their sensor's open bucket (clock stepped back, reordered sources):
    /// stored as rows of their own.
    public var outOfOrder = 0
    public var evictedSensors = 0
    public var rows = 0
}

/// Folds readings into `StoredRow`s with a fixed memory bound (see `DownsampleConfiguration`).
///
/// A sensor's bucket is emitted when (a) the sensor is heard in a later bucket, (b) any reading
/// (or the caller's wall clock) passes the bucket's end (`closeDue`), (c) its sensor is evicted,
/// or (d) `closeAll` at shutdown. Pure: no clock, no I/O.
struct Downsampler {
    private struct Accumulator {
        var quantity: Quantity
        var sum: Double
        var count: Int
        var last: Double
    }

    private struct Bucket {
        /// The row as its first reading made it (`measurements` are that reading's, key-ordered).
        var row: StoredRow
        /// Empty while the bucket holds one reading: its row is then already final (the mean and
        /// the last of one value are the value), so a one-reading bucket allocates no array.
        /// Filled from `row.measurements` by the second reading; in key order unless `appended`.
        var accumulators: [Accumulator] = []
        /// A quantity first heard after the bucket opened was appended (out of key order).
        var appended = false
    }

    private struct Entry {
        var lastHeardMicros: Int64
        var lastAcceptedMicros: Int64
        var lastAccepted: [Measurement]
        var bucket: Bucket?
        /// The quantities of the sensor's last reading as its decoder listed them, and the
        /// indices of that list in key order (one per quantity, a repeated one keeps its last):
        /// decoders list the same quantities in the same order every time, so the key order is
        /// worked out (String comparisons) once per sensor, not per reading.
        var listed: [Quantity] = []
        var keyOrder: [Int] = []
        var listedInKeyOrder = true

        /// `measurements` in key order, one per quantity (a decoder listing one twice keeps the last).
        mutating func keyOrdered(_ measurements: [Measurement]) -> [Measurement] {
            var same = listed.count == measurements.count
            if same {
                for i in measurements.indices where listed[i] != measurements[i].quantity {
                    same = false
                    break
                }
            }
            if !same {
                listed = measurements.map(\.quantity)
                let sorted = measurements.indices.sorted { a, b in
                    let qa = measurements[a].quantity
                    let qb = measurements[b].quantity
                    return qa < qb || (qa == qb && a < b)
                }
                keyOrder.removeAll(keepingCapacity: true)
                for i in sorted {
                    if let last = keyOrder.last, measurements[last].quantity == measurements[i].quantity {
                        keyOrder[keyOrder.count - 1] = i
                    } else {
                        keyOrder.append(i)
                    }
                }
                listedInKeyOrder = keyOrder == Array(measurements.indices)
            }
            return listedInKeyOrder ? measurements : keyOrder.map { measurements[$0] }
        }
    }

    let configuration: DownsampleConfiguration
    private let intervalMicros: Int64
    private var entries: [BDAddress: Entry] = [:]
    /// The latest receive time of any accepted reading: "now" as the radio tells it.
    private(set) var radioTimeMicros: Int64 = .min
    private(set) var statistics = DownsampleStatistics()

    init(_ configuration: DownsampleConfiguration) {
        self.configuration = configuration
        self.intervalMicros = Int64(max(0, configuration.intervalSeconds)) * 1_000_000
        entries.reserveCapacity(min(configuration.maxSensors, 4096))
    }

    var trackedSensors: Int { entries.count }
    var openBuckets: Int { entries.values.reduce(0) { $0 + ($1.bucket == nil ? 0 : 1) } }

    /// Folds one reading; calls `emit` for every row that became complete.
    mutating func add(_ r: Reading, emit: (StoredRow) -> Void) {
        statistics.readings += 1
        // One hash lookup for a known sensor: its entry is then changed in place (it is the only
        // reference to its arrays, so they are not copied).
        var slot = entries.index(forKey: r.address)
        if slot == nil {
            if entries.count >= max(1, configuration.maxSensors) { evictLeastRecentlyHeard(emit: emit) }
            entries[r.address] = Entry(
                lastHeardMicros: r.timeMicros, lastAcceptedMicros: .min, lastAccepted: [], bucket: nil)
            slot = entries.index(forKey: r.address)
        }
        guard let slot else { return }  // unreachable: just inserted
        var out: StoredRow? = nil
        let start = bucketStart(r.timeMicros)
        let accepted = Self.fold(
            r, start: start, into: &entries.values[slot], intervalMicros: intervalMicros,
            duplicateWindowMicros: configuration.duplicateWindowMicros, statistics: &statistics, out: &out)
        if accepted { radioTimeMicros = max(radioTimeMicros, r.timeMicros) }
        if let out {
            statistics.rows += 1
            emit(out)
        }
    }

    /// `add` for the sensor's entry `e`: drops a duplicate (returns `false`), or folds `r` into
    /// the open bucket and sets `out` to a row that became complete.
    private static func fold(
        _ r: Reading, start: Int64, into e: inout Entry, intervalMicros: Int64, duplicateWindowMicros: Int64,
        statistics: inout DownsampleStatistics, out: inout StoredRow?
    ) -> Bool {
        let ms = e.keyOrdered(r.measurements)
        let sinceLast = r.timeMicros &- e.lastAcceptedMicros
        if e.lastAcceptedMicros != .min, sinceLast >= 0, sinceLast < duplicateWindowMicros, e.lastAccepted == ms {
            statistics.duplicates += 1
            return false
        }
        e.lastAccepted = ms
        e.lastAcceptedMicros = r.timeMicros
        e.lastHeardMicros = max(e.lastHeardMicros, r.timeMicros)
        if intervalMicros == 0 {
            out = row(r, ms, start)
        } else if var b = e.bucket.take() {
            // Moved out, not copied: the sole owner of its arrays while folding.
            if start == b.row.timeMicros {
                fold(&b, r, ms)
                e.bucket = b
            } else if start < b.row.timeMicros {
                statistics.outOfOrder += 1
                e.bucket = b
                out = row(r, ms, start)
            } else {
                out = finish(b)
                e.bucket = open(r, ms, start)
            }
        } else {
            e.bucket = open(r, ms, start)
        }
        return true
    }

    /// Emits every open bucket that ended at or before `max(radio time, wallMicros)`.
    mutating func closeDue(wallMicros: Int64? = nil, emit: (StoredRow) -> Void) {
        guard intervalMicros > 0 else { return }
        let now = max(radioTimeMicros, wallMicros ?? .min)
        for key in entries.keys {
            guard let b = entries[key]?.bucket, b.row.timeMicros + intervalMicros <= now else { continue }
            entries[key]?.bucket = nil
            statistics.rows += 1
            emit(Self.finish(b))
        }
    }

    /// Emits every open bucket (shutdown, end of a replay).
    mutating func closeAll(emit: (StoredRow) -> Void) {
        for key in entries.keys {
            guard let b = entries[key]?.bucket else { continue }
            entries[key]?.bucket = nil
            statistics.rows += 1
            emit(Self.finish(b))
        }
    }

    private func bucketStart(_ t: Int64) -> Int64 {
        guard intervalMicros > 0 else { return t }
        let q = t >= 0 ? t / intervalMicros : (t - intervalMicros + 1) / intervalMicros
        return q * intervalMicros
    }

    /// Drops the least recently heard eighth of the tracked sensors, emitting their open buckets.
    private mutating func evictLeastRecentlyHeard(emit: (StoredRow) -> Void) {
        let n = max(1, entries.count / 8)
        let victims = entries.sorted { $0.value.lastHeardMicros < $1.value.lastHeardMicros }.prefix(n).map(\.key)
        for key in victims {
            if let b = entries[key]?.bucket {
                statistics.rows += 1
                emit(Self.finish(b))
            }
            entries[key] = nil
            statistics.evictedSensors += 1
        }
    }

    private static func row(_ r: Reading, _ ms: [Measurement], _ start: Int64) -> StoredRow {
        StoredRow(
            address: r.address, addressType: r.addressType, decoderID: r.decoderID, model: r.model, name: r.name,
            rssi: r.rssi, timeMicros: start, firstHeardMicros: r.timeMicros, lastHeardMicros: r.timeMicros, samples: 1,
            measurements: ms)
    }

    private static func open(_ r: Reading, _ ms: [Measurement], _ start: Int64) -> Bucket {
        Bucket(row: row(r, ms, start))
    }

    private static func fold(_ b: inout Bucket, _ r: Reading, _ ms: [Measurement]) {
        if b.accumulators.isEmpty {
            b.accumulators = b.row.measurements.map {
                Accumulator(quantity: $0.quantity, sum: $0.value, count: 1, last: $0.value)
            }
        }
        b.row.samples += 1
        b.row.firstHeardMicros = min(b.row.firstHeardMicros, r.timeMicros)
        if r.timeMicros >= b.row.lastHeardMicros {
            b.row.lastHeardMicros = r.timeMicros
            b.row.addressType = r.addressType
            b.row.decoderID = r.decoderID
            b.row.model = r.model
            if let name = r.name { b.row.name = name }
            if let rssi = r.rssi { b.row.rssi = rssi }
        }
        for m in ms {
            if let i = b.accumulators.firstIndex(where: { $0.quantity == m.quantity }) {
                b.accumulators[i].sum += m.value
                b.accumulators[i].count += 1
                b.accumulators[i].last = m.value
            } else {
                b.accumulators.append(Accumulator(quantity: m.quantity, sum: m.value, count: 1, last: m.value))
                b.appended = true
            }
        }
    }

    private static func finish(_ b: consuming Bucket) -> StoredRow {
        // One reading: its measurements are the row's (see `Bucket.accumulators`).
        if b.accumulators.isEmpty { return b.row }
        var row = b.row
        // Accumulators were opened in key order (`add` orders), and a quantity first seen later is
        // appended: sort only in that rare case (String comparisons).
        row.measurements = b.accumulators.map { a in
            Measurement(a.quantity, a.quantity.isInteger ? a.last : (a.count == 1 ? a.sum : a.sum / Double(a.count)))
        }
        if b.appended { row.measurements.sort { $0.quantity < $1.quantity } }
        return row
    }
}
