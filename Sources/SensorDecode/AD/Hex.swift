/// Hex text ↔ bytes. One place for it: the CLI, the tests and the capture tools all use these.
public enum Hex {
    /// Parses hex digits, ignoring spaces, tabs, colons and a leading `0x`; `nil` for any other
    /// character or an odd number of digits. (The `String` overload gives callers in other
    /// modules this module's specialised parse.)
    public static func decode(_ text: String) -> [UInt8]? { decode(parsing: text) }
    public static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? { decode(parsing: text) }

    private static func decode<S: StringProtocol>(parsing text: S) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 2)
        var high: UInt8? = nil
        var previous: UInt8 = 0
        for c in text.utf8 {
            let nibble: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = c - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ":"):
                guard high == nil else { return nil }  // a separator may not split a byte
                previous = c
                continue
            case UInt8(ascii: "x"), UInt8(ascii: "X"):
                // "0x" prefix: the "0" was taken as a high nibble; undo it.
                guard high == 0, previous == UInt8(ascii: "0") else { return nil }
                high = nil
                previous = c
                continue
            default:
                return nil
            }
            previous = c
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? out : nil
    }

    /// Lower-case hex without separators.
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var digits: [UInt8] = []
        digits.reserveCapacity(2 * bytes.count)
        for b in bytes {
            digits.append(digit(b >> 4))
            digits.append(digit(b & 0x0F))
        }
        return String(decoding: digits, as: UTF8.self)
    }

    /// The hex digit of a nibble (0...15), lower case unless `uppercase`.
    public static func digit(_ nibble: UInt8, uppercase: Bool = false) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + nibble - 10
    }

    /// Bytes as a UUID's text: lower-case hex with a dash before bytes 4, 6, 8 and 10 (8-4-4-4-12
    /// for 16 bytes).
    public static func uuidText<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(decoding: uuidUTF8(bytes, extra: 0), as: UTF8.self)
    }

    /// `uuidText` as UTF-8, with room for `extra` more bytes (a text that goes on).
    static func uuidUTF8<C: Collection>(_ bytes: C, extra: Int) -> [UInt8] where C.Element == UInt8 {
        var text: [UInt8] = []
        text.reserveCapacity(2 * bytes.count + 4 + extra)
        for (k, b) in bytes.enumerated() {
            if k == 4 || k == 6 || k == 8 || k == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digit(b >> 4))
            text.append(digit(b & 0x0F))
        }
        return text
    }

    /// A number in lower-case hex with at least `digits` digits (`hex(0x0f)` is "0f").
    public static func number<T: BinaryInteger>(_ value: T, digits: Int = 2) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
