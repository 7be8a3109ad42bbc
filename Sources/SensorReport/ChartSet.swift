/// The charts a report draws for each quantity of each sensor: one bucket plan per range, all
/// ending at the same hour. Made once per report; the offsets of local time are looked up here.
public struct ChartSet: Sendable {
    public let plans: [(range: ChartRange, plan: BucketPlan)]
    /// Every hour some chart covers: what to read from the store.
    public let hours: Range<Int64>

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
    }
}

/// One quantity of one sensor, gathered hour by hour into every plan's buckets of a `ChartSet`
/// (the store streams rollups; nothing is kept per hour), with its latest value for the titles.
public struct QuantitySeries: Sendable {
    public private(set) var buckets: [[Bucket]]
    public private(set) var latest: Double?
    public private(set) var latestMicros: Int64 = .min
    /// The earliest hour with data, `nil` before the first.
    public private(set) var firstHour: Int64?

    public init(_ set: ChartSet) { buckets = set.plans.map { $0.plan.emptyBuckets() } }

    /// Adds an hour, whose latest row had `last` at `lastMicros`.
    public mutating func add(_ h: HourValue, last: Double, lastMicros: Int64, in set: ChartSet) {
        for i in set.plans.indices { set.plans[i].plan.add(h, to: &buckets[i]) }
        if h.rows > 0, set.hours.contains(h.hour), h.hour < firstHour ?? .max { firstHour = h.hour }
        if h.rows > 0, lastMicros >= latestMicros {
            latestMicros = lastMicros
            latest = last
        }
    }

    /// The chart of the set's plan `i`, with data or not.
    public func chart(
        _ i: Int, in set: ChartSet, display: QuantityDisplay, sensorName: String?, sensorAddress: String
    ) -> Chart {
        let p = set.plans[i]
        return Chart(
            range: p.range, display: display, startMicros: p.plan.hours.lowerBound * 3_600_000_000,
            endMicros: p.plan.hours.upperBound * 3_600_000_000, buckets: buckets[i], latest: latest,
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
