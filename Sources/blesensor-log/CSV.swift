/// CSV per RFC 4180: fields with a comma, quote, CR or LF are quoted, quotes doubled, records end
/// with CRLF.
///
/// Text cells that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or
/// CR) are prefixed with a single quote (OWASP's advice): device names come from strangers' radios.
/// Numbers are written by `NumberText` and never neutralised: `-0.5` stays a number.
enum CSV {
    static func text(_ s: String) -> String {
        var s = s
        if let first = s.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) {
            s = "'" + s
        }
        var needsQuotes = false
        for c in s.utf8 where c == UInt8(ascii: ",") || c == UInt8(ascii: "\"") || c == 10 || c == 13 {
            needsQuotes = true
            break
        }
        guard needsQuotes else { return s }
        var out = "\""
        for ch in s.unicodeScalars {
            if ch == "\"" { out += "\"\"" } else { out.unicodeScalars.append(ch) }
        }
        return out + "\""
    }

    static let recordEnd = "\r\n"
}
