import Testing

@testable import SensorReport

struct LocalTimeTests {
    @Test func civilDatesRoundTripAndKnowTheirWeekday() {
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            let (y, m, d) = CivilDate.civil(fromDays: days)
            #expect(CivilDate.days(year: y, month: m, day: d) == days)
        }
        #expect(CivilDate.weekday(days: 0) == 3)  // 1970-01-01, a Thursday
        #expect(CivilDate.weekday(days: CivilDate.days(year: 2026, month: 12, day: 1)) == 1)  // a Tuesday
        #expect(CivilDate.weekday(days: -1) == 2)
    }

    @Test func floorDivisionRoundsTowardsMinusInfinity() {
        #expect(CivilDate.floorDiv(-1, 86400) == -1)
        #expect(CivilDate.floorDiv(86399, 86400) == 0)
        #expect(CivilDate.floorDiv(-86400, 86400) == -1)
    }

    @Test func aWallTimeResolvesToItsInstantAcrossADSTChange() {
        let change: Int64 = 1_774_746_000  // 2026-03-29T01:00Z
        let cet = LocalTime { $0 >= change ? 7200 : 3600 }
        #expect(cet.utcSeconds(localSeconds: change + 3600 - 7200 + 7200) == change)  // 03:00 CEST
        #expect(cet.utcSeconds(localSeconds: change - 3600 + 3600) == change - 3600)  // 01:00 CET
        #expect(cet.localSeconds(micros: change * 1_000_000) == change + 7200)
    }
}
