import Testing

@testable import SensorReport

struct BucketPlanTests {
    static let day0: Int64 = CivilDate.days(year: 2026, month: 11, day: 23) * 24  // an hour number

    func hour(_ h: Int64, _ v: Double, rows: Int64 = 60, spread: Double = 1) -> HourValue {
        HourValue(hour: h, rows: rows, sum: v * Double(rows), min: v - spread, max: v + spread)
    }

    @Test func hourlyBucketsAreTheHoursThemselves() {
        let plan = BucketPlan(hours: Self.day0..<(Self.day0 + 24), widthHours: 1, local: .fixed(offsetSeconds: 3600))
        #expect(plan.count == 24)
        let b = plan.fold([hour(Self.day0 + 5, 20)])
        #expect(b[5].value?.mean == 20)
        #expect(b.filter { $0.value != nil }.count == 1)
        #expect(b[5].midMicros == (Self.day0 + 5) * 3_600_000_000 + 1_800_000_000)
    }

    @Test func dailyBucketsStartAtLocalMidnightAndFoldTheirHours() {
        // UTC+2: local midnight is 22:00 UTC the day before.
        let plan = BucketPlan(hours: Self.day0..<(Self.day0 + 72), widthHours: 24, local: .fixed(offsetSeconds: 7200))
        let d = Self.day0
        let expected: [Int64] = [d, d + 22, d + 46, d + 70, d + 72]
        #expect(plan.edges == expected)
        let buckets = plan.fold([hour(Self.day0 + 22, 10, rows: 30), hour(Self.day0 + 30, 20, rows: 10, spread: 5),
                                 hour(Self.day0 + 45, 14, rows: 20)])
        let v = buckets[1].value!
        #expect(v.rows == 60)
        let expectedMean: Double = (10.0 * 30 + 20.0 * 10 + 14.0 * 20) / 60
        #expect(v.mean == expectedMean)
        #expect(v.min == 9 && v.max == 25)
        #expect(buckets[0].value == nil && buckets[2].value == nil)
    }

    @Test func aDayOverADSTChangeHoldsTwentyThreeOrTwentyFiveHours() {
        let change: Int64 = CivilDate.days(year: 2026, month: 10, day: 25) * 24 + 1  // 01:00 UTC, back to +1 h
        let local = LocalTime { $0 >= change * 3600 ? 3600 : 7200 }
        let plan = BucketPlan(hours: (change - 48)..<(change + 48), widthHours: 24, local: local)
        let lengths = zip(plan.edges.dropFirst(), plan.edges).map { $0 - $1 }
        #expect(lengths.contains(25))
        #expect(lengths.dropFirst().dropLast().allSatisfy { $0 == 24 || $0 == 25 })
    }

    @Test func hoursOutsideTheWindowAndEmptyHoursAreIgnored() {
        let plan = BucketPlan(hours: Self.day0..<(Self.day0 + 6), widthHours: 2, local: .utc)
        let b = plan.fold([hour(Self.day0 - 1, 99), hour(Self.day0 + 1, 5), hour(Self.day0 + 6, 99),
                           HourValue(hour: Self.day0 + 3, rows: 0, sum: 0, min: 0, max: 0)])
        #expect(b.map { $0.value?.mean } == [5, nil, nil])
    }
}

struct SegmentsTests {
    func bucket(_ i: Int64, _ v: Double?) -> Bucket {
        Bucket(startHour: i, endHour: i + 1, value: v.map { BucketValue(HourValue(hour: i, rows: 1, sum: $0, min: $0, max: $0)) })
    }

    @Test func emptyBucketsSplitTheRuns() {
        let b = [bucket(0, 1), bucket(1, 2), bucket(2, nil), bucket(3, nil), bucket(4, 3), bucket(5, nil), bucket(6, 4), bucket(7, 5)]
        #expect(Segments.split(b).map { $0.map(\.startHour) } == [[0, 1], [4], [6, 7]])
    }

    @Test func leadingAndTrailingGapsMakeNoEmptyRuns() {
        #expect(Segments.split([bucket(0, nil), bucket(1, 1), bucket(2, nil)]).map { $0.count } == [1])
        #expect(Segments.split([bucket(0, nil)]).isEmpty)
        #expect(Segments.split([]).isEmpty)
    }
}
