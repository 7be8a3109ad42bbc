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
    public var addressType: AddressType { facts.addressType }
    public var decoderID: String { facts.decoderID }
    public var model: String { facts.model }
    /// The device's name as last heard in the bucket (radio text, already escaped by the decoder).
    public var name: String? { facts.name }
    public var rssi: Int8?
    /// Bucket start (or the reading's own time when the interval is 0), µs since the Unix epoch.
    public var timeMicros: Int64
    /// Receive times of the first and last folded readings (µs since the Unix epoch).
    public var firstHeardMicros: Int64
    public var lastHeardMicros: Int64
    public var samples: Int
    /// The measurements as stored: as the decoder listed them (`listed`, shared with the reading
    /// of a one-reading bucket, so that row copies nothing) in the order `keyOrder` gives.
    /// INVARIANT: `keyOrder` (or `listed.indices` when `nil`) visits each quantity of `listed` once,
    /// in ascending key order; a quantity listed twice is visited at its last position.
    var listed: [Measurement]
    /// The sensor's facts and the key order of `listed`, shared by its rows (see `RowFacts`).
    var facts: RowFacts
    /// `nil` when `listed` is already in key order without repeats (the common case: no array).
    var keyOrder: [Int]? { facts.keyOrder }
    /// The receiver that published this row, for a hub's rows (RowReceivers.swift); else `nil`.
    public var receiver: String? { facts.receiver }

    init(
        address: BDAddress, facts: RowFacts, rssi: Int8?, timeMicros: Int64, firstHeardMicros: Int64,
        lastHeardMicros: Int64, samples: Int, listed: [Measurement]
    ) {
        self.address = address
        self.facts = facts
        self.rssi = rssi
        self.timeMicros = timeMicros
        self.firstHeardMicros = firstHeardMicros
        self.lastHeardMicros = lastHeardMicros
        self.samples = samples
        self.listed = listed
    }

    /// Gives the row a measurement list of its own, exactly its size, if it shares a larger one.
    mutating func compact() {
        guard listed.capacity > listed.count else { return }
        var own: [Measurement] = []
        own.reserveCapacity(listed.count)
        own.append(contentsOf: listed)
        listed = own
    }

    /// Sorted by quantity key, one entry per quantity (a new array when the decoder listed them
    /// otherwise: the writer reads `listed` through `keyOrder` instead).
    public var measurements: [Measurement] {
        guard let keyOrder else { return listed }
        return keyOrder.map { listed[$0] }
    }

    /// Number of quantities (entries of `measurements`).
    var count: Int { keyOrder?.count ?? listed.count }

    /// The `k`-th measurement in key order.
    @inline(__always)
    func measurement(_ k: Int) -> Measurement { listed[keyOrder?[k] ?? k] }

    /// The value of quantity `q`, if the row has it.
    func value(_ q: Quantity) -> Double? {
        for k in 0..<count where measurement(k).quantity == q { return measurement(k).value }
        return nil
    }

    public static func == (a: StoredRow, b: StoredRow) -> Bool {
        a.address == b.address && a.addressType == b.addressType && a.decoderID == b.decoderID && a.model == b.model
            && a.name == b.name && a.receiver == b.receiver && a.rssi == b.rssi && a.timeMicros == b.timeMicros
            && a.firstHeardMicros == b.firstHeardMicros && a.lastHeardMicros == b.lastHeardMicros
            && a.samples == b.samples && sameMeasurements(a.listed, a.keyOrder, b.listed, b.keyOrder)
    }

    /// Whether two listings hold the same measurements in key order, without building either.
    static func sameMeasurements(_ a: [Measurement], _ ao: [Int]?, _ b: [Measurement], _ bo: [Int]?) -> Bool {
        let n = ao?.count ?? a.count
        guard n == bo?.count ?? b.count else { return false }
        for k in 0..<n where a[ao?[k] ?? k] != b[bo?[k] ?? k] { return false }
        return true
    }
}

/// What consecutive rows of one sensor share: the facts the commit writes to `sensors` and the
/// key order of the decoder's listing (`StoredRow.keyOrder`). Immutable, and made again only when
/// one of them changes (`Downsampler.facts`), so a row carries one reference where it carried
/// three strings and an array: each copied (retained) into the row and released after its commit.
final class RowFacts: Sendable {
    let addressType: AddressType
    let decoderID: String
    let model: String
    let name: String?
    /// Shared by every row of the sensor while its decoder lists the same quantities in the same
    /// order (see `Downsampler.Entry`).
    let keyOrder: [Int]?
    /// The receiver whose published copy the row is (`SensorStore.add(published:…)`, the hub);
    /// `nil` for the rows a logger folds from its own radio (RowReceivers.swift).
    let receiver: String?

    init(
        addressType: AddressType, decoderID: String, model: String, name: String?, keyOrder: [Int]?,
        receiver: String? = nil
    ) {
        self.addressType = addressType
        self.decoderID = decoderID
        self.model = model
        self.name = name
        self.keyOrder = keyOrder
        self.receiver = receiver
    }

    /// Whether these are the facts (string equality: small strings compare in place).
    func says(addressType: AddressType, decoderID: String, model: String, name: String?, keyOrder: [Int]?) -> Bool {
        addressType == self.addressType && decoderID == self.decoderID && model == self.model && name == self.name
            && keyOrder == self.keyOrder
    }

    /// `self` if it already says this, else new.
    func with(
        addressType: AddressType, decoderID: String, model: String, name: String?, keyOrder: [Int]?
    ) -> RowFacts {
        if says(addressType: addressType, decoderID: decoderID, model: model, name: name, keyOrder: keyOrder) {
            return self
        }
        return RowFacts(addressType: addressType, decoderID: decoderID, model: model, name: name, keyOrder: keyOrder)
    }
}

/// Counters of what the downsampler did, for the logger's status line.
public struct DownsampleStatistics: Sendable, Equatable {
    public var readings = 0
    public var duplicates = 0
    /// Readings older than their sensor's open bucket (clock stepped back, reordered sources):
    /// rows of their own, which the writer merges into their interval's row (invariant 3 of
    /// SensorStore.swift).
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

    private struct Entry {
        let address: BDAddress
        var lastHeardMicros: Int64
        var lastAcceptedMicros: Int64
        /// The last accepted reading's measurements as listed, and their key order (as `StoredRow`).
        var lastAccepted: [Measurement]
        var lastAcceptedOrder: [Int]?
        /// The open bucket's row as its first reading made it (its `listed` measurements are that
        /// reading's), `nil` when no bucket is open. Kept in the entry itself, not in a wrapper, so
        /// it is moved out and in without copying its fields; changed only by `setOpen` and
        /// `takeOpen`, which keep `openStartMicros`. (Not a `didSet`: an observed property is
        /// read and written through its accessors, so `take()` copied the row out and destroyed
        /// the old one, four reference counts a reading where a move costs none.)
        private(set) var open: StoredRow? = nil
        /// `open?.timeMicros`, or `Int64.max` when no bucket is open, as a plain number: the tick
        /// scans every sensor for due buckets once a second, and reading `open` through the array
        /// copies the whole entry.
        private(set) var openStartMicros: Int64 = .max

        /// Opens (or puts back) the bucket `row`, moved into place. No bucket is open: each caller
        /// found none or took it with `takeOpen`.
        mutating func setOpen(_ row: consuming StoredRow) {
            assert(open == nil, "a bucket is open")
            openStartMicros = row.timeMicros
            open = consume row
        }

        /// Moves the open bucket's row out, leaving none open.
        mutating func takeOpen() -> StoredRow? {
            openStartMicros = .max
            return open.take()
        }
        /// The facts of the sensor's latest row, reused by its next row when they still hold;
        /// and those of its latest folded row (always in key order), likewise.
        var facts: RowFacts? = nil
        var foldedFacts: RowFacts? = nil
        /// Empty while the open bucket holds one reading: its row is then already final (the mean
        /// and the last of one value are the value), so a one-reading bucket allocates nothing.
        /// Filled in key order from the row by the second reading (capacity kept for the next).
        var accumulators: [Accumulator] = []
        /// A quantity first heard after the bucket opened was appended (out of key order).
        var appended = false
        /// The quantities of the sensor's last reading as its decoder listed them, and the key
        /// order of that list (`StoredRow.keyOrder`): decoders list the same quantities in the
        /// same order every time, so the order is worked out (String comparisons) once per
        /// sensor, and then shared by its rows, not worked out and applied per reading.
        var listed: [Quantity] = []
        var keyOrder: [Int]? = nil

        /// The key order of `measurements` (`StoredRow.keyOrder`): the cached one when the
        /// decoder listed the same quantities as last time.
        mutating func order(of measurements: [Measurement]) -> [Int]? {
            if listed.count == measurements.count {
                var same = true
                for i in measurements.indices where listed[i] != measurements[i].quantity {
                    same = false
                    break
                }
                if same { return keyOrder }
            }
            listed = measurements.map(\.quantity)
            let sorted = measurements.indices.sorted { a, b in
                let qa = measurements[a].quantity
                let qb = measurements[b].quantity
                return qa < qb || (qa == qb && a < b)
            }
            var order: [Int] = []
            order.reserveCapacity(sorted.count)
            for i in sorted {
                if let last = order.last, measurements[last].quantity == measurements[i].quantity {
                    order[order.count - 1] = i
                } else {
                    order.append(i)
                }
            }
            keyOrder = order == Array(measurements.indices) ? nil : order
            return keyOrder
        }
    }

    let configuration: DownsampleConfiguration
    private let intervalMicros: Int64
    /// The tracked sensors, in no meaningful order, and each one's position in `entries`.
    /// INVARIANT: `index[e.address] == i` for every `entries[i]`, and nothing else is in `index`
    /// (a removal moves the last entry into the hole and updates its slot). An array plus an
    /// `AddressIndex`, not a `Dictionary`: one SipHash per reading cost more than its fold.
    private var entries: [Entry] = []
    private var index: AddressIndex
    /// The latest receive time of any accepted reading: "now" as the radio tells it.
    private(set) var radioTimeMicros: Int64 = .min
    private(set) var statistics = DownsampleStatistics()

    init(_ configuration: DownsampleConfiguration) {
        self.configuration = configuration
        self.intervalMicros = Int64(max(0, configuration.intervalSeconds)) * 1_000_000
        let expected = min(max(1, configuration.maxSensors), 4096)
        entries.reserveCapacity(expected)
        index = AddressIndex(capacity: expected)
    }

    var trackedSensors: Int { entries.count }
    var openBuckets: Int { entries.reduce(0) { $0 + ($1.open == nil ? 0 : 1) } }

    /// Folds one reading; appends to `rows` every row that became complete. (Appended, not passed
    /// to a closure: the writer's closure kept the store alive across each call, retaining and
    /// releasing it three times a reading.)
    mutating func add(_ r: consuming Reading, into rows: inout [StoredRow]) {
        statistics.readings += 1
        // One hash lookup for a known sensor: its entry is then changed in place (it is the only
        // reference to its arrays, so they are not copied).
        let slot: Int
        if let known = index[r.address] {
            slot = known
        } else {
            if entries.count >= max(1, configuration.maxSensors) { evictLeastRecentlyHeard(into: &rows) }
            slot = entries.count
            entries.append(
                Entry(
                    address: r.address, lastHeardMicros: r.timeMicros, lastAcceptedMicros: .min, lastAccepted: [],
                    lastAcceptedOrder: nil))
            index.set(r.address, slot)
        }
        let start = bucketStart(r.timeMicros)
        // The decoder's list moved out of the reading, which is dropped after this: the entry and
        // the row then share it at the cost of one retain, where each use through `r` retains it.
        var measurements: [Measurement] = []
        swap(&measurements, &r.measurements)
        let accepted = Self.fold(
            r, measurements, start: start, into: &entries[slot], intervalMicros: intervalMicros,
            duplicateWindowMicros: configuration.duplicateWindowMicros, statistics: &statistics, into: &rows)
        if accepted { radioTimeMicros = max(radioTimeMicros, r.timeMicros) }
    }

    /// `add` for the sensor's entry `e`: drops a duplicate (returns `false`), or folds `r` (whose
    /// measurements are `measurements`) into the open bucket, appending to `rows` a row that
    /// became complete. Appended in place: an optional row handed back is destroyed through the
    /// generic `Optional` value witness.
    private static func fold(
        _ r: Reading, _ measurements: consuming [Measurement], start: Int64, into e: inout Entry,
        intervalMicros: Int64, duplicateWindowMicros: Int64, statistics: inout DownsampleStatistics,
        into rows: inout [StoredRow]
    ) -> Bool {
        let order = e.order(of: measurements)
        let sinceLast = r.timeMicros &- e.lastAcceptedMicros
        if e.lastAcceptedMicros != .min, sinceLast >= 0, sinceLast < duplicateWindowMicros,
            StoredRow.sameMeasurements(e.lastAccepted, e.lastAcceptedOrder, measurements, order)
        {
            statistics.duplicates += 1
            return false
        }
        // Shared with the row (one retain).
        e.lastAccepted = copy measurements
        e.lastAcceptedOrder = order
        e.lastAcceptedMicros = r.timeMicros
        e.lastHeardMicros = max(e.lastHeardMicros, r.timeMicros)
        if intervalMicros == 0 {
            statistics.rows += 1
            rows.append(row(r, measurements, order, start, &e))
            return true
        }
        // The common case, each sensor heard once per bucket: the open bucket (one reading) is
        // moved out as the row and the new one moved in; nothing is copied or allocated.
        guard let openStart = e.open?.timeMicros else {
            e.setOpen(row(r, measurements, order, start, &e))
            return true
        }
        if start > openStart {
            finish(&e, &statistics, &rows)
            e.setOpen(row(r, measurements, order, start, &e))
        } else if start < openStart {
            statistics.outOfOrder += 1
            statistics.rows += 1
            rows.append(row(r, measurements, order, start, &e))
        } else {
            fold(&e, r, measurements, order)
        }
        return true
    }

    /// Appends to `rows` the row of every open bucket that ended at or before `max(radio time,
    /// wallMicros)`.
    mutating func closeDue(wallMicros: Int64? = nil, into rows: inout [StoredRow]) {
        guard intervalMicros > 0 else { return }
        let now = max(radioTimeMicros, wallMicros ?? .min)
        // A corrupt capture can stamp any time: `now` near Int64.min must not trap (nothing is due).
        let (latestDue, overflowed) = now.subtractingReportingOverflow(intervalMicros)
        guard !overflowed else { return }
        for i in entries.indices {
            if entries[i].openStartMicros <= latestDue { Self.finish(&entries[i], &statistics, &rows) }
        }
    }

    /// Appends to `rows` the row of every open bucket (shutdown, end of a replay).
    mutating func closeAll(into rows: inout [StoredRow]) {
        for i in entries.indices { Self.finish(&entries[i], &statistics, &rows) }
    }

    private func bucketStart(_ t: Int64) -> Int64 {
        guard intervalMicros > 0 else { return t }
        // Floor division that cannot overflow, as a corrupt capture can stamp any time: a bucket
        // whose start lies before Int64.min starts at the time itself.
        let q = t / intervalMicros
        let floor = t % intervalMicros < 0 ? q - 1 : q
        let (start, overflowed) = floor.multipliedReportingOverflow(by: intervalMicros)
        return overflowed ? t : start
    }

    /// Drops the least recently heard eighth of the tracked sensors, emitting their open buckets.
    private mutating func evictLeastRecentlyHeard(into rows: inout [StoredRow]) {
        let n = max(1, entries.count / 8)
        // Sort (time, address) pairs read in place, and move each victim out: sorting, iterating
        // or looking up whole entries copies every bucket with its row and references, for every
        // new sensor when a crowd of strangers keeps the table full. Ties go by address, so the victims do not depend on the
        // entries' order.
        var heard: [(time: Int64, address: BDAddress)] = []
        heard.reserveCapacity(entries.count)
        for i in entries.indices { heard.append((entries[i].lastHeardMicros, entries[i].address)) }
        heard.sort { $0.time != $1.time ? $0.time < $1.time : $0.address < $1.address }
        for (_, key) in heard.prefix(n) {
            if var e = remove(key) { Self.finish(&e, &statistics, &rows) }
            statistics.evictedSensors += 1
        }
    }

    /// Takes `address`'s entry out, moving the last entry into its place (keeps `index` exact).
    private mutating func remove(_ address: BDAddress) -> Entry? {
        guard let i = index.remove(address) else { return nil }
        let last = entries.count - 1
        if i != last {
            entries.swapAt(i, last)
            index.set(entries[i].address, i)
        }
        return entries.removeLast()
    }

    /// A row of the one reading `r` (its measurements `measurements`), sharing `e`'s facts when
    /// they still hold.
    @inline(__always)
    private static func row(
        _ r: Reading, _ measurements: consuming [Measurement], _ order: [Int]?, _ start: Int64, _ e: inout Entry
    ) -> StoredRow {
        let name = r.name
        let facts: RowFacts
        // Bound from `e.facts` when they hold (the one retain the row needs); assigning a result
        // back to `e.facts` retained it twice and released the old reference.
        if let known = e.facts,
            known.says(addressType: r.addressType, decoderID: r.decoderID, model: r.model, name: name, keyOrder: order)
        {
            facts = known
        } else {
            facts = RowFacts(
                addressType: r.addressType, decoderID: r.decoderID, model: r.model, name: name, keyOrder: order)
            e.facts = facts
        }
        return StoredRow(
            address: r.address, facts: facts, rssi: r.rssi, timeMicros: start, firstHeardMicros: r.timeMicros,
            lastHeardMicros: r.timeMicros, samples: 1, listed: measurements)
    }

    /// Folds `r` (its measurements `measurements`, their key order `order`) into `e`'s open
    /// bucket, which it falls in.
    private static func fold(_ e: inout Entry, _ r: Reading, _ measurements: [Measurement], _ order: [Int]?) {
        guard var row = e.takeOpen() else { return }  // unreachable: the caller checked
        // Moved out, not copied: the sole owner of its arrays while folding.
        defer { e.setOpen(row) }
        if e.accumulators.isEmpty {
            e.accumulators.reserveCapacity(row.count)
            for k in 0..<row.count {
                let m = row.measurement(k)
                e.accumulators.append(Accumulator(quantity: m.quantity, sum: m.value, count: 1, last: m.value))
            }
        }
        row.samples += 1
        row.firstHeardMicros = min(row.firstHeardMicros, r.timeMicros)
        if r.timeMicros >= row.lastHeardMicros {
            row.lastHeardMicros = r.timeMicros
            // The row's own listing keeps its key order; the facts are the latest reading's.
            row.facts = row.facts.with(
                addressType: r.addressType, decoderID: r.decoderID, model: r.model, name: r.name ?? row.name,
                keyOrder: row.keyOrder)
            if let rssi = r.rssi { row.rssi = rssi }
        }
        for k in 0..<(order?.count ?? measurements.count) {
            let m = measurements[order?[k] ?? k]
            if let i = e.accumulators.firstIndex(where: { $0.quantity == m.quantity }) {
                e.accumulators[i].sum += m.value
                e.accumulators[i].count += 1
                e.accumulators[i].last = m.value
            } else {
                e.accumulators.append(Accumulator(quantity: m.quantity, sum: m.value, count: 1, last: m.value))
                e.appended = true
            }
        }
    }

    /// Closes `e`'s open bucket, if one is open, and appends its row to `rows`.
    private static func finish(
        _ e: inout Entry, _ statistics: inout DownsampleStatistics, _ rows: inout [StoredRow]
    ) {
        guard let row = e.takeOpen() else { return }
        statistics.rows += 1
        // One reading: its measurements are the row's (see `Entry.accumulators`). Appended as
        // moved out: binding a local copy first made the optimizer copy the row and destroy the
        // local (two reference counts a row).
        if e.accumulators.isEmpty { return rows.append(row) }
        // Accumulators were opened in key order (`fold` reads in key order), and a quantity first
        // seen later is appended: sort only in that rare case (String comparisons).
        var ms = e.accumulators.map { a in
            Measurement(a.quantity, a.quantity.isInteger ? a.last : (a.count == 1 ? a.sum : a.sum / Double(a.count)))
        }
        if e.appended { ms.sort { $0.quantity < $1.quantity } }
        e.accumulators.removeAll(keepingCapacity: true)
        e.appended = false
        let f = row.facts
        let folded =
            e.foldedFacts?.with(
                addressType: f.addressType, decoderID: f.decoderID, model: f.model, name: f.name, keyOrder: nil)
            ?? RowFacts(addressType: f.addressType, decoderID: f.decoderID, model: f.model, name: f.name, keyOrder: nil)
        e.foldedFacts = folded
        rows.append(
            StoredRow(
                address: row.address, facts: folded, rssi: row.rssi, timeMicros: row.timeMicros,
                firstHeardMicros: row.firstHeardMicros, lastHeardMicros: row.lastHeardMicros, samples: row.samples,
                listed: ms))
    }
}

/// A row's advertisements as invariant 3 of SensorStore.swift sees them: how many were folded,
/// and the receive times of the first and the last. A row for a stored (time, sensor) is told
/// from a replay of the stored one by these alone (`meets`).
struct StoredSpan: Equatable {
    var samples: Int64
    var first: Int64
    var last: Int64

    enum Meeting: Equatable {
        /// The incoming row's advertisements were all heard before or after the stored ones':
        /// none of them is stored, so the two rows become one.
        case merge
        /// The spans overlap and the incoming row folded more advertisements (a longer capture
        /// of the same ones, the full capture after a truncated one): it takes the stored row's place.
        case replace
        /// The spans overlap and the incoming row folded no more: the same advertisements again,
        /// or some of them (a replay). Nothing changes.
        case replay
    }

    /// What becomes of `incoming`, a row for the (time, sensor) of this stored one. Never counts
    /// an advertisement twice: a merge joins rows whose spans are disjoint, and every other
    /// outcome keeps one of the two folds whole.
    func meets(_ incoming: StoredSpan) -> Meeting {
        if incoming.first > last || incoming.last < first { return .merge }
        return incoming.samples > samples ? .replace : .replay
    }

    /// The span of the merged row.
    func merged(with o: StoredSpan) -> StoredSpan {
        StoredSpan(samples: samples + o.samples, first: Swift.min(first, o.first), last: Swift.max(last, o.last))
    }

    /// The measurements of two merged rows (`a` of span `sa`, `b` of `sb`, each in ascending id):
    /// a quantity in both is, for ids in `lastWins` (whole numbers: the folding rule keeps the
    /// last value), the value of the row heard last, and otherwise the mean of both weighted by
    /// their samples (a quantity missing from some of a row's advertisements is weighted by all
    /// of them: rows do not count samples per quantity). A quantity in one row keeps its value.
    static func merge(
        _ a: [(id: Int64, value: Double)], _ sa: StoredSpan, _ b: [(id: Int64, value: Double)], _ sb: StoredSpan,
        lastWins: Set<Int64>
    ) -> [(id: Int64, value: Double)] {
        var out: [(id: Int64, value: Double)] = []
        out.reserveCapacity(Swift.max(a.count, b.count))
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i].id < b[j].id) {
                out.append(a[i])
                i += 1
            } else if i == a.count || b[j].id < a[i].id {
                out.append(b[j])
                j += 1
            } else {
                let id = a[i].id
                let value: Double
                if lastWins.contains(id) {
                    value = sb.last > sa.last ? b[j].value : a[i].value
                } else {
                    let na = Double(sa.samples)
                    let nb = Double(sb.samples)
                    value = (a[i].value * na + b[j].value * nb) / (na + nb)
                }
                out.append((id, value))
                i += 1
                j += 1
            }
        }
        return out
    }
}
