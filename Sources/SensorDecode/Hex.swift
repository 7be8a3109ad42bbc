/// Hex text ↔ bytes. One place for it: the CLI, the tests and the capture tools all use these.
public enum Hex {
    /// Parses hex digits, ignoring spaces, tabs, colons and a leading `0x`; `nil` for any other
    /// character or an odd number of digits.
    public static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
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
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
