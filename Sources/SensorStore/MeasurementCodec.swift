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
    static let powers: [Double] = [1, 10, 100, 1000, 10000]

    /// Appends the encoding of `(quantityID, value)` pairs, which must be in ascending id order
    /// (for tests and tools; the writer uses `writeVarint`/`writeValue` in place, the one encoder).
    static func encode(_ items: [(id: Int64, value: Double)], into out: inout [UInt8]) {
        guard !items.isEmpty else { return }
        out.append(addingCapacity: items.count * maxItemBytes) { (o: inout OutputSpan<UInt8>) in write(items, to: &o) }
    }

    /// The kind (0–4) and scaled integer that represent `value` exactly, `nil` if only the
    /// double does (see the table above).
    @inline(__always)
    static func scaled(_ value: Double) -> (kind: UInt8, scaled: Int64)? {
        guard value.isFinite else { return nil }
        for k in 0..<powers.count {
            let x = value * powers[k]
            // |x| < 2^53: the nearest integer is exact as an Int64 and as a double, so the check
            // below is exact. Rounded by a truncating conversion (one instruction, where
            // `rounded()` is a libm call): only the check decides, so ties may go either way.
            guard abs(x) < 9_007_199_254_740_992 else { return nil }
            let i = Int64(x < 0 ? x - 0.5 : x + 0.5)
            if Double(i) / powers[k] == value { return (UInt8(k), i) }
        }
        return nil
    }

    @inline(__always)
    static func zigzag(_ i: Int64) -> UInt64 { UInt64(bitPattern: (i << 1) ^ (i >> 63)) }

    /// Room one measurement may need: a 10-byte varint id, the kind, and a 10-byte varint (or an
    /// 8-byte double).
    static let maxItemBytes = 21

    /// Appends the encoding of `items` (ascending id) to `out`, which has room for `maxItemBytes`
    /// per item.
    static func write<C: Collection<(id: Int64, value: Double)>>(_ items: C, to out: inout OutputSpan<UInt8>) {
        for (id, value) in items {
            writeVarint(UInt64(bitPattern: id), to: &out)
            writeValue(value, to: &out)
        }
    }

    /// Appends one value's kind byte and payload (see the table above) to `out`, which has room
    /// for 11 bytes.
    @inline(__always)
    static func writeValue(_ value: Double, to out: inout OutputSpan<UInt8>) {
        if let (kind, i) = scaled(value) {
            out.append(kind)
            writeVarint(zigzag(i), to: &out)
            return
        }
        out.append(doubleKind)
        let bits = value.bitPattern
        for b in 0..<8 { out.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(b)))) }
    }

    /// Appends `v0` as LEB128 (at most 10 bytes) to `out`.
    @inline(__always)
    static func writeVarint(_ v0: UInt64, to out: inout OutputSpan<UInt8>) {
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
    static func decode(_ bytes: Span<UInt8>, _ body: (Int64, Double) -> Void) -> Bool {
        var c = CodecCursor()
        while !c.isAtEnd(bytes) {
            guard let id = c.varint(bytes), let value = c.value(bytes) else { return false }
            body(Int64(bitPattern: id), value)
        }
        return true
    }

    /// Convenience for tests and small callers.
    static func decode(_ bytes: [UInt8]) -> [(id: Int64, value: Double)]? {
        var out: [(id: Int64, value: Double)] = []
        let ok = decode(bytes.span) { out.append(($0, $1)) }
        return ok ? out : nil
    }
}

extension Statement {
    /// `MeasurementCodec.decode` of column `c` of the current row (a `readings.data` blob).
    @discardableResult @inline(__always)
    func decodeMeasurements(_ c: Int32, _ body: (Int64, Double) -> Void) -> Bool {
        withBlob(c) { MeasurementCodec.decode($0, body) }
    }
}

/// Reads varints and codec values of `bytes`, from `offset` on, in place (SQLite's column memory,
/// with no copy per row: not SensorDecode's `ByteReader` over an `ArraySlice`). `nil` when short.
/// Every call of one cursor is given the same bytes.
struct CodecCursor {
    var offset = 0

    func isAtEnd(_ bytes: Span<UInt8>) -> Bool { offset >= bytes.count }

    mutating func varint(_ bytes: Span<UInt8>) -> UInt64? {
        var v: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            let b = bytes[offset]
            offset += 1
            guard shift < 64 else { return nil }
            v |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return v }
            shift += 7
        }
        return nil
    }

    mutating func value(_ bytes: Span<UInt8>) -> Double? {
        guard offset < bytes.count else { return nil }
        let kind = bytes[offset]
        offset += 1
        if kind == MeasurementCodec.doubleKind {
            guard bytes.count - offset >= 8 else { return nil }
            var bits: UInt64 = 0
            for b in 0..<8 { bits |= UInt64(bytes[offset + b]) << (8 * UInt64(b)) }
            offset += 8
            return Double(bitPattern: bits)
        }
        guard Int(kind) < MeasurementCodec.powers.count, let z = varint(bytes) else { return nil }
        let s = Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1)))
        return Double(s) / MeasurementCodec.powers[Int(kind)]
    }
}
