/// The charts a report draws for each quantity of each sensor: one bucket plan per range, all
/// ending at the same hour. Made once per report; the offsets of local time are looked up here.
public struct ChartSet: Sendable {
    public let plans: [(range: ChartRange, plan: BucketPlan)]
    /// Every hour some chart covers: what to read from the store.
    public let hours: Range<Int64>
    /// Every plan's buckets numbered in one sequence (plan `i` from `bucketOffsets[i]`), and for
    /// each hour of `hours` and each plan the number of the bucket it falls in (-1: outside that
    /// plan), by (hour − `hours.lowerBound`) · plans + plan. A series adds an hour with a few array
    /// reads: a year of 50 sensors is a million and more hours to add.
    let bucketOffsets: [Int]
    let bucketCount: Int
    let slots: [Int32]

    /// - Parameters:
    ///   - endHour: the hour after the last one drawn (hours since the epoch).
    ///   - sinceHour: no chart starts before it; a range entirely before it is left out.
    public init(endHour: Int64, sinceHour: Int64? = nil, ranges: [ChartRange] = ChartRange.allCases, local: LocalTime) {
        var plans: [(range: ChartRange, plan: BucketPlan)] = []
        for r in ranges {
            guard let window = r.hourWindow(endHour: endHour, sinceHour: sinceHour) else { continue }
            plans.append((r, BucketPlan(hours: window, widthHours: r.bucketHours, local: local)))
        }
        self.plans = plans
        let start = plans.map(\.plan.hours.lowerBound).min() ?? endHour
        hours = start..<endHour
        var offsets: [Int] = []
        var total = 0
        for p in plans {
            offsets.append(total)
            total += p.plan.count
        }
        bucketOffsets = offsets
        bucketCount = total
        var slots = [Int32](repeating: -1, count: hours.count * plans.count)
        for (i, p) in plans.enumerated() {
            for h in p.plan.hours {
                slots[Int(h - start) * plans.count + i] = Int32(offsets[i]) + p.plan.bucketOfHour[Int(h - p.plan.hours.lowerBound)]
            }
        }
        self.slots = slots
    }
}

/// One quantity of one sensor, gathered hour by hour into every plan's buckets of a `ChartSet`
/// (the store streams rollups; nothing is kept per hour), with its latest value for the titles.
public struct QuantitySeries: Sendable {
    /// Every plan's buckets in the set's one numbering; `rows == 0` is an empty bucket.
    private var values: [BucketValue]
    public private(set) var latest: Double?
    public private(set) var latestMicros: Int64 = .min
    /// The earliest hour with data, `nil` before the first.
    public private(set) var firstHour: Int64?

    public init(_ set: ChartSet) { values = [BucketValue](repeating: .empty, count: set.bucketCount) }

    /// Adds an hour, whose latest row had `last` at `lastMicros`; an hour outside the set's hours,
    /// or without rows, is ignored.
    public mutating func add(_ h: HourValue, last: Double, lastMicros: Int64, in set: ChartSet) {
        guard h.rows > 0, set.hours.contains(h.hour) else { return }
        let n = set.plans.count
        let base = Int(h.hour - set.hours.lowerBound) * n
        for p in 0..<n {
            let b = Int(set.slots[base + p])
            if b >= 0 { values[b].add(h) }
        }
        if h.hour < firstHour ?? .max { firstHour = h.hour }
        if lastMicros >= latestMicros {
            latestMicros = lastMicros
            latest = last
        }
    }

    /// The buckets of the set's plan `i`.
    public func buckets(_ i: Int, in set: ChartSet) -> [Bucket] {
        let plan = set.plans[i].plan
        let offset = set.bucketOffsets[i]
        return (0..<plan.count).map { k in
            let v = values[offset + k]
            return Bucket(startHour: plan.edges[k], endHour: plan.edges[k + 1], value: v.rows > 0 ? v : nil)
        }
    }

    /// The chart of the set's plan `i`, with data or not.
    public func chart(
        _ i: Int, in set: ChartSet, display: QuantityDisplay, sensorName: String?, sensorAddress: String
    ) -> Chart {
        let p = set.plans[i]
        return Chart(
            range: p.range, display: display, startMicros: p.plan.hours.lowerBound * 3_600_000_000,
            endMicros: p.plan.hours.upperBound * 3_600_000_000, buckets: buckets(i, in: set), latest: latest,
            sensorName: sensorName, sensorAddress: sensorAddress)
    }

    /// The charts worth drawing, in the set's order of ranges (shortest first): those with data,
    /// except a longer one whose data all lies inside the last chart kept (a week of data makes a
    /// day and a week chart; a month and a year chart would show the same week, squeezed).
    public func charts(
        in set: ChartSet, display: QuantityDisplay, sensorName: String?, sensorAddress: String
    ) -> [Chart] {
        var out: [Chart] = []
        var keptFrom = Int64.max
        for i in set.plans.indices {
            let c = chart(i, in: set, display: display, sensorName: sensorName, sensorAddress: sensorAddress)
            guard c.hasData, let first = firstHour, first < keptFrom else { continue }
            out.append(c)
            keptFrom = set.plans[i].plan.hours.lowerBound
        }
        return out
    }
}
