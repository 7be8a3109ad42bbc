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
            if isControl(scalar) {
                out += "\\x" + Hex.encode([UInt8(v)])
            } else if isDirectionOverride(scalar) {
                out += "\\u{" + String(v, radix: 16) + "}"
            } else if v == 0x5C {  // backslash: escaped so the escapes above are unambiguous
                out += "\\\\"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether `s` holds nothing that `escape` would turn into an escape other than a backslash:
    /// no control character and no direction override. Text that is already display text (a
    /// decoder's model, a logger's name) passes; text that would act on a terminal does not.
    public static func isPrintable(_ s: String) -> Bool {
        s.unicodeScalars.allSatisfy { !isControl($0) && !isDirectionOverride($0) }
    }

    /// C0, DEL and C1: escaped as `\xNN`.
    private static func isControl(_ c: Unicode.Scalar) -> Bool {
        c.value < 0x20 || c.value == 0x7F || (0x80...0x9F).contains(c.value)
    }

    /// The bidi embeddings, overrides, isolates and marks, which reorder the text shown after
    /// them: escaped as `\u{NNNN}`.
    private static func isDirectionOverride(_ c: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(c.value) || (0x2066...0x2069).contains(c.value) || c.value == 0x200E
            || c.value == 0x200F
    }
}
