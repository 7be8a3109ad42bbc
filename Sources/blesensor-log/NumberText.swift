#if canImport(Glibc)
import Glibc
#endif

/// Numbers as export writes them: whole values without a fraction when the double is integral
/// (battery 87, not 87.0, as `JSON.number` does for integer quantities), others in Swift's
/// shortest round-trip form (`Double.description`) of the value at 15 significant digits
/// (`significant`); non-finite values as nothing (an empty cell).
///
/// Written as bytes straight into the output. Most stored values are decimals with a few places
/// (21.35 °C), and for those the text comes from an integer instead of `description`'s general
/// algorithm, with the same result: if `m / 10^k` (k = 1…15, `m` below 10^15) rounds to the double
/// `v`, then the digits of `m` with the point k places from the right are `v`'s shortest
/// round-trip text. Any decimal of at most 15 significant digits round-trips through a double
/// (DBL_DIG), so two different such decimals can never round to the same double: no shorter (or
/// other equally short) text names `v`. The smallest such k gives `m` without trailing zeros, and
/// between 10^-4 and 10^11 `description` prints plain decimals. Everything else (1/3, 1e-05,
/// 1.2e+20) takes `description` itself. `NumberTextTests` compares both over millions of values.
enum NumberText {
    /// The longest text `write` produces: `-1.7976931348623157e+308` is 24 bytes.
    static let maxBytes = 32

    private static let powers: (Double, Double, Double, Double) = (10, 100, 1000, 10000)

    /// Appends `v`'s text to `out` (at most `maxBytes` bytes).
    static func write(_ v: Double, to out: inout OutputSpan<UInt8>) {
        guard v.isFinite else { return }
        let a = abs(v)
        let negative = v < 0
        if a < 1e15 {
            // Integer conversions rather than `rounded()`, which is a libm call here; exact below
            // 10^15, and each candidate is checked anyway. Signed ones: a single instruction each
            // way (an unsigned one tests the top bit), and every value converted is below 10^15.
            let whole = Int64(a)
            if Double(whole) == a {
                // Whole: -0.0 prints as 0, as `Int64(-0.0)` does.
                if whole == 0 { return out.append(UInt8(ascii: "0")) }
                return writeFixed(UInt64(whole), decimals: 0, negative: negative, to: &out)
            }
            if a < 1e11 {
                // a · 10^k < 10^15: m has at most 15 digits (see above).
                for k in 1...4 {
                    let scale: Double
                    switch k {
                    case 1: scale = powers.0
                    case 2: scale = powers.1
                    case 3: scale = powers.2
                    default: scale = powers.3
                    }
                    let m = Int64(a * scale + 0.5)
                    if Double(m) / scale == a {
                        return writeFixed(UInt64(m), decimals: k, negative: negative, to: &out)
                    }
                }
                // Longer fractions (a decoder's exact binary fractions: 55.9964599609375): the
                // same argument, for any k while m stays below 10^15, where `description` still
                // prints a plain decimal (from 10^-4 on). 10^k is exact in a double up to 10^22.
                if a >= 1e-4 {
                    var scale = powers.3
                    for k in 5...15 {
                        scale *= 10
                        guard a * scale < 1e15 else { break }
                        let m = Int64(a * scale + 0.5)
                        if Double(m) / scale == a {
                            return writeFixed(UInt64(m), decimals: k, negative: negative, to: &out)
                        }
                    }
                }
                // From 0.1 on, a decimal of at most 15 significant digits has at most 15 places,
                // so the loops above found any: `v`'s shortest text has more, and it is rounded
                // (`significant`) without first working out its description.
                if a >= 0.1 { return writeFifteenDigits(a, negative: negative, to: &out) }
            }
        }
        // `significant(v).description`, without working out the description twice for the
        // values it leaves as they are (15 significant digits or fewer).
        var text = v.description
        if significantDigits(text) > 15 {
            if a >= 1e-4, a < 1e15, let rounded = roundedText(v) { return out.append(utf8: rounded) }
            text = significant(v).description
        }
        out.append(utf8: text)
    }

    /// `roundedText` for a positive `a` from 0.1 to 10^11 (exclusive), worked out in integers
    /// rather than by `vsnprintf`: `%.15g` prints the exact value `a · 10^k` (k = 14 − the
    /// decimal exponent of `a`, so 15 digits before the point) rounded to an integer, ties to
    /// even, with the point k places from the right and trailing zeros dropped. `a` is its 53-bit
    /// significand times 2^e with e from −56 to −16 here, and 10^k (k ≤ 15) is below 2^50, so
    /// the product is exact in 128 bits and the shift keeps at least 16 of them as the remainder.
    /// A `-` first if `negative`.
    private static func writeFifteenDigits(_ a: Double, negative: Bool, to out: inout OutputSpan<UInt8>) {
        var exponent = -1  // 10^exponent ≤ a < 10^(exponent + 1)
        var above: Double = 1
        while a >= above {
            exponent += 1
            above *= 10
        }
        var decimals = 14 - exponent
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let significand = a.significandBitPattern | 1 << 52
        let shift = 52 - Int(a.exponent)
        let product = significand.multipliedFullWidth(by: scale)
        var m = product.high &<< UInt64(64 - shift) | product.low &>> UInt64(shift)
        let remainder = product.low & (1 &<< UInt64(shift) - 1)
        let half: UInt64 = 1 &<< UInt64(shift - 1)
        if remainder > half || (remainder == half && m & 1 == 1) { m += 1 }
        // Rounded up to the next power of ten: one digit fewer after the point, as `%g` does.
        if m == 1_000_000_000_000_000 {
            m /= 10
            decimals -= 1
        }
        while decimals > 0, m % 10 == 0 {
            m /= 10
            decimals -= 1
        }
        writeFixed(m, decimals: decimals, negative: negative, to: &out)
        if decimals == 0 { out.append(literal: ".0") }
    }

    /// `significant(v).description` for `v` from 10^-4 to 10^15, from `%.15g`: that text is the
    /// 15-digit decimal `significant` rounds to, its trailing zeros dropped, and (the type's
    /// comment) the only text of at most 15 digits naming the rounded double, so its shortest;
    /// `description` prints it plainly in this range, with `.0` when whole. `nil` when `%g`
    /// chose an exponent (then `significant` decides).
    private static func roundedText(_ v: Double) -> String? {
        guard let text = printed15g(v), !text.utf8.contains(UInt8(ascii: "e")) else { return nil }
        return text.utf8.contains(UInt8(ascii: ".")) ? text : text + ".0"
    }

    /// `v` as C's `%.15g` prints it (rounded to 15 significant digits, ties to even); `nil` if
    /// `vsnprintf` fails.
    private static func printed15g(_ v: Double) -> String? {
        let text = String(unsafeUninitializedCapacity: 40) { buffer in
            // Unsafe (libc): vsnprintf writes at most buffer.count bytes, NUL included; kept only if all fit.
            let n = buffer.withMemoryRebound(to: CChar.self) { c in
                withVaList([v]) { vsnprintf(c.baseAddress, c.count, "%.15g", $0) }
            }
            return n > 0 && Int(n) < buffer.count ? Int(n) : 0
        }
        return text.isEmpty ? nil : text
    }

    /// `v` rounded to 15 significant digits (DBL_DIG), the precision every decimal keeps through
    /// a double: a value whose shortest text needs 16 or 17 digits (a mean, 45.67000000000001;
    /// 0.1 + 0.2) carries rounding noise there, and is printed as the nearest 15-digit decimal
    /// instead. A 15-digit decimal has exactly one double (see the type's comment), so the
    /// result's `description` is that decimal, trailing zeros dropped; values whose shortest
    /// text is 15 digits or fewer come back unchanged.
    static func significant(_ v: Double) -> Double {
        guard v.isFinite, significantDigits(v.description) > 15, let text = printed15g(v) else { return v }
        // At the edge of the range the rounding can exceed it: keep the value then.
        guard let r = Double(text), r.isFinite else { return v }
        return r
    }

    /// Significant digits in a number's text: its mantissa's digits, without leading zeros.
    static func significantDigits(_ text: String) -> Int {
        var count = 0
        for c in text.utf8 {
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { continue }
            if count > 0 || c != UInt8(ascii: "0") { count += 1 }
        }
        return count
    }

    /// Appends `n` with a point `decimals` digits from the right (and at least one digit before
    /// it: `5, 2` → `0.05`), and a `-` first if `negative`; no point when `decimals` is 0. The
    /// text is made from the right in `text[q...]` (for the 15 decimals or fewer asked for here,
    /// 21 bytes at most: 20 digits and the point), its digits two at a time (half the
    /// divisions), then appended.
    static func writeFixed(_ n: UInt64, decimals: Int, negative: Bool = false, to out: inout OutputSpan<UInt8>) {
        if negative { out.append(UInt8(ascii: "-")) }
        var text = InlineArray<24, UInt8>(repeating: 0)
        var q = text.count
        var n = n
        if decimals > 0 {
            // The fraction's digits, its leading zeros included (`05` of 0.05).
            var left = decimals
            while left >= 2 {
                putPair(n % 100, before: &q, in: &text)
                n /= 100
                left -= 2
            }
            if left == 1 {
                q -= 1
                text[q] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: n % 10)
                n /= 10
            }
            q -= 1
            text[q] = UInt8(ascii: ".")
        }
        while n >= 100 {
            putPair(n % 100, before: &q, in: &text)
            n /= 100
        }
        if n >= 10 {
            putPair(n, before: &q, in: &text)
        } else {
            q -= 1
            text[q] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: n)
        }
        for i in q..<text.count { out.append(text[i]) }
    }

    /// The two digits of `v` (below 100) written just before `q`, which moves back over them.
    @inline(__always)
    private static func putPair(_ v: UInt64, before q: inout Int, in text: inout InlineArray<24, UInt8>) {
        q -= 2
        text[q] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v / 10)
        text[q + 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
    }

    /// `write` as a String (tests, and callers off the hot path).
    static func text(_ v: Double) -> String {
        String(decoding: [UInt8](capacity: maxBytes) { out in write(v, to: &out) }, as: UTF8.self)
    }
}
