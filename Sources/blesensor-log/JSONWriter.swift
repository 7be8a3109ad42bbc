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
        sink.write(atMost: s.utf8.count) { p in Self.writeRaw(s, to: p) }
    }

    /// A JSON string literal. Escapes quotes, backslashes and every control character (and
    /// U+2028/U+2029, which end a line in JavaScript) as `\uXXXX` in lower-case hex unless it has
    /// a short escape, so a stranger's device name can never break a line or the object.
    mutating func string(_ s: String) {
        sink.write(atMost: Self.stringMaxBytes(s)) { p in Self.writeString(s, to: p) }
    }

    /// The longest text `writeString` makes of `s`: 6 bytes per byte (`\u001f`) and 2 quotes.
    static func stringMaxBytes(_ s: String) -> Int { 6 * s.utf8.count + 2 }

    /// `string`'s text written at `p` (room for `stringMaxBytes(s)`); returns the number of bytes.
    static func writeString(_ s: String, to p: UnsafeMutablePointer<UInt8>) -> Int {
        withUTF8(s) { u in writeString(u, to: p) }
    }

    /// `raw`'s text written at `p` (room for `s.utf8.count`); returns the number of bytes.
    static func writeRaw(_ s: String, to p: UnsafeMutablePointer<UInt8>) -> Int {
        withUTF8(s) { u in copy(u, to: p) }
    }

    /// `body` given `s`'s UTF-8 in place: every native `String` has it contiguous, so the copy
    /// that `String.withUTF8` needs a `var` for is made only for one that does not.
    private static func withUTF8(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> Int) -> Int {
        if let n = s.utf8.withContiguousStorageIfAvailable(body) { return n }
        var contiguous = s
        return contiguous.withUTF8(body)
    }

    /// The escaping of `string`, on UTF-8 bytes. A `String` holds valid UTF-8, so bytes from 0x80
    /// are copied except in the three-byte sequences E2 80 A8/A9.
    private static func writeString(_ u: UnsafeBufferPointer<UInt8>, to p: UnsafeMutablePointer<UInt8>) -> Int {
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
        let wholeBelowLimit = a < 1e15 && Double(Int64(a)) == a  // signed: see `NumberText.write`
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

    /// The longest text `writeMeasurement` makes of `m`.
    static func measurementMaxBytes(_ m: Measurement) -> Int { m.quantity.key.utf8.count + 4 + numberMaxBytes }

    /// `,"key":number`, one measurement of a reading (a reading is mostly these), written at `p`
    /// (room for `measurementMaxBytes(m)`); returns the number of bytes. The key is ours and
    /// needs no escape.
    static func writeMeasurement(_ m: Measurement, to p: UnsafeMutablePointer<UInt8>) -> Int {
        var n = copy(",\"", to: p)
        n += writeRaw(m.quantity.key, to: p + n)
        n += copy("\":", to: p + n)
        return n + writeNumber(m.value, integer: m.quantity.isInteger, to: p + n)
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
    mutating func reading(_ r: Reading, includeTime: Bool) { reading(r, includeTime: includeTime, closing: "}") }

    /// One reading as a JSON object and its newline: a line of `decode`'s output.
    mutating func readingLine(_ r: Reading, includeTime: Bool) { reading(r, includeTime: includeTime, closing: "}\n") }

    /// A reading's object, ended by `closing`. Its common part, from the address to the frame (what
    /// every reading has, and most have nothing else), goes in one write; the rarer keys after it
    /// each in their own.
    private mutating func reading(_ r: Reading, includeTime: Bool, closing: StaticString) {
        // The closure captures these alone, not a copy of `r`.
        let address = r.address
        let model = r.model
        let measurements = r.measurements
        let decoder = r.decoderID
        let frame = r.frameKind
        var bound = 12 + 17 + 10 + Self.stringMaxBytes(model) + 12 + decoder.utf8.count + 1
        for m in measurements { bound += Self.measurementMaxBytes(m) }
        if let frame { bound += 9 + Self.stringMaxBytes(frame) }
        sink.write(atMost: bound) { p in
            var n = Self.copy("{\"address\":\"", to: p)
            n += Self.writeAddress(address, to: p + n)
            n += Self.copy("\",\"model\":", to: p + n)
            n += Self.writeString(model, to: p + n)
            for m in measurements { n += Self.writeMeasurement(m, to: p + n) }
            n += Self.copy(",\"decoder\":\"", to: p + n)
            n += Self.writeRaw(decoder, to: p + n)
            n += Self.copy("\"", to: p + n)
            if let frame {
                n += Self.copy(",\"frame\":", to: p + n)
                n += Self.writeString(frame, to: p + n)
            }
            return n
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
        if let name = r.name {
            sink.write(atMost: 8 + Self.stringMaxBytes(name)) { p in
                let n = Self.copy(",\"name\":", to: p)
                return n + Self.writeString(name, to: p + n)
            }
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
        literal(closing)
    }
}
