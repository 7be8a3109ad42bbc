import CSQLite

/// The stored rows stamped while the clock was not known to be right (`clock_unsynced`,
/// ClockTrust.swift), for `doctor` and `export` to say so.
///
/// A row is flagged when the receive times of its advertisements,
/// `time_us + first_after_us … time_us + last_after_us`, meet a span of `clock_unsynced`: it
/// holds at least one reading stamped by such a clock. `unsynchronisedPredicate` is that rule,
/// the one place it is written.
public struct UnsynchronisedRows: Sendable, Equatable {
    /// Spans of `clock_unsynced` (separate runs of flagged readings).
    public var spans: Int
    /// Rows flagged, and the earliest and latest of their times (µs, bucket starts).
    public var rows: Int
    public var firstMicros: Int64?
    public var lastMicros: Int64?

    public init(spans: Int = 0, rows: Int = 0, firstMicros: Int64? = nil, lastMicros: Int64? = nil) {
        self.spans = spans
        self.rows = rows
        self.firstMicros = firstMicros
        self.lastMicros = lastMicros
    }

    /// Counts one more flagged row at `time`.
    public mutating func add(rowAt time: Int64) {
        rows += 1
        firstMicros = min(firstMicros ?? time, time)
        lastMicros = max(lastMicros ?? time, time)
    }
}

extension StoreReader {
    /// SQL true for a `readings` row flagged by `clock_unsynced` (see `UnsynchronisedRows`). A
    /// row stored before migration 2 has no receive times (NULL): its bucket start stands in.
    /// - Parameter row: the name (or alias) of the `readings` row it is asked of.
    static func unsynchronisedPredicate(row: String = "readings") -> String {
        "EXISTS (SELECT 1 FROM clock_unsynced c WHERE c.from_us <= \(row).time_us + coalesce(\(row).last_after_us, 0) "
            + "AND c.to_us >= \(row).time_us + coalesce(\(row).first_after_us, 0))"
    }

    /// A row's receive times lie within a day of its bucket start: the longest `--interval`.
    static let longestBucketMicros: Int64 = 86_400 * 1_000_000

    /// Whether `clock_unsynced` has any span (in the current snapshot, if one is open).
    func hasUnsynchronisedSpans() throws(StoreError) -> Bool {
        try connection.scalarInt("SELECT EXISTS (SELECT 1 FROM clock_unsynced)") == 1
    }

    /// The flagged rows of the whole store: how many, from when to when, and the spans.
    ///
    /// Each merged span is looked up through the primary key over the buckets that can hold a
    /// receive time within it, windows that do not overlap, so every row is tested once and
    /// the rows between spans (a year of trusted ones) are not read at all.
    public func unsynchronisedRows() throws(StoreError) -> UnsynchronisedRows {
        try reopenIfWriterCame()
        try connection.exec("BEGIN", "begin reading \(path)")
        defer { _ = connection.rollbackIfNeeded() }
        let spans = try unsynchronisedSpans()
        var out = UnsynchronisedRows(spans: spans.count)
        let s = try connection.prepare(
            "SELECT count(*), min(time_us), max(time_us) FROM readings WHERE time_us > ?1 AND time_us <= ?2 AND "
                + Self.unsynchronisedPredicate())
        var covered = Int64.min  // bucket starts up to here are counted
        for span in Self.merged(spans) {
            let low = max(covered, span.lowerBound.subtractingReportingOverflow(Self.longestBucketMicros).partialValue)
            guard low < span.upperBound else { continue }
            s.reset()
            try s.bind(1, low)
            try s.bind(2, span.upperBound)
            guard try s.step() else { continue }
            let n = s.int(0)
            if n > 0 {
                out.rows += n
                out.firstMicros = min(out.firstMicros ?? s.int64(1), s.int64(1))
                out.lastMicros = max(out.lastMicros ?? s.int64(2), s.int64(2))
            }
            covered = span.upperBound
        }
        s.reset()
        return out
    }

    /// `spans` sorted and with overlapping ones joined (boots that never synced each stamp from
    /// the same stand-in time on, so their spans can overlap).
    static func merged(_ spans: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
        var out: [ClosedRange<Int64>] = []
        for span in spans.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, span.lowerBound <= last.upperBound {
                out[out.count - 1] = last.lowerBound...max(last.upperBound, span.upperBound)
            } else {
                out.append(span)
            }
        }
        return out
    }
}
