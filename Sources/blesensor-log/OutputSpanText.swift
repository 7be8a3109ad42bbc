/// Text appended to an `OutputSpan` of bytes: how the output writers (`JSONWriter`, `NumberText`,
/// export's CSV records) put their text in place. Like `append(_:)`, each of these traps when the
/// span is full, so a writer that writes more than the room it asked for stops there instead of
/// writing past it.
extension OutputSpan<UInt8> {
    /// Appends `bytes`.
    mutating func append(copying bytes: Span<UInt8>) {
        for i in bytes.indices { append(bytes[i]) }
    }

    /// Appends the UTF-8 of a `String` known only at run time.
    mutating func append(utf8 s: String) { append(copying: s.utf8.span) }

    /// Appends our own text, a string literal. Inlined, and by offset (the count of a literal's
    /// bytes is a constant, its iterator's state is not), the loop unrolls into one store of a
    /// constant byte each; on a `String` made at run time it would be slow (use `append(utf8:)`).
    @inline(__always)
    mutating func append(literal s: String) {
        let u = s.utf8
        for offset in 0..<u.count { append(u[u.index(u.startIndex, offsetBy: offset)]) }
    }
}
