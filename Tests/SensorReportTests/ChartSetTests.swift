import Testing

@testable import SensorReport

struct ChartSetTests {
    static let end: Int64 = CivilDate.days(year: 2026, month: 11, day: 30) * 24

    @Test func everyRangeEndsAtTheEndHourAndTheSetReadsTheLongest() {
        let set = ChartSet(endHour: Self.end, local: .utc)
        #expect(set.plans.map(\.range) == ChartRange.allCases)
        #expect(set.plans.allSatisfy { $0.plan.hours.upperBound == Self.end })
        #expect(set.hours == (Self.end - 365 * 24)..<Self.end)
        #expect(set.plans.map(\.plan.count) == [24, 168, 360, 365])
    }

    @Test func sinceClipsTheWindowsAndDropsThoseBeforeIt() {
        let set = ChartSet(endHour: Self.end, sinceHour: Self.end - 30, ranges: [.day, .week], local: .utc)
        #expect(set.plans.map(\.plan.hours) == [(Self.end - 24)..<Self.end, (Self.end - 30)..<Self.end])
        #expect(ChartSet(endHour: Self.end, sinceHour: Self.end, local: .utc).plans.isEmpty)
    }

    @Test func hoursStreamedInGiveTheSameBucketsAsAFoldAndTheLatestValue() {
        let set = ChartSet(endHour: Self.end, ranges: [.week, .year], local: .fixed(offsetSeconds: 3600))
        var series = QuantitySeries(set)
        var hours: [HourValue] = []
        for k in stride(from: Int64(0), to: 400 * 24, by: 5) {
            let h = HourValue(hour: Self.end - 1 - k, rows: 4, sum: Double(k % 17), min: -1, max: Double(k % 23))
            hours.append(h)
            series.add(h, last: Double(k), lastMicros: (Self.end - k) * 3_600_000_000 - 1, in: set)
        }
        for (i, p) in set.plans.enumerated() { #expect(series.buckets(i, in: set) == p.plan.fold(hours)) }
        #expect(series.latest == 0)
        let charts = series.charts(in: set, display: QuantityDisplay(key: "temperature_c"), sensorName: nil, sensorAddress: "x")
        #expect(charts.map(\.range) == [.week, .year])
        // The oldest hour inside the year: k = 8755, the largest multiple of 5 below 365 · 24.
        #expect(series.firstHour == Self.end - 1 - 8755)
    }

    @Test func aLongerChartIsLeftOutWhenItsDataAllLiesInTheShorterOne() {
        let set = ChartSet(endHour: Self.end, local: .utc)
        var week = QuantitySeries(set)
        for h in (Self.end - 168)..<Self.end { week.add(HourValue(hour: h, rows: 1, sum: 1, min: 1, max: 1), last: 1, lastMicros: 0, in: set) }
        let display = QuantityDisplay(key: "temperature_c")
        #expect(week.charts(in: set, display: display, sensorName: nil, sensorAddress: "x").map(\.range) == [.day, .week])
        var longer = week
        longer.add(HourValue(hour: Self.end - 169, rows: 1, sum: 1, min: 1, max: 1), last: 1, lastMicros: 0, in: set)
        #expect(longer.charts(in: set, display: display, sensorName: nil, sensorAddress: "x").map(\.range) == [.day, .week, .month])
    }

    @Test func aRangeWithoutDataGivesNoChart() {
        let set = ChartSet(endHour: Self.end, local: .utc)
        var series = QuantitySeries(set)
        // One hour ten days ago: in the month and year charts only, and the year would show nothing more.
        series.add(HourValue(hour: Self.end - 240, rows: 1, sum: 1, min: 1, max: 1), last: 1, lastMicros: 0, in: set)
        let charts = series.charts(in: set, display: QuantityDisplay(key: "humidity_pct"), sensorName: nil, sensorAddress: "x")
        #expect(charts.map(\.range) == [.month])
    }
}
