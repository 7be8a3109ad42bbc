/// A JSON document (RFC 8259) parsed for a configuration file: every value keeps the line it
/// starts on, so an error can say where. Objects keep their keys in order and refuse duplicates
/// (a rules file with a key twice is a mistake, not a choice of the last one).
///
/// Also the reader of the MQTT state payloads a hub takes (`MQTTStateRow`), the CLI's one JSON
/// reader. Bounds: nesting at most `maxDepth`, the caller limits the size. Numbers are Doubles
/// that remember whether their text was a whole number (no fraction or exponent): a quantity's
/// `isInteger` is read from it.
indirect enum JSONValue: Equatable {
    case object([(key: String, value: JSONNode)])
    case array([JSONNode])
    case string(String)
    case number(Double, integer: Bool)
    case bool(Bool)
    case null

    static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)): x.map(\.key) == y.map(\.key) && x.map(\.value) == y.map(\.value)
        case (.array(let x), .array(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.number(let x, let i), .number(let y, let j)): x == y && i == j
        case (.bool(let x), .bool(let y)): x == y
        case (.null, .null): true
        default: false
        }
    }

    /// What it is, in an error message ("a string", "an object").
    var kindName: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "true or false"
        case .null: "null"
        }
    }
}

/// A value and the line (from 1) where it starts.
struct JSONNode: Equatable {
    var value: JSONValue
    var line: Int
}

/// A syntax error: the line and what was wrong.
struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    var line: Int
    var reason: String
    var description: String { "line \(line): \(reason)" }
}

enum JSONParser {
    static let maxDepth = 32

    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        var p = Cursor(bytes: bytes)
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.at == bytes.count else { throw p.error("text after the end of the document") }
        return v
    }

    private struct Cursor {
        let bytes: [UInt8]
        var at = 0
        var line = 1

        func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(line: line, reason: reason) }

        mutating func skipSpace() {
            while at < bytes.count {
                switch bytes[at] {
                case 0x0A: line += 1
                case 0x20, 0x09, 0x0D: break
                default: return
                }
                at += 1
            }
        }

        mutating func expect(_ literal: String, _ v: JSONValue) throws(JSONSyntaxError) -> JSONValue {
            let l = Array(literal.utf8)
            guard at + l.count <= bytes.count, Array(bytes[at..<(at + l.count)]) == l else {
                throw error("unexpected text (a value is an object, array, string, number, true, false or null)")
            }
            at += l.count
            return v
        }

        mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONNode {
            skipSpace()
            guard depth < JSONParser.maxDepth else { throw error("nested more than \(JSONParser.maxDepth) deep") }
            guard at < bytes.count else { throw error("the document ends where a value should be") }
            let startLine = line
            let v: JSONValue
            switch bytes[at] {
            case UInt8(ascii: "{"): v = try object(depth: depth)
            case UInt8(ascii: "["): v = try array(depth: depth)
            case UInt8(ascii: "\""): v = .string(try string())
            case UInt8(ascii: "t"): v = try expect("true", .bool(true))
            case UInt8(ascii: "f"): v = try expect("false", .bool(false))
            case UInt8(ascii: "n"): v = try expect("null", .null)
            default:
                let (d, integer) = try number()
                v = .number(d, integer: integer)
            }
            return JSONNode(value: v, line: startLine)
        }

        mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
            at += 1
            var members: [(key: String, value: JSONNode)] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                at += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw error("expected a key in quotes") }
                let key = try string()
                if members.contains(where: { $0.key == key }) { throw error("key \"\(key)\" given twice") }
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw error("expected ':' after \"\(key)\"") }
                at += 1
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard at < bytes.count else { throw error("the document ends inside an object") }
                if bytes[at] == UInt8(ascii: ",") {
                    at += 1
                    continue
                }
                guard bytes[at] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
                at += 1
                return .object(members)
            }
        }

        mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
            at += 1
            var items: [JSONNode] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                at += 1
                return .array(items)
            }
            while true {
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard at < bytes.count else { throw error("the document ends inside an array") }
                if bytes[at] == UInt8(ascii: ",") {
                    at += 1
                    continue
                }
                guard bytes[at] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
                at += 1
                return .array(items)
            }
        }

        mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
            guard at + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[at..<(at + 4)], as: UTF8.self), radix: 16)
            else { throw error("bad \\u escape") }
            at += 4
            return v
        }

        mutating func string() throws(JSONSyntaxError) -> String {
            at += 1
            var out: [UInt8] = []
            while true {
                guard at < bytes.count else { throw error("the document ends inside a string") }
                let b = bytes[at]
                at += 1
                switch b {
                case UInt8(ascii: "\""):
                    // Invalid UTF-8 is refused, not repaired: a path or argument must be what was written.
                    guard let s = String(validating: out, as: UTF8.self) else { throw error("a string is not valid UTF-8") }
                    return s
                case UInt8(ascii: "\\"):
                    guard at < bytes.count else { throw error("the document ends inside a string") }
                    let e = bytes[at]
                    at += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "b"): out.append(8)
                    case UInt8(ascii: "f"): out.append(12)
                    case UInt8(ascii: "n"): out.append(10)
                    case UInt8(ascii: "r"): out.append(13)
                    case UInt8(ascii: "t"): out.append(9)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard at + 2 <= bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u")
                            else { throw error("a lone surrogate in a \\u escape") }
                            at += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate in a \\u escape") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let u = Unicode.Scalar(scalar) else { throw error("a lone surrogate in a \\u escape") }
                        out.append(contentsOf: Array(String(Character(u)).utf8))
                    default: throw error("unknown escape \\\(Character(Unicode.Scalar(e)))")
                    }
                case 0..<0x20: throw error("a control character inside a string (write it as an escape)")
                default: out.append(b)
                }
            }
        }

        /// The number and whether its text was whole.
        mutating func number() throws(JSONSyntaxError) -> (Double, Bool) {
            let start = at
            var whole = true
            while at < bytes.count, "+-0123456789.eE".utf8.contains(bytes[at]) {
                if ".eE".utf8.contains(bytes[at]) { whole = false }
                at += 1
            }
            guard at > start, let d = Double(String(decoding: bytes[start..<at], as: UTF8.self)), d.isFinite else {
                at = start
                throw error("unexpected text (a value is an object, array, string, number, true, false or null)")
            }
            return (d, whole)
        }
    }
}
