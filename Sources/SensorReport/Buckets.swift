/// One hour of one quantity of one sensor, as the store's hourly rollup keeps it.
public struct HourValue: Sendable, Equatable {
    /// Hours since the epoch (UTC): the hour `[hour·3600 s, (hour+1)·3600 s)`.
    public var hour: Int64
    /// Stored rows carrying the quantity, their sum, min and max.
    public var rows: Int64
    public var sum: Double
    public var min: Double
    public var max: Double

    public init(hour: Int64, rows: Int64, sum: Double, min: Double, max: Double) {
        self.hour = hour
        self.rows = rows
        self.sum = sum
        self.min = min
        self.max = max
    }
}

/// What a bucket's hours hold together: the mean is over stored rows, each weighing the same
/// (as `summary`'s mean).
public struct BucketValue: Sendable, Equatable {
    public var rows: Int64
    public var sum: Double
    public var min: Double
    public var max: Double
    public var mean: Double { sum / Double(rows) }

    /// Nothing yet: `add` makes it the first hour's values.
    static let empty = BucketValue(rows: 0, sum: 0, min: .infinity, max: -.infinity)

    init(rows: Int64, sum: Double, min: Double, max: Double) {
        self.rows = rows
        self.sum = sum
        self.min = min
        self.max = max
    }

    init(_ h: HourValue) {
        rows = h.rows
        sum = h.sum
        min = h.min
        max = h.max
    }

    mutating func add(_ h: HourValue) {
        rows += h.rows
        sum += h.sum
        min = Swift.min(min, h.min)
        max = Swift.max(max, h.max)
    }
}

/// A bucket of a chart: its time span and what was stored in it (`nil`: nothing, a gap).
public struct Bucket: Sendable, Equatable {
    /// `[startHour, endHour)`, hours since the epoch.
    public var startHour: Int64
    public var endHour: Int64
    public var value: BucketValue?

    /// Where the bucket's point is drawn: the middle of its span, µs since the epoch.
    public var midMicros: Int64 { (startHour + endHour) * 1_800_000_000 }
}

/// How the hours of a window fall into buckets of `widthHours` aligned to local time (a bucket
/// of 24 h is a local day). Made once per chart range and shared by every sensor and quantity,
/// so the local offset is looked up once an hour of the window, not once an hour of every series.
///
/// Bucket edges are the hours where `⌊(local time) / width⌋` changes. So a day bucket over a DST
/// change holds 23 or 25 hours; where the offset is not whole hours (UTC+5:30), an hour belongs to
/// the bucket its start falls in, and edges sit up to 45 minutes off the local boundary.
public struct BucketPlan: Sendable {
    public let hours: Range<Int64>
    public let widthHours: Int64
    /// Bucket `i` is `[edges[i], edges[i+1])`; ascending, from `hours.lowerBound` to its upper bound.
    public let edges: [Int64]
    /// Bucket index of each hour of the window, by hour − `hours.lowerBound`.
    let bucketOfHour: [Int32]

    public init(hours: Range<Int64>, widthHours: Int64, local: LocalTime) {
        precondition(widthHours > 0 && widthHours <= 24, "bucket widths are 1 to 24 hours")
        self.hours = hours
        self.widthHours = widthHours
        var edges: [Int64] = []
        var index: [Int32] = []
        index.reserveCapacity(hours.count)
        let width = widthHours * 3600
        var lastKey = Int64.min
        for h in hours {
            let s = h * 3600
            let key = CivilDate.floorDiv(s + local.offset(atSeconds: s), width)
            if key != lastKey || edges.isEmpty {
                edges.append(h)
                lastKey = key
            }
            index.append(Int32(edges.count - 1))
        }
        edges.append(hours.upperBound)
        self.edges = edges
        bucketOfHour = index
    }

    public var count: Int { edges.count - 1 }

    /// The plan's buckets, all empty.
    public func emptyBuckets() -> [Bucket] {
        (0..<count).map { Bucket(startHour: edges[$0], endHour: edges[$0 + 1], value: nil) }
    }

    /// Adds one hour to the bucket it falls in; an hour outside the window, or without rows, is ignored.
    public func add(_ h: HourValue, to buckets: inout [Bucket]) {
        guard hours.contains(h.hour), h.rows > 0 else { return }
        let i = Int(bucketOfHour[Int(h.hour - hours.lowerBound)])
        if buckets[i].value == nil { buckets[i].value = BucketValue(h) } else { buckets[i].value!.add(h) }
    }

    /// The plan's buckets filled from `series` (hours outside the window are ignored). An empty
    /// bucket has `value == nil`.
    public func fold(_ series: [HourValue]) -> [Bucket] {
        var out = emptyBuckets()
        for h in series { add(h, to: &out) }
        return out
    }
}

/// Runs of buckets with data between gaps: a chart draws each run as its own line and band, so
/// nothing is drawn across a bucket where no data was stored.
public enum Segments {
    /// The buckets with a value, split wherever one without lies between them; in time order.
    public static func split(_ buckets: [Bucket]) -> [[Bucket]] {
        var runs: [[Bucket]] = []
        var current: [Bucket] = []
        for b in buckets {
            if b.value != nil {
                current.append(b)
            } else if !current.isEmpty {
                runs.append(current)
                current = []
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }
}
