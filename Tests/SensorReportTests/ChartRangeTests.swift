import Testing

@testable import SensorReport

struct ChartRangeTests {
    @Test func bucketSelectionKeepsEachChartWithinItsPointBudget() {
        #expect(ChartRange.day.bucketHours == 1)
        #expect(ChartRange.week.bucketHours == 1)
        #expect(ChartRange.month.bucketHours == 2)
        #expect(ChartRange.year.bucketHours == 24)
        for r in ChartRange.allCases { #expect(r.hours / r.bucketHours <= ChartRange.maxPoints) }
    }

    @Test func theNarrowestBucketThatFitsIsChosen() {
        #expect(ChartRange.bucketHours(spanHours: 400, maxPoints: 400) == 1)
        #expect(ChartRange.bucketHours(spanHours: 401, maxPoints: 400) == 2)
        #expect(ChartRange.bucketHours(spanHours: 1201, maxPoints: 400) == 4)
        #expect(ChartRange.bucketHours(spanHours: 100_000, maxPoints: 400) == 24)
    }

    @Test func theWindowEndsAtTheEndHourAndStartsNoEarlierThanSince() {
        #expect(ChartRange.week.hourWindow(endHour: 1000) == 832..<1000)
        #expect(ChartRange.week.hourWindow(endHour: 1000, sinceHour: 900) == 900..<1000)
        #expect(ChartRange.week.hourWindow(endHour: 1000, sinceHour: 1000) == nil)
    }
}
