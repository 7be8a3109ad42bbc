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

    /// Writes a non-negative integer in decimal so that its last digit is `out[end - 1]`, from
    /// that digit back; returns the index of its first digit. For text written from its end,
    /// which counts no digits (`decimalCount` was ~100 instructions a number, callgrind).
    @inline(__always) public static func writeDecimal(
        _ v: Int, to out: UnsafeMutableBufferPointer<UInt8>, endingAt end: Int
    ) -> Int {
        var rest = v
        var j = end
        repeat {
            j -= 1
            out[j] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while rest > 0
        return j
    }

    /// Bytes as a UUID's text (lower-case hex, a dash before bytes 4, 6, 8 and 10: 8-4-4-4-12 for
    /// 16 bytes) at `out[i...]`, moving `i` past it; `uuidTextCount(n)` bytes for n bytes.
    /// Sixteen bytes (every real UUID) are written four at a time as words: byte by byte, they
    /// were most of an iBeacon decode (callgrind).
    @inline(__always) public static func writeUUIDText(
        _ bytes: UnsafeBufferPointer<UInt8>, to out: UnsafeMutableBufferPointer<UInt8>, at i: inout Int
    ) {
        guard bytes.count == 16 else {
            for (k, byte) in bytes.enumerated() {
                if k == 4 || k == 6 || k == 8 || k == 10 {
                    out[i] = UInt8(ascii: "-")
                    i += 1
                }
                out[i] = digit(byte >> 4)
                out[i + 1] = digit(byte & 0x0F)
                i += 2
            }
            return
        }
        let text = UnsafeMutableRawPointer(out.baseAddress! + i)
        func store8(_ digits: UInt64, at offset: Int) {
            text.storeBytes(of: digits.littleEndian, toByteOffset: offset, as: UInt64.self)
        }
        func store4(_ digits: UInt64, at offset: Int) {
            text.storeBytes(of: UInt32(truncatingIfNeeded: digits).littleEndian, toByteOffset: offset, as: UInt32.self)
        }
        store8(hexDigits(bytes, 0), at: 0)
        store4(hexDigits(bytes, 4), at: 9)
        store4(hexDigits(bytes, 6), at: 14)
        store4(hexDigits(bytes, 8), at: 19)
        store8(hexDigits(bytes, 10), at: 24)
        store4(hexDigits(bytes, 14, count: 2), at: 32)
        out[i + 8] = UInt8(ascii: "-")
        out[i + 13] = UInt8(ascii: "-")
        out[i + 18] = UInt8(ascii: "-")
        out[i + 23] = UInt8(ascii: "-")
        i += 36
    }

    /// The lower-case hex digits of bytes `k..<k+count` (count ≤ 4; they must exist), first byte
    /// first: byte j of the result is digit j of the text (bytes past `count` are digits of 0).
    @inline(__always) static func hexDigits(_ bytes: UnsafeBufferPointer<UInt8>, _ k: Int, count: Int = 4) -> UInt64 {
        func byte(_ j: Int) -> UInt64 { j < count ? UInt64(bytes[k + j]) : 0 }
        // Each byte in its own 16-bit lane, then its high nibble to the lane's low byte and its
        // low nibble to the lane's high byte: one nibble per byte, in text order.
        let lanes = byte(0) | byte(1) << 16 | byte(2) << 32 | byte(3) << 48
        let nibbles = (lanes >> 4) & 0x000F_000F_000F_000F | (lanes & 0x000F_000F_000F_000F) << 8
        // '0' + n, and 39 more ('a' − '0' − 10) where n ≥ 10, which is where n + 6 reaches bit 4.
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 39
    }

    /// Length of `writeUUIDText` for `n` bytes (36 for 16).
    @inline(__always) public static func uuidTextCount(_ n: Int) -> Int {
        2 * n + (n > 10 ? 4 : n > 8 ? 3 : n > 6 ? 2 : n > 4 ? 1 : 0)
    }
}
