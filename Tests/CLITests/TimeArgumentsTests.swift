import Testing

@testable import blesensor_log

/// `--since`, `--until` and `--day` text: ISO 8601 as people write it, and nothing that names a
/// day or an offset that does not exist.
@Suite struct TimeArgumentsTests {
    static func utc(_ y: Int64, _ mo: Int64, _ d: Int64, _ h: Int64 = 0, _ mi: Int64 = 0) -> Int64 {
        (Timestamp.days(year: y, month: mo, day: d) * 86400 + h * 3600 + mi * 60) * 1_000_000
    }

    @Test(arguments: [
        "2026-02-29", "2026-02-30", "2026-04-31", "2026-11-31T00:00Z", "2100-02-29", "2026-06-31T12:00+02:00",
        "2026-11-25T00:00+24:00", "2026-11-25T00:00+14:60", "2026-11-25T00:00+99:00", "2026-11-25T00:00-2400",
    ])
    func aDayOrAnOffsetThatDoesNotExistIsNoTime(_ text: String) {
        // These were folded into the next month (2026-02-30 read as March 2) or shifted by days.
        #expect(TimeArguments.iso8601(text) == nil)
    }

    @Test func theLastDayOfEachMonthAndTheWidestOffsetsAreTimes() {
        #expect(TimeArguments.iso8601("2028-02-29T00:00Z") == Self.utc(2028, 2, 29))
        #expect(TimeArguments.iso8601("2000-02-29T00:00Z") == Self.utc(2000, 2, 29))
        #expect(TimeArguments.iso8601("2026-04-30T00:00Z") == Self.utc(2026, 4, 30))
        #expect(TimeArguments.iso8601("2026-12-31T23:59Z") == Self.utc(2026, 12, 31, 23, 59))
        #expect(TimeArguments.iso8601("2026-11-25T00:00+14:00") == Self.utc(2026, 11, 24, 10))
        #expect(TimeArguments.iso8601("2026-11-25T00:00-12:00") == Self.utc(2026, 11, 25, 12))
        #expect(TimeArguments.iso8601("2026-11-25T00:00+2359") == Self.utc(2026, 11, 24, 0, 1))
        #expect(TimeArguments.iso8601("9999-12-31T23:59Z") == Self.utc(9999, 12, 31, 23, 59))
    }
}
