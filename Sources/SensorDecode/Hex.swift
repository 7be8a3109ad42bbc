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
        ascii(count: bytes.count * 2) { out in
            var i = 0
            for b in bytes {
                out[i] = digit(b >> 4)
                out[i + 1] = digit(b & 0x0F)
                i += 2
            }
        }
    }

    /// The hex digit of a nibble (0...15), lower case unless `uppercase`.
    @inline(__always) public static func digit(_ nibble: UInt8, uppercase: Bool = false) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + nibble - 10
    }

    /// A String of exactly `count` ASCII bytes written by `fill` straight into its storage: one
    /// allocation at most, none up to 15 bytes. Decoders format frame kinds, addresses and UUIDs
    /// for every reading, and building them through arrays and concatenation cost more than the
    /// decoding (callgrind). `fill` must write every byte, all below 0x80.
    @inlinable public static func ascii(count: Int, _ fill: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> String {
        String(unsafeUninitializedCapacity: count) { buffer in
            fill(UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
            return count
        }
    }

    /// Digits of a non-negative integer in decimal.
    @inline(__always) public static func decimalCount(_ v: Int) -> Int {
        var n = 1
        var rest = v
        while rest >= 10 {
            rest /= 10
            n += 1
        }
        return n
    }

    /// Writes a non-negative integer in decimal at `out[i...]` (`decimalCount(v)` bytes) and
    /// moves `i` past it.
    @inline(__always) public static func writeDecimal(
        _ v: Int, to out: UnsafeMutableBufferPointer<UInt8>, at i: inout Int
    ) {
        let n = decimalCount(v)
        var rest = v
        for j in stride(from: i + n - 1, through: i, by: -1) {
            out[j] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        i += n
    }

    /// Bytes as a UUID's text (lower-case hex, a dash before bytes 4, 6, 8 and 10: 8-4-4-4-12 for
    /// 16 bytes) at `out[i...]`, moving `i` past it; `uuidTextCount(n)` bytes for n bytes.
    @inline(__always) public static func writeUUIDText<C: Collection<UInt8>>(
        _ bytes: C, to out: UnsafeMutableBufferPointer<UInt8>, at i: inout Int
    ) {
        for (k, byte) in bytes.enumerated() {
            if k == 4 || k == 6 || k == 8 || k == 10 {
                out[i] = UInt8(ascii: "-")
                i += 1
            }
            out[i] = digit(byte >> 4)
            out[i + 1] = digit(byte & 0x0F)
            i += 2
        }
    }

    /// Length of `writeUUIDText` for `n` bytes (36 for 16).
    @inline(__always) public static func uuidTextCount(_ n: Int) -> Int {
        2 * n + (n > 10 ? 4 : n > 8 ? 3 : n > 6 ? 2 : n > 4 ? 1 : 0)
    }
}
