import SensorDecode

/// Where the JSON writer's bytes go: straight into the output's buffer (`OutputWriter`:
/// `decode`), or into a byte array (`JSONByteArray`: the `String`s of `JSON.reading` and friends).
protocol JSONSink {
    /// Lets `build` append at most `maxBytes` bytes, in place, to the span it is given: that is
    /// the span's capacity, so a byte more traps.
    mutating func write(atMost maxBytes: Int, _ build: (inout OutputSpan<UInt8>) -> Void)
}

extension OutputWriter: JSONSink {}

/// A byte array as a `JSONSink`, for JSON wanted as a `String` (`text`).
struct JSONByteArray: JSONSink {
    var bytes: [UInt8] = []

    var text: String { String(decoding: bytes, as: UTF8.self) }

    @inline(__always)
    mutating func write(atMost maxBytes: Int, _ build: (inout OutputSpan<UInt8>) -> Void) {
        bytes.append(addingCapacity: maxBytes, initializingWith: build)
    }
}

/// The JSON writer: the one place that spells readings, strings and numbers as JSON
/// (`JSON.reading`, `JSON.string` and `JSON.number` return its text). Each piece is written in
/// place into its sink, after one check of room for the most it can take
/// (`JSONSink.write(atMost:)`), rather than by concatenating `String`s, whose every append
/// checks, grows and copies: `decode` writes a reading straight into its output buffer. The
/// spellings themselves are `JSONText`'s.
///
/// Every `build` closure below writes no more than the bound it asks room for (`JSONText`'s
/// `...MaxBytes` of what it writes); one that wrote more would trap at the span's end.
struct JSONWriter<Sink: JSONSink> {
    var sink: Sink

    init(_ sink: Sink) { self.sink = sink }

    /// A JSON string literal (`JSONText.string`).
    mutating func string(_ s: String) {
        sink.write(atMost: JSONText.stringMaxBytes(s)) { out in JSONText.string(s, to: &out) }
    }

    /// A measurement's number (`JSONText.number`).
    mutating func number(_ v: Double, integer: Bool) {
        sink.write(atMost: JSONText.numberMaxBytes) { out in JSONText.number(v, integer: integer, to: &out) }
    }

    /// One reading as a JSON object (without newline): `JSON.reading`.
    mutating func reading(_ r: Reading, includeTime: Bool) { reading(r, includeTime: includeTime, newline: false) }

    /// One reading as a JSON object and its newline: a line of `decode`'s output.
    mutating func readingLine(_ r: Reading, includeTime: Bool) { reading(r, includeTime: includeTime, newline: true) }

    /// A reading's object, and a newline after it if `newline`: one write of the most it can
    /// take.
    private mutating func reading(_ r: Reading, includeTime: Bool, newline: Bool) {
        // The texts a reading works out when asked (its name is made printable), asked once.
        let name = r.name
        let warnings = r.warnings.isEmpty ? [] : r.warnings.map(\.description)
        let time = includeTime && r.timeMicros != 0 ? JSON.time(micros: r.timeMicros) : nil
        sink.write(atMost: JSONText.readingMaxBytes(r, name: name, warnings: warnings, time: time) + 1) { out in
            JSONText.reading(r, name: name, warnings: warnings, time: time, to: &out)
            if newline { out.append(UInt8(ascii: "\n")) }
        }
    }
}

/// `JSONWriter`'s spellings, each appended to the span it is given, which must have room for the
/// `...MaxBytes` of what is written (or it traps).
enum JSONText {
    /// The longest text `string` makes of `s`: 6 bytes per byte (`\u001f`) and 2 quotes.
    static func stringMaxBytes(_ s: String) -> Int { 6 * s.utf8.count + 2 }

    /// A JSON string literal. Escapes quotes, backslashes and every control character (and
    /// U+2028/U+2029, which end a line in JavaScript) as `\uXXXX` in lower-case hex unless it has
    /// a short escape, so a stranger's device name can never break a line or the object. A
    /// `String` holds valid UTF-8, so bytes from 0x80 are copied except in the three-byte
    /// sequences E2 80 A8/A9.
    static func string(_ s: String, to out: inout OutputSpan<UInt8>) {
        let u = s.utf8.span
        out.append(UInt8(ascii: "\""))
        var i = 0
        while i < u.count {
            let b = u[i]
            // Most bytes are printable ASCII other than a quote or backslash: as they are.
            if b >= 0x20, b < 0x7F, b != UInt8(ascii: "\""), b != UInt8(ascii: "\\") {
                out.append(b)
                i += 1
                continue
            }
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(b)
            case 0x0A: out.append(literal: "\\n")
            case 0x0D: out.append(literal: "\\r")
            case 0x09: out.append(literal: "\\t")
            case 0..<0x20, 0x7F: escape(UInt32(b), to: &out)
            case 0xE2 where i + 2 < u.count && u[i + 1] == 0x80 && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9):
                escape(u[i + 2] == 0xA8 ? 0x2028 : 0x2029, to: &out)
                i += 2
            default: out.append(b)
            }
            i += 1
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `\uXXXX`, lower-case hex.
    private static func escape(_ v: UInt32, to out: inout OutputSpan<UInt8>) {
        out.append(literal: "\\u")
        for shift in stride(from: 12, through: 0, by: -4) {
            out.append(Hex.digit(UInt8(truncatingIfNeeded: v >> UInt32(shift)) & 0x0F))
        }
    }

    /// The longest text `number` produces (`NumberText`'s and a `.0`).
    static var numberMaxBytes: Int { NumberText.maxBytes + 2 }

    /// A measurement's number: whole-number quantities without a fraction, others in Swift's
    /// shortest round-trip form (`-0.5`, `50.0`) at 15 significant digits
    /// (`NumberText.significant`); non-finite values as `null`.
    ///
    /// `NumberText.write` gives that form's text for every value except a whole one below
    /// 10^15, which it writes without the `.0` that `description` has (and -0 as `0`).
    static func number(_ v: Double, integer: Bool, to out: inout OutputSpan<UInt8>) {
        guard v.isFinite else { return out.append(literal: "null") }
        let a = abs(v)
        let wholeBelowLimit = a < 1e15 && Double(Int64(a)) == a  // signed: see `NumberText.write`
        if wholeBelowLimit, !integer, a == 0 {
            return v.sign == .minus ? out.append(literal: "-0.0") : out.append(literal: "0.0")
        }
        NumberText.write(v, to: &out)
        if wholeBelowLimit, !integer { out.append(literal: ".0") }
    }

    /// The longest text `measurement` makes of `m`.
    static func measurementMaxBytes(_ m: Measurement) -> Int { m.quantity.key.utf8.count + 4 + numberMaxBytes }

    /// `,"key":number`, one measurement of a reading (a reading is mostly these). The key is ours
    /// and needs no escape.
    static func measurement(_ m: Measurement, to out: inout OutputSpan<UInt8>) {
        out.append(literal: ",\"")
        out.append(utf8: m.quantity.key)
        out.append(literal: "\":")
        number(m.value, integer: m.quantity.isInteger, to: &out)
    }

    /// `AA:BB:CC:DD:EE:FF` (`BDAddress.description`): 17 bytes.
    static func address(_ a: BDAddress, to out: inout OutputSpan<UInt8>) {
        for k in 0..<6 {
            let b = UInt8(truncatingIfNeeded: a.rawValue >> UInt64(8 * (5 - k)))
            if k > 0 { out.append(UInt8(ascii: ":")) }
            out.append(Hex.digit(b >> 4, uppercase: true))
            out.append(Hex.digit(b & 0x0F, uppercase: true))
        }
    }

    /// The longest text `reading` makes of these. Each constant is the length of the literal
    /// written there (`,"frame":` is 9 bytes), a comma being counted for every element of a list
    /// and so also for its `]`.
    static func readingMaxBytes(_ r: Reading, name: String?, warnings: [String], time: String?) -> Int {
        var bound = 12 + 17 + 10 + stringMaxBytes(r.model) + 12 + r.decoderID.utf8.count + 1
        for m in r.measurements { bound += measurementMaxBytes(m) }
        if let frame = r.frameKind { bound += 9 + stringMaxBytes(frame) }
        if r.addressType != .publicDevice { bound += 17 + r.addressType.description.utf8.count + 1 }
        if r.rssi != nil { bound += 12 + NumberText.maxBytes }
        if let name { bound += 8 + stringMaxBytes(name) }
        if let time { bound += 9 + time.utf8.count + 1 }
        if !warnings.isEmpty {
            bound += 13
            for w in warnings { bound += 1 + stringMaxBytes(w) }
        }
        if !r.events.isEmpty {
            bound += 11
            for e in r.events { bound += 1 + 10 + e.kind.rawValue.utf8.count + 10 + stringMaxBytes(e.value) + 1 }
        }
        return bound + 1
    }

    /// One reading as a JSON object (without newline), with its `name` and `warnings` (their
    /// texts) and `time` (its time stamp's, if wanted): its common part, from the address to the
    /// frame (what every reading has, and most have nothing else), then the rarer keys.
    static func reading(
        _ r: Reading, name: String?, warnings: [String], time: String?, to out: inout OutputSpan<UInt8>
    ) {
        out.append(literal: "{\"address\":\"")
        address(r.address, to: &out)
        out.append(literal: "\",\"model\":")
        string(r.model, to: &out)
        for m in r.measurements { measurement(m, to: &out) }
        out.append(literal: ",\"decoder\":\"")
        out.append(utf8: r.decoderID)
        out.append(UInt8(ascii: "\""))
        if let frame = r.frameKind {
            out.append(literal: ",\"frame\":")
            string(frame, to: &out)
        }
        if r.addressType != .publicDevice {
            out.append(literal: ",\"address_type\":\"")
            out.append(utf8: r.addressType.description)
            out.append(UInt8(ascii: "\""))
        }
        if let rssi = r.rssi {
            out.append(literal: ",\"rssi_dbm\":")
            NumberText.write(Double(rssi), to: &out)
        }
        if let name {
            out.append(literal: ",\"name\":")
            string(name, to: &out)
        }
        if let time {
            out.append(literal: ",\"time\":\"")
            out.append(utf8: time)
            out.append(UInt8(ascii: "\""))
        }
        if !warnings.isEmpty {
            out.append(literal: ",\"warnings\":[")
            for (k, w) in warnings.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                string(w, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        if !r.events.isEmpty {
            out.append(literal: ",\"events\":[")
            for (k, e) in r.events.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                out.append(literal: "{\"event\":\"")
                out.append(utf8: e.kind.rawValue)
                out.append(literal: "\",\"value\":")
                string(e.value, to: &out)
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
    }
}
