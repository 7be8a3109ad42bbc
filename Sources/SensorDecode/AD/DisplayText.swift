/// Text that came from the radio, made safe to print: a stranger's device can broadcast any bytes.
public enum DisplayText {
    /// Decodes UTF-8 (invalid sequences become U+FFFD) and escapes control characters
    /// (C0, DEL, C1, and the bidi overrides) as `\u{XX}`-style `\xNN` / `\u{NNNN}` text.
    public static func escape<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        // Fast path, the common case: printable ASCII without a backslash needs no escaping.
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        let decoded = String(decoding: bytes, as: UTF8.self)
        var out = ""
        out.reserveCapacity(decoded.utf8.count)
        for scalar in decoded.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) {
                out += "\\x" + Hex.encode([UInt8(v)])
            } else if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E
                || v == 0x200F
            {
                out += "\\u{" + String(v, radix: 16) + "}"
            } else if v == 0x5C {  // backslash: escaped so the escapes above are unambiguous
                out += "\\\\"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
