import Testing

@testable import blesensor_log

/// `TimeArguments.iso8601`: a time that names no real instant is refused, never moved to another
/// (it reads `--since`, `--until` and the rows a hub takes from the broker).
@Suite struct TimeArgumentsTests {
    static func utc(_ y: Int64, _ mo: Int64, _ d: Int64, _ h: Int64 = 0, _ mi: Int64 = 0) -> Int64 {
        (Timestamp.days(year: y, month: mo, day: d) * 86400 + h * 3600 + mi * 60) * 1_000_000
    }

    @Test func aRealDateAndOffsetAreRead() {
        #expect(TimeArguments.iso8601("2024-02-29T12:00:00Z") == 1_709_208_000_000_000)
        #expect(TimeArguments.iso8601("2026-12-31T23:59:59.5Z") == 1_798_761_599_500_000)
        #expect(TimeArguments.iso8601("2026-11-30T03:10:42+14:00") == TimeArguments.iso8601("2026-11-29T13:10:42Z"))
        #expect(TimeArguments.iso8601("2026-11-30T03:10:42-23:59") == TimeArguments.iso8601("2026-12-01T03:09:42Z"))
    }

    /// Days past the month's end (not rolled over into the next month) and offsets beyond ±23:59.
    @Test(arguments: [
        "2026-02-29T00:00:00Z", "2026-02-30T10:00:00Z", "2026-02-31T10:00:00Z", "2026-04-31T00:00:00Z",
        "2026-06-31", "2026-09-31T00:00Z", "2026-11-31T00:00:00Z", "1900-02-29T00:00:00Z",
        "2100-02-29", "2026-06-31T12:00+02:00",
        "2026-12-03T10:23:00-99:99", "2026-12-03T10:23:00+24:00", "2026-12-03T10:23:00+01:60", "2026-12-03T10:23:00+0160",
        "2026-11-25T00:00-2400",
    ])
    func aTimeThatNamesNoInstantIsRefused(_ text: String) {
        #expect(TimeArguments.iso8601(text) == nil, "\(text)")
    }

    @Test func leapDaysMonthEndsAndTheWidestOffsetsAreTimes() {
        #expect(TimeArguments.iso8601("2028-02-29T00:00Z") == Self.utc(2028, 2, 29))
        #expect(TimeArguments.iso8601("2000-02-29T00:00Z") == Self.utc(2000, 2, 29))
        #expect(TimeArguments.iso8601("2026-04-30T00:00Z") == Self.utc(2026, 4, 30))
        #expect(TimeArguments.iso8601("2026-11-25T00:00-12:00") == Self.utc(2026, 11, 25, 12))
        #expect(TimeArguments.iso8601("2026-11-25T00:00+2359") == Self.utc(2026, 11, 24, 0, 1))
        #expect(TimeArguments.iso8601("9999-12-31T23:59Z") == Self.utc(9999, 12, 31, 23, 59))
    }

    /// What a hub takes from a logger: the whole time and its offset, nothing left to its own zone.
    @Test func thePublishedFormIsAWholeTimeWithItsOffset() {
        #expect(TimeArguments.iso8601("2026-11-23T00:00:00.5+01:00", form: .published) == 1_795_388_400_500_000)
        #expect(TimeArguments.iso8601("2026-11-23T00:00:00Z", form: .published) == 1_795_392_000_000_000)
        for notPublished in ["2026-11-23T00:00Z", "2026-11-23 00:00:00Z", "2026-11-23T00:00:00", "2026-11-23T00:00:00+0100", "2026-11-23"] {
            #expect(TimeArguments.iso8601(notPublished, form: .published) == nil, "\(notPublished)")
            #expect(TimeArguments.iso8601(notPublished) != nil, "typed: \(notPublished)")
        }
    }
}
