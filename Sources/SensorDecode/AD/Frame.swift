/// Bytes of one frame (a service data or manufacturer value, a decrypted payload) and bounded reads
/// of fixed-size numbers at byte offsets from its start.
///
/// Every read returns `nil` when the frame is too short for it (or the offset is negative), so a
/// decoder can never read past the end of untrusted input: a short frame fails a `guard let`,
/// never traps. Offsets count from the frame's first byte whatever buffer it is a slice of.
public struct Frame: Sendable, Equatable, CustomStringConvertible {
    public let bytes: ArraySlice<UInt8>

    public init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }
    public init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    public var count: Int { bytes.count }
    public var isEmpty: Bool { bytes.isEmpty }
    /// The bytes in an array of their own (a decryption's input, a text made of them).
    public var array: [UInt8] { Array(bytes) }
    /// Lower-case hex, for messages.
    public var description: String { Hex.encode(bytes) }

    /// The index in `bytes` of offset `i`, if `size` bytes from there lie inside the frame.
    private func index(_ i: Int, _ size: Int) -> Int? {
        i >= 0 && i <= count - size ? bytes.startIndex + i : nil
    }

    public func u8(_ i: Int) -> UInt8? { index(i, 1).map { bytes[$0] } }
    public func i8(_ i: Int) -> Int8? { u8(i).map { Int8(bitPattern: $0) } }

    /// `size` bytes from `i` as one number, first byte most significant (`bigEndian`) or least.
    private func number(_ i: Int, _ size: Int, bigEndian: Bool) -> UInt64? {
        guard let start = index(i, size) else { return nil }
        var v: UInt64 = 0
        for k in 0..<size {
            let b = UInt64(bytes[start + k])
            v |= bigEndian ? b << (8 * UInt64(size - 1 - k)) : b << (8 * UInt64(k))
        }
        return v
    }

    public func le16(_ i: Int) -> UInt16? { number(i, 2, bigEndian: false).map { UInt16($0) } }
    public func be16(_ i: Int) -> UInt16? { number(i, 2, bigEndian: true).map { UInt16($0) } }
    public func le16s(_ i: Int) -> Int16? { le16(i).map { Int16(bitPattern: $0) } }
    public func be16s(_ i: Int) -> Int16? { be16(i).map { Int16(bitPattern: $0) } }
    public func le24(_ i: Int) -> UInt32? { number(i, 3, bigEndian: false).map { UInt32($0) } }
    public func be24(_ i: Int) -> UInt32? { number(i, 3, bigEndian: true).map { UInt32($0) } }
    public func le32(_ i: Int) -> UInt32? { number(i, 4, bigEndian: false).map { UInt32($0) } }
    public func be32(_ i: Int) -> UInt32? { number(i, 4, bigEndian: true).map { UInt32($0) } }
    /// A little-endian IEEE 754 single at `i`.
    public func float32LE(_ i: Int) -> Float? { le32(i).map { Float(bitPattern: $0) } }

    /// Six bytes at `i` as a device address, least-significant byte first (HCI order, and most
    /// formats' payload MACs).
    public func macLE(_ i: Int) -> BDAddress? { number(i, 6, bigEndian: false).map { BDAddress(rawValue: $0) } }
    /// Six bytes at `i` as a device address in display order (most-significant byte first).
    public func macBE(_ i: Int) -> BDAddress? { number(i, 6, bigEndian: true).map { BDAddress(rawValue: $0) } }

    /// The frame without its first `n` bytes (empty if it has fewer).
    public func dropFirst(_ n: Int) -> Frame { Frame(bytes.dropFirst(max(0, n))) }
    /// The frame's first `n` bytes (all of them if it has fewer).
    public func prefix(_ n: Int) -> Frame { Frame(bytes.prefix(max(0, n))) }
    /// Bytes `range` of the frame, or `nil` unless the range lies inside it.
    public func bytes(_ range: Range<Int>) -> Frame? {
        guard range.lowerBound >= 0, range.upperBound <= count else { return nil }
        return Frame(bytes[(bytes.startIndex + range.lowerBound)..<(bytes.startIndex + range.upperBound)])
    }

    /// True when there are bytes from offset `start` on and every one is 0xFF: a blank or erased
    /// frame, or a field that says "not available".
    public func isAllFF(from start: Int = 0) -> Bool {
        start >= 0 && start < count && bytes.dropFirst(start).allSatisfy { $0 == 0xFF }
    }
}
