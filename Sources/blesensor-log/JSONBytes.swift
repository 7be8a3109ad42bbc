#if canImport(Glibc)
    import Glibc
#endif
import SensorDecode

/// The JSON writer's bytes: the one place that spells readings, strings and numbers as JSON
/// (`JSON.reading`, `JSON.string` and `JSON.number` return its text). Appends UTF-8 to a byte
/// array that a caller can reuse line after line (`decode` writes it to its output as it is),
/// rather than concatenating `String`s, whose every append checks, grows and copies.
struct JSONBytes {
    var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// Text written as it is (our own: keys, decoder ids, punctuation).
    mutating func literal(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func raw(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A JSON string literal. Escapes quotes, backslashes and every control character (and
    /// U+2028/U+2029, which end a line in JavaScript), so a stranger's device name can never
    /// break a line or the object. A `String` holds valid UTF-8, so bytes from 0x80 are copied
    /// except in the two three-byte sequences E2 80 A8/A9.
    mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { u in
            // Most strings (models, frame kinds, names) need no escape: copied in one append.
            if !u.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0x7F || $0 == 0xE2 }) {
                bytes.append(contentsOf: u)
                return
            }
            var i = 0
            while i < u.count {
                let b = u[i]
                switch b {
                case UInt8(ascii: "\""): literal("\\\"")
                case UInt8(ascii: "\\"): literal("\\\\")
                case 0x0A: literal("\\n")
                case 0x0D: literal("\\r")
                case 0x09: literal("\\t")
                case 0..<0x20, 0x7F: unicodeEscape(UInt32(b))
                case 0xE2 where i + 2 < u.count && u[i + 1] == 0x80 && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9):
                    unicodeEscape(u[i + 2] == 0xA8 ? 0x2028 : 0x2029)
                    i += 2
                default: bytes.append(b)
                }
                i += 1
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `\uXXXX`, lower-case hex.
    private mutating func unicodeEscape(_ v: UInt32) {
        literal("\\u")
        for shift in stride(from: 12, through: 0, by: -4) {
            bytes.append(Hex.digit(UInt8(truncatingIfNeeded: v >> UInt32(shift)) & 0x0F))
        }
    }

    /// A measurement's number: whole-number quantities without a fraction, others in Swift's
    /// shortest round-trip form (`-0.5`, `50.0`) at 15 significant digits
    /// (`NumberText.significant`); non-finite values as `null`.
    ///
    /// `NumberText.write` gives that form's text for every value except a whole one below
    /// 10^15, which it writes without the `.0` that `description` has (and -0 as `0`).
    mutating func number(_ v: Double, integer: Bool) {
        guard v.isFinite else { return literal("null") }
        let a = abs(v)
        let wholeBelowLimit = a < 1e15 && Double(UInt64(a)) == a
        if wholeBelowLimit, !integer, a == 0 { return literal(v.sign == .minus ? "-0.0" : "0.0") }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: NumberText.maxBytes) { p in
            let n = NumberText.write(v, to: p.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: p[0..<n]))
        }
        if wholeBelowLimit, !integer { literal(".0") }
    }

    /// A whole number in decimal.
    mutating func int(_ v: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: NumberText.maxBytes) { p in
            let n = NumberText.write(Double(v), to: p.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: p[0..<n]))
        }
    }

    /// `AA:BB:CC:DD:EE:FF` (`BDAddress.description`), without quotes.
    mutating func address(_ a: BDAddress) {
        for k in 0..<6 {
            if k > 0 { bytes.append(UInt8(ascii: ":")) }
            let b = UInt8(truncatingIfNeeded: a.rawValue >> UInt64(8 * (5 - k)))
            bytes.append(Hex.digit(b >> 4, uppercase: true))
            bytes.append(Hex.digit(b & 0x0F, uppercase: true))
        }
    }

    /// One reading as a JSON object (without newline): `JSON.reading`.
    mutating func reading(_ r: Reading, includeTime: Bool) {
        literal("{\"address\":\"")
        address(r.address)
        literal("\",\"model\":")
        string(r.model)
        for m in r.measurements {
            literal(",\"")
            raw(m.quantity.key)
            literal("\":")
            number(m.value, integer: m.quantity.isInteger)
        }
        literal(",\"decoder\":\"")
        raw(r.decoderID)
        literal("\"")
        if let f = r.frameKind {
            literal(",\"frame\":")
            string(f)
        }
        if r.addressType != .publicDevice {
            literal(",\"address_type\":\"")
            raw(r.addressType.description)
            literal("\"")
        }
        if let rssi = r.rssi {
            literal(",\"rssi_dbm\":")
            int(Int(rssi))
        }
        if let n = r.name {
            literal(",\"name\":")
            string(n)
        }
        if includeTime, r.timeMicros != 0 {
            literal(",\"time\":\"")
            raw(JSON.time(micros: r.timeMicros))
            literal("\"")
        }
        if !r.warnings.isEmpty {
            literal(",\"warnings\":[")
            for (k, w) in r.warnings.enumerated() {
                if k > 0 { literal(",") }
                string(w.description)
            }
            literal("]")
        }
        if !r.events.isEmpty {
            literal(",\"events\":[")
            for (k, e) in r.events.enumerated() {
                if k > 0 { literal(",") }
                literal("{\"event\":\"")
                raw(e.kind.rawValue)
                literal("\",\"value\":")
                string(e.value)
                literal("}")
            }
            literal("]")
        }
        literal("}")
    }
}
