/// The compact encoding of one stored row's measurements (`readings.data`).
///
/// A row holds every quantity of one sensor at one time, so the quantity set stays open-ended
/// (`temperature_probe_3_c` needs no schema change) while a row stays small. Layout, repeated once
/// per measurement, in ascending quantity id:
///
/// | field       | size    | meaning                                                           |
/// |-------------|---------|-------------------------------------------------------------------|
/// | quantity id | varint  | `quantities.id` (LEB128, 1 byte below 128)                        |
/// | kind        | 1       | 0–4: value = zigzag varint / 10^kind; 5: IEEE-754 double, 8 LE    |
/// | value       | varint  | kinds 0–4: zigzag LEB128 of the scaled integer                    |
///
/// Decoders produce values from scaled integers (0.01 °C, 0.1 %), so most values take 2–4 bytes
/// and round-trip exactly: `kind k` is chosen only when `Double(scaled) / 10^k == value` holds
/// bit for bit. Means and other values fall back to the 8-byte double, also exact.
///
/// Sample: `temperature_c` (id 1) = 21.37, `battery_pct` (id 3) = 87 →
/// `01 02 b2 21  03 00 ae 01` (21.37 = 2137 / 10², zigzag 4274; 87 zigzag 174).
enum MeasurementCodec {
    static let doubleKind: UInt8 = 5
    private static let powers: [Double] = [1, 10, 100, 1000, 10000]

    /// Appends the encoding of `(quantityID, value)` pairs, which must be in ascending id order.
    static func encode(_ items: [(id: Int64, value: Double)], into out: inout [UInt8]) {
        for (id, value) in items {
            appendVarint(UInt64(id), &out)
            var kind: UInt8 = doubleKind
            if value.isFinite {
                for k in 0..<powers.count {
                    let scaled = (value * powers[k]).rounded()
                    // |scaled| < 2^53: exact as an integer and as a double, so the check is exact.
                    guard abs(scaled) < 9_007_199_254_740_992 else { break }
                    if scaled / powers[k] == value {
                        kind = UInt8(k)
                        out.append(kind)
                        let i = Int64(scaled)
                        appendVarint(UInt64(bitPattern: (i << 1) ^ (i >> 63)), &out)
                        break
                    }
                }
            }
            if kind == doubleKind {
                out.append(kind)
                let bits = value.bitPattern
                for b in 0..<8 { out.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(b)))) }
            }
        }
    }

    private static func appendVarint(_ v0: UInt64, _ out: inout [UInt8]) {
        var v = v0
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// Calls `body(quantityID, value)` for each encoded measurement. Returns `false` (after the
    /// good prefix) if the bytes are truncated or malformed, which only a damaged file produces.
    @discardableResult
    static func decode(_ bytes: UnsafeRawBufferPointer, _ body: (Int64, Double) -> Void) -> Bool {
        var i = 0
        let n = bytes.count
        func varint() -> UInt64? {
            var v: UInt64 = 0
            var shift: UInt64 = 0
            while i < n {
                let b = bytes[i]
                i += 1
                guard shift < 64 else { return nil }
                v |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return v }
                shift += 7
            }
            return nil
        }
        while i < n {
            guard let id = varint(), i < n else { return false }
            let kind = bytes[i]
            i += 1
            let value: Double
            if kind == doubleKind {
                guard n - i >= 8 else { return false }
                var bits: UInt64 = 0
                for b in 0..<8 { bits |= UInt64(bytes[i + b]) << (8 * UInt64(b)) }
                i += 8
                value = Double(bitPattern: bits)
            } else if Int(kind) < powers.count {
                guard let z = varint() else { return false }
                let s = Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1)))
                value = Double(s) / powers[Int(kind)]
            } else {
                return false
            }
            body(Int64(bitPattern: id), value)
        }
        return true
    }

    /// Convenience for tests and small callers.
    static func decode(_ bytes: [UInt8]) -> [(id: Int64, value: Double)]? {
        var out: [(id: Int64, value: Double)] = []
        let ok = bytes.withUnsafeBytes { decode($0) { out.append(($0, $1)) } }
        return ok ? out : nil
    }
}
