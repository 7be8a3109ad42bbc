import Foundation
import TestSupport
import Testing

@testable import blesensor_log

/// Export's number text against its definition: whole values below 10^15 as integers, other
/// finite values as `Double.description` of the value rounded to 15 significant digits (C's
/// `%.15g`), non-finite ones as nothing. The fast path for decimals must never differ, so it is
/// compared over every short decimal of a wide range, the doubles next to them (which must not
/// pass for the decimal), and random doubles.
@Suite struct NumberTextTests {
    /// The definition, written the slow way.
    static func expected(_ v: Double) -> String {
        guard v.isFinite else { return "" }
        if v == v.rounded(.towardZero), abs(v) < 1e15 { return String(Int64(v)) }
        let rounded = Double(String(format: "%.15g", v))!
        return (rounded.isFinite ? rounded : v).description  // beyond the range: unrounded
    }

    static func check(_ v: Double, _ mismatches: inout [String]) {
        let got = NumberText.text(v)
        if got != expected(v), mismatches.count < 10 {
            mismatches.append("\(v.bitPattern): got \(got), description \(expected(v))")
        }
    }

    @Test func everyDecimalWithUpToFourPlacesBelowTwoHundredThousandUnits() {
        var mismatches: [String] = []
        for k in 1...4 {
            let scale = [1.0, 10, 100, 1000, 10000][k]
            for m in -200_000...200_000 { Self.check(Double(m) / scale, &mismatches) }
        }
        #expect(mismatches == [])
    }

    @Test func theDoublesNextToShortDecimalsKeepAllTheirDigits() {
        var mismatches: [String] = []
        for k in 1...4 {
            let scale = [1.0, 10, 100, 1000, 10000][k]
            for m in stride(from: -20_000, through: 20_000, by: 7) {
                let v = Double(m) / scale
                Self.check(v.nextUp, &mismatches)
                Self.check(v.nextDown, &mismatches)
            }
        }
        #expect(mismatches == [])
    }

    /// Where the fast path hands over to `description`: 10^11, 10^15, 2^53, and below 10^-4.
    @Test func theEdgesOfTheFastPath() {
        var mismatches: [String] = []
        for base in [1e11, 1e14, 1e15, 9_007_199_254_740_992, 1e16, 1e-4, 1e-5] {
            var v = base
            for _ in 0..<2000 {
                v = v.nextDown
                Self.check(v, &mismatches)
                Self.check(-v, &mismatches)
            }
            for k in 0...6 {
                let scale = [1.0, 10, 100, 1000, 10000, 100_000, 1_000_000][k]
                for d in -300...300 { Self.check(base + Double(d) / scale, &mismatches) }
            }
        }
        #expect(mismatches == [])
    }

    @Test func randomDoublesAndRandomDecimals() {
        var rng = SplitMix64(state: 0x4E55_4D42_4552)
        var mismatches: [String] = []
        for _ in 0..<1_000_000 {
            // Any bit pattern: mostly huge, tiny, NaN and infinite values.
            Self.check(Double(bitPattern: rng.next()), &mismatches)
            // Decimals of up to 17 digits with 0 to 8 places: short ones take the fast path,
            // long ones must not.
            let digits = Int(rng.next() % 17) + 1
            var m: Int64 = 1
            for _ in 0..<digits { m *= 10 }
            let scaled = Int64(rng.next() % UInt64(m)) * (rng.next() % 2 == 0 ? 1 : -1)
            Self.check(Double(scaled) / [1.0, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8][Int(rng.next() % 9)], &mismatches)
            // Results of arithmetic, as means are.
            Self.check(Double(Int(rng.next() % 100_000)) / Double(Int(rng.next() % 999) + 1), &mismatches)
        }
        #expect(mismatches == [])
    }

    @Test func namedValues() {
        #expect(NumberText.text(21.35) == "21.35")
        #expect(NumberText.text(-0.5) == "-0.5")
        #expect(NumberText.text(0.05) == "0.05")
        #expect(NumberText.text(0.0001) == "0.0001")
        #expect(NumberText.text(87) == "87")
        #expect(NumberText.text(-0.0) == "0")
        // Rounding noise in the 16th and 17th digits is not printed (issue 23).
        #expect(NumberText.text(0.1 + 0.2) == "0.3")
        #expect(NumberText.text((45.67 * 6) / 6 + 45.67 * 0) == "45.67")
        #expect(NumberText.text([45.67, 45.67, 45.67, 45.67, 45.67, 45.67].reduce(0, +) / 6) == "45.67")
        #expect(NumberText.text(1.0 / 3) == "0.333333333333333")
        #expect(NumberText.text(2.0 / 3) == "0.666666666666667")
        #expect(NumberText.text(0.1.nextUp) == "0.1")
        #expect(NumberText.text(123456.789012345) == "123456.789012345")
        #expect(NumberText.text(1e-5) == "1e-05")
        #expect(NumberText.text(1.2e20) == "1.2e+20")
        #expect(NumberText.text(-.greatestFiniteMagnitude) == "-1.7976931348623157e+308")
        #expect(NumberText.text(1.2345678901234567e300) == "1.23456789012346e+300")
        #expect(NumberText.text(.nan) == "")
        #expect(NumberText.text(-.infinity) == "")
    }
}

/// The export loop's time stamps (`TimeFormatter.text`) are the text of `format` for every time
/// a file can hold (a damaged one included), in UTC and in local time.
@Suite struct TimeFormatterTextTests {
    @Test(arguments: [false, true])
    func extremeTimesMatchTheSlowText(local: Bool) {
        let times: [Int64] = [.min, .min + 1, -62_135_596_800_000_001, -1, 0, 1, 1_700_000_000_123_456, .max - 1, .max]
        var formatter = TimeFormatter(local: local)
        var slow = TimeFormatter(local: local)
        for t in times {
            #expect(String(decoding: formatter.text(t), as: UTF8.self) == slow.format(t))
        }
    }
}
