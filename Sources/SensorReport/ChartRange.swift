/// The spans a report charts, each ending at the report's end hour.
public enum ChartRange: String, CaseIterable, Sendable {
    case day, week, month, year

    /// Whole hours the chart spans.
    public var hours: Int64 {
        switch self {
        case .day: 24
        case .week: 7 * 24
        case .month: 30 * 24
        case .year: 365 * 24
        }
    }

    public var caption: String {
        switch self {
        case .day: "last 24 hours"
        case .week: "last 7 days"
        case .month: "last 30 days"
        case .year: "last 365 days"
        }
    }

    /// The most points (buckets) a chart of about 500 px draws: more than one a pixel or two
    /// only thickens the line.
    public static let maxPoints: Int64 = 400

    /// Bucket widths a chart may use, in hours: each divides a day, so buckets line up with
    /// local midnights.
    public static let bucketLadder: [Int64] = [1, 2, 3, 4, 6, 8, 12, 24]

    /// The narrowest bucket of the ladder that keeps the chart within `maxPoints`: a day and a
    /// week get hourly buckets (the rollups' own), a month two-hourly, a year daily.
    public var bucketHours: Int64 { Self.bucketHours(spanHours: hours, maxPoints: Self.maxPoints) }

    public static func bucketHours(spanHours: Int64, maxPoints: Int64) -> Int64 {
        for w in bucketLadder where (spanHours + w - 1) / w <= maxPoints { return w }
        return bucketLadder.last!
    }

    /// The hours `[start, end)` this chart covers for a report ending at `endHour` (exclusive),
    /// not before `sinceHour`; `nil` when nothing is left.
    public func hourWindow(endHour: Int64, sinceHour: Int64? = nil) -> Range<Int64>? {
        let start = max(endHour - hours, sinceHour ?? .min)
        return start < endHour ? start..<endHour : nil
    }
}
