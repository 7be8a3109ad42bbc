import Testing

@testable import SensorReport

struct LinearScaleTests {
    @Test func mapsTheDomainOntoTheRangeIncludingAnInvertedOne() {
        let y = LinearScale(domain: (-10, 30), range: (176, 30))
        #expect(y(-10) == 176)
        #expect(y(30) == 30)
        #expect(y(10) == 103)
    }

    @Test func aZeroWidthDomainMapsToTheMiddle() {
        #expect(LinearScale(domain: (5, 5), range: (0, 100))(5) == 50)
    }
}

struct NiceTicksTests {
    @Test(arguments: [
        (lo: 0.0, hi: 100.0, step: 25.0, lower: 0.0, upper: 100.0, decimals: 0),
        (lo: -3.7, hi: 12.2, step: 5.0, lower: -5.0, upper: 15.0, decimals: 0),
        (lo: 20.1, hi: 21.9, step: 0.5, lower: 20.0, upper: 22.0, decimals: 1),
        (lo: 2.91, hi: 2.97, step: 0.02, lower: 2.9, upper: 2.98, decimals: 2),
        (lo: 980, hi: 1030, step: 20.0, lower: 980, upper: 1040, decimals: 0),
    ])
    func stepsAreRoundAndTheAxisCoversTheValues(
        c: (lo: Double, hi: Double, step: Double, lower: Double, upper: Double, decimals: Int)
    ) {
        let t = NiceTicks(min: c.lo, max: c.hi, target: 5)
        #expect(abs(t.step - c.step) < 1e-12)
        #expect(abs(t.lower - c.lower) < 1e-9)
        #expect(abs(t.upper - c.upper) < 1e-9)
        #expect(t.decimals == c.decimals)
        #expect(t.lower <= c.lo && t.upper >= c.hi)
    }

    @Test func ticksAreWholeMultiplesOfTheStepWithoutDrift() {
        let t = NiceTicks(min: 0.1, max: 0.9, target: 5)
        let values = t.values
        #expect(values.first == t.lower)
        for v in values { #expect(ReportText.fixed(v, decimals: t.decimals) == ReportText.fixed(v + 1e-12, decimals: t.decimals)) }
        #expect(values.map { ReportText.fixed($0, decimals: t.decimals) } == ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"])
    }

    @Test func aFlatSeriesSitsMidAxisAndBadInputGivesAUsableAxis() {
        let flat = NiceTicks(min: 21, max: 21)
        #expect(flat.lower < 21 && flat.upper > 21)
        let bad = NiceTicks(min: .nan, max: .infinity)
        #expect(bad.lower < bad.upper && bad.values.count >= 2)
    }

    @Test func aboutTheTargetCountOfTicks() {
        for (lo, hi) in [(0.0, 1.0), (-40.0, 85.0), (12.3, 12.9), (0.0, 65535.0), (-0.004, 0.003)] {
            let n = NiceTicks(min: lo, max: hi, target: 5).values.count
            #expect((3...7).contains(n), "\(lo)…\(hi): \(n) ticks")
        }
    }
}

struct TimeTicksTests {
    /// 2026-11-23 is a Monday.
    static let monday: Int64 = CivilDate.days(year: 2026, month: 11, day: 23) * 86_400_000_000

    @Test func aDayHasATickEveryThreeLocalHours() {
        let berlin = LocalTime.fixed(offsetSeconds: 3600)
        let from = Self.monday + 30 * 60_000_000  // 00:30 UTC = 01:30 local
        let ticks = TimeTicks.ticks(from: from, to: from + 86_400_000_000, range: .day, local: berlin)
        #expect(ticks.map(\.label) == ["03:00", "06:00", "09:00", "12:00", "15:00", "18:00", "21:00", "00:00"])
        // 03:00 local is 02:00 UTC.
        #expect(ticks[0].micros == Self.monday + 2 * 3_600_000_000)
    }

    @Test func aWeekIsLabelledAtLocalMidnights() {
        let minus5 = LocalTime.fixed(offsetSeconds: -5 * 3600)
        let ticks = TimeTicks.ticks(from: Self.monday, to: Self.monday + 7 * 86_400_000_000, range: .week, local: minus5)
        // UTC midnight Monday is 19:00 Sunday in UTC−5: the first local midnight is Monday 05:00 UTC.
        #expect(ticks.first == TimeTick(micros: Self.monday + 5 * 3_600_000_000, label: "Mon 23"))
        #expect(ticks.map(\.label) == ["Mon 23", "Tue 24", "Wed 25", "Thu 26", "Fri 27", "Sat 28", "Sun 29"])
    }

    @Test func aMonthIsLabelledOnMondaysAndAYearOnTheFirstOfEachMonth() {
        let month = TimeTicks.ticks(
            from: Self.monday - 29 * 86_400_000_000, to: Self.monday + 86_400_000_000, range: .month, local: .utc)
        #expect(month.map(\.label) == ["26 Oct", "2 Nov", "9 Nov", "16 Nov", "23 Nov"])
        let year = TimeTicks.ticks(
            from: Self.monday - 364 * 86_400_000_000, to: Self.monday + 86_400_000_000, range: .year, local: .utc)
        #expect(year.map(\.label) == ["Dec", "2026", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov"])
    }

    @Test func aDSTChangeKeepsTicksOnLocalWallTimes() {
        // A zone at +1 h that moves to +2 h at 2026-03-29T01:00Z (as Central Europe does).
        let change: Int64 = CivilDate.days(year: 2026, month: 3, day: 29) * 86400 + 3600
        let cet = LocalTime { $0 >= change ? 7200 : 3600 }
        let from = (change - 3 * 3600) * 1_000_000  // 23:00 CET
        let ticks = TimeTicks.ticks(from: from, to: from + 86_400_000_000, range: .day, local: cet)
        #expect(ticks.map(\.label).prefix(4) == ["00:00", "03:00", "06:00", "09:00"])
        // 00:00 CET is 23:00 UTC; 03:00 CEST, an hour of wall time later than 02:00 CET, is 01:00 UTC.
        #expect(ticks[0].micros == (change - 2 * 3600) * 1_000_000)
        #expect(ticks[1].micros == change * 1_000_000)
        #expect(ticks[2].micros == (change + 3 * 3600) * 1_000_000)
    }
}
