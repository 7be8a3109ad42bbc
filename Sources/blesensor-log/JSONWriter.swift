#if canImport(Glibc)
    import Glibc
#endif
import SensorDecode

/// Where the JSON writer's bytes go: straight into the output's buffer (`OutputWriter`:
/// `decode`), or into a byte array (`JSONByteArray`: the `String`s of `JSON.reading` and friends).
protocol JSONSink {
    /// Lets `build` write at most `maxBytes` bytes at the pointer it is given (room for that many);
    /// `build` returns how many it wrote.
    mutating func write(atMost maxBytes: Int, _ build: (UnsafeMutablePointer<UInt8>) -> Int)
}

extension OutputWriter: JSONSink {}

/// A byte array as a `JSONSink`, for JSON wanted as a `String` (`text`).
struct JSONByteArray: JSONSink {
    var bytes: [UInt8] = []

    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func write(atMost maxBytes: Int, _ build: (UnsafeMutablePointer<UInt8>) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, maxBytes)) { b in
            let n = build(b.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: b[..<n]))
        }
    }
}

/// The JSON writer: the one place that spells readings, strings and numbers as JSON
/// (`JSON.reading`, `JSON.string` and `JSON.number` return its text). Each piece is written in
/// place into its sink through one pointer, after one check of room for the most it can take
/// (`JSONSink.write(atMost:)`), rather than by concatenating `String`s, whose every append
/// checks, grows and copies: `decode` writes a reading straight into its output buffer.
///
/// INVARIANT: every `build` closure below writes no more than the bound it asks room for.
struct JSONWriter<Sink: JSONSink> {
    var sink: Sink

    init(_ sink: Sink) { self.sink = sink }

    /// Our own text (punctuation, keys), as it is.
    mutating func literal(_ s: StaticString) {
        sink.write(atMost: s.utf8CodeUnitCount) { p in Self.copy(s, to: p) }
    }

    /// Text of ours held in a `String` (quantity keys, decoder ids), as it is.
    mutating func raw(_ s: String) {
        var s = s
        s.withUTF8 { u in sink.write(atMost: u.count) { p in Self.copy(u, to: p) } }
    }

    /// A JSON string literal. Escapes quotes, backslashes and every control character (and
    /// U+2028/U+2029, which end a line in JavaScript) as `\uXXXX` in lower-case hex unless it has
    /// a short escape, so a stranger's device name can never break a line or the object. A
    /// `String` holds valid UTF-8, so bytes from 0x80 are copied except in the three-byte
    /// sequences E2 80 A8/A9. At most 6 bytes are written per byte (`\u001f`), and 2 quotes.
    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { u in
            sink.write(atMost: 6 * u.count + 2) { p in
                var q = p
                func put(_ b: UInt8) {
                    q.pointee = b
                    q += 1
                }
                func escape(_ v: UInt32) {
                    put(UInt8(ascii: "\\"))
                    put(UInt8(ascii: "u"))
                    for shift in stride(from: 12, through: 0, by: -4) {
                        put(Hex.digit(UInt8(truncatingIfNeeded: v >> UInt32(shift)) & 0x0F))
                    }
                }
                put(UInt8(ascii: "\""))
                var i = 0
                while i < u.count {
                    let b = u[i]
                    // Most bytes are printable ASCII other than a quote or backslash: as they are.
                    if b >= 0x20, b < 0x7F, b != UInt8(ascii: "\""), b != UInt8(ascii: "\\") {
                        put(b)
                        i += 1
                        continue
                    }
                    switch b {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                        put(UInt8(ascii: "\\"))
                        put(b)
                    case 0x0A:
                        put(UInt8(ascii: "\\"))
                        put(UInt8(ascii: "n"))
                    case 0x0D:
                        put(UInt8(ascii: "\\"))
                        put(UInt8(ascii: "r"))
                    case 0x09:
                        put(UInt8(ascii: "\\"))
                        put(UInt8(ascii: "t"))
                    case 0..<0x20, 0x7F: escape(UInt32(b))
                    case 0xE2 where i + 2 < u.count && u[i + 1] == 0x80 && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9):
                        escape(u[i + 2] == 0xA8 ? 0x2028 : 0x2029)
                        i += 2
                    default: put(b)
                    }
                    i += 1
                }
                put(UInt8(ascii: "\""))
                return q - p
            }
        }
    }

    /// A measurement's number: whole-number quantities without a fraction, others in Swift's
    /// shortest round-trip form (`-0.5`, `50.0`) at 15 significant digits
    /// (`NumberText.significant`); non-finite values as `null`.
    mutating func number(_ v: Double, integer: Bool) {
        sink.write(atMost: Self.numberMaxBytes) { p in Self.writeNumber(v, integer: integer, to: p) }
    }

    /// The longest text `writeNumber` produces (`NumberText`'s and a `.0`).
    static var numberMaxBytes: Int { NumberText.maxBytes + 2 }

    /// `number`'s text written at `p` (room for `numberMaxBytes`); returns the number of bytes.
    ///
    /// `NumberText.write` gives that form's text for every value except a whole one below
    /// 10^15, which it writes without the `.0` that `description` has (and -0 as `0`).
    static func writeNumber(_ v: Double, integer: Bool, to p: UnsafeMutablePointer<UInt8>) -> Int {
        guard v.isFinite else { return copy("null", to: p) }
        let a = abs(v)
        let wholeBelowLimit = a < 1e15 && Double(UInt64(a)) == a
        if wholeBelowLimit, !integer, a == 0 { return copy(v.sign == .minus ? "-0.0" : "0.0", to: p) }
        var n = NumberText.write(v, to: p)
        if wholeBelowLimit, !integer {
            p[n] = UInt8(ascii: ".")
            p[n + 1] = UInt8(ascii: "0")
            n += 2
        }
        return n
    }

    /// Copies our own text to `p` (room for it); returns its length.
    private static func copy(_ s: StaticString, to p: UnsafeMutablePointer<UInt8>) -> Int {
        p.update(from: s.utf8Start, count: s.utf8CodeUnitCount)
        return s.utf8CodeUnitCount
    }

    /// Copies a `String` of ours (room for its UTF-8) to `p`; returns its length.
    private static func copy(_ u: UnsafeBufferPointer<UInt8>, to p: UnsafeMutablePointer<UInt8>) -> Int {
        if let base = u.baseAddress { p.update(from: base, count: u.count) }
        return u.count
    }

    /// `,"key":number`, one measurement of a reading, in one write: a reading is mostly these.
    mutating func measurement(_ m: Measurement) {
        var key = m.quantity.key
        key.withUTF8 { k in
            sink.write(atMost: k.count + 4 + Self.numberMaxBytes) { p in
                var n = Self.copy(",\"", to: p)
                n += Self.copy(k, to: p + n)
                n += Self.copy("\":", to: p + n)
                return n + Self.writeNumber(m.value, integer: m.quantity.isInteger, to: p + n)
            }
        }
    }

    /// A whole number in decimal.
    mutating func int(_ v: Int) {
        sink.write(atMost: NumberText.maxBytes) { p in NumberText.write(Double(v), to: p) }
    }

    /// `AA:BB:CC:DD:EE:FF` (`BDAddress.description`), without quotes.
    mutating func address(_ a: BDAddress) {
        sink.write(atMost: 17) { p in Self.writeAddress(a, to: p) }
    }

    /// `address`'s 17 bytes written at `p`.
    static func writeAddress(_ a: BDAddress, to p: UnsafeMutablePointer<UInt8>) -> Int {
        for k in 0..<6 {
            let b = UInt8(truncatingIfNeeded: a.rawValue >> UInt64(8 * (5 - k)))
            p[3 * k] = Hex.digit(b >> 4, uppercase: true)
            p[3 * k + 1] = Hex.digit(b & 0x0F, uppercase: true)
            if k < 5 { p[3 * k + 2] = UInt8(ascii: ":") }
        }
        return 17
    }

    /// One reading as a JSON object (without newline): `JSON.reading`.
    mutating func reading(_ r: Reading, includeTime: Bool) {
        let address = r.address  // the closure captures the address alone, not a copy of `r`
        sink.write(atMost: 12 + 17 + 10) { p in
            var n = Self.copy("{\"address\":\"", to: p)
            n += Self.writeAddress(address, to: p + n)
            return n + Self.copy("\",\"model\":", to: p + n)
        }
        string(r.model)
        for m in r.measurements { measurement(m) }
        var decoder = r.decoderID
        decoder.withUTF8 { id in
            sink.write(atMost: 13 + id.count) { p in
                var n = Self.copy(",\"decoder\":\"", to: p)
                n += Self.copy(id, to: p + n)
                return n + Self.copy("\"", to: p + n)
            }
        }
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
