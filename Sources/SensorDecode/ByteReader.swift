/// A bounded, forward-only reader over bytes.
///
/// Every read returns `nil` when fewer bytes remain than it needs, so a parser can never read past
/// the end of untrusted input: it checks the optional instead of an index. Value type; copying a
/// reader is how a parser "peeks".
public struct ByteReader: Sendable {
    public let bytes: ArraySlice<UInt8>
    /// Where the next read starts (an index into `bytes`).
    @inlinable public var offset: Int { position }
    // Stored apart from `offset` so that inlined reads in other modules (the HCI parser reads
    // every report with them) may advance it while users only read it.
    @usableFromInline var position: Int

    @inlinable public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    @inlinable public init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    /// Bytes not yet read.
    @inlinable public var remaining: Int { bytes.endIndex - offset }
    @inlinable public var isAtEnd: Bool { offset >= bytes.endIndex }

    @inlinable public mutating func readUInt8() -> UInt8? {
        guard offset < bytes.endIndex else { return nil }
        defer { position += 1 }
        return bytes[offset]
    }

    @inlinable public mutating func readInt8() -> Int8? {
        readUInt8().map { Int8(bitPattern: $0) }
    }

    @inlinable public mutating func readLE16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    @inlinable public mutating func readBE16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position += 2 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    @inlinable public mutating func readLE24() -> UInt32? {
        guard remaining >= 3 else { return nil }
        defer { position += 3 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
    }

    @inlinable public mutating func readLE32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { position += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }

    @inlinable public mutating func readBE32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { position += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    /// The next `count` bytes, or `nil` (and nothing consumed) when fewer remain.
    @inlinable public mutating func readBytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, remaining >= count else { return nil }
        defer { position += count }
        return bytes[offset..<offset + count]
    }

    /// Everything not yet read.
    @inlinable public mutating func readRest() -> ArraySlice<UInt8> {
        defer { position = bytes.endIndex }
        return bytes[offset...]
    }

    @inlinable public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remaining >= count else { return false }
        position += count
        return true
    }
}

/// Fixed-width reads at an offset into a slice whose length the caller has already checked: the
/// readers of `Span` below, on a slice (the HCI parser's packets, tools, tests), offsets from the
/// slice's start.
extension ArraySlice where Element == UInt8 {
    // Always inlined: the registry reads a company id or UUID per structure, and a shared outlined
    // reader was a call each (callgrind).
    @inlinable @inline(__always) public func u8(_ i: Int) -> UInt8 { span.u8(i) }
    @inlinable @inline(__always) public func i8(_ i: Int) -> Int8 { span.i8(i) }
    @inlinable @inline(__always) public func le16(_ i: Int) -> UInt16 { span.le16(i) }
    @inlinable @inline(__always) public func be16(_ i: Int) -> UInt16 { span.be16(i) }
    @inlinable @inline(__always) public func le16s(_ i: Int) -> Int16 { span.le16s(i) }
    @inlinable @inline(__always) public func be16s(_ i: Int) -> Int16 { span.be16s(i) }
    @inlinable @inline(__always) public func le24(_ i: Int) -> UInt32 { span.le24(i) }
    @inlinable @inline(__always) public func be24(_ i: Int) -> UInt32 { span.be24(i) }
    @inlinable @inline(__always) public func le32(_ i: Int) -> UInt32 { span.le32(i) }
    @inlinable @inline(__always) public func be32(_ i: Int) -> UInt32 { span.be32(i) }
    @inlinable @inline(__always) public func allFF(from start: Int = 0) -> Bool { span.allFF(from: start) }
    @inlinable @inline(__always) public func macLE(_ i: Int) -> BDAddress { span.macLE(i) }
    @inlinable @inline(__always) public func macBE(_ i: Int) -> BDAddress { span.macBE(i) }
}

/// Fixed-size numbers at byte offsets of a frame, bounds-checked (an offset past the end traps,
/// as an array index does: decoders check a frame's length before they read it).
///
/// WHY `Span`: decoders read their frames as spans of the advertisement's bytes, borrowed for the
/// length of one decode. A slice per frame held a reference to the buffer, a retain and a release
/// per decoder called, and a span costs neither: ~130 instructions fewer per ThermoBeacon frame
/// (callgrind).
extension Span where Element == UInt8 {
    /// The bytes, copied into an array of their own: for what outlives the view (a decryption's
    /// input, a text made of them).
    public var array: [UInt8] {
        withUnsafeBufferPointer { [UInt8]($0) }
    }
    @inlinable public func u8(_ i: Int) -> UInt8 { self[i] }
    @inlinable public func i8(_ i: Int) -> Int8 { Int8(bitPattern: self[i]) }
    /// A `T` read whole at byte `i`, in memory order: one bounds check of the whole range
    /// (`RawSpan` checks it) where assembling bytes checked each (~4 instructions a byte).
    @inlinable @inline(__always) func load<T: FixedWidthInteger & BitwiseCopyable>(_ i: Int, as: T.Type) -> T {
        bytes.unsafeLoadUnaligned(fromByteOffset: i, as: T.self)
    }
    @inlinable public func le16(_ i: Int) -> UInt16 { UInt16(littleEndian: load(i, as: UInt16.self)) }
    /// `le16(i)` unchecked, for a caller that knows `0 <= i` and `i + 2 <= count`: the registry's
    /// selector keys, at positions the AD walk checked (four instructions a structure fewer).
    @inlinable @inline(__always) func le16(unchecked i: Int) -> UInt16 {
        UInt16(littleEndian: bytes.unsafeLoadUnaligned(fromUncheckedByteOffset: i, as: UInt16.self))
    }
    @inlinable public func be16(_ i: Int) -> UInt16 { UInt16(bigEndian: load(i, as: UInt16.self)) }
    @inlinable public func le16s(_ i: Int) -> Int16 { Int16(bitPattern: le16(i)) }
    @inlinable public func be16s(_ i: Int) -> Int16 { Int16(bitPattern: be16(i)) }
    // The 24-bit reads and `allFF` always inlined: left to the optimiser, they were calls in
    // Govee's decoder (~3 instructions an advertisement, callgrind).
    @inlinable @inline(__always) public func le24(_ i: Int) -> UInt32 { UInt32(le16(i)) | UInt32(self[i + 2]) << 16 }
    @inlinable @inline(__always) public func be24(_ i: Int) -> UInt32 { UInt32(be16(i)) << 8 | UInt32(self[i + 2]) }
    @inlinable public func le32(_ i: Int) -> UInt32 { UInt32(littleEndian: load(i, as: UInt32.self)) }
    @inlinable public func be32(_ i: Int) -> UInt32 { UInt32(bigEndian: load(i, as: UInt32.self)) }
    /// True when there are bytes from offset `start` on and every one is 0xFF: a blank or erased
    /// frame, or a field that says "not available".
    @inlinable @inline(__always) public func allFF(from start: Int = 0) -> Bool {
        guard start < count else { return false }
        for i in start..<count where self[i] != 0xFF { return false }
        return true
    }
    /// Six bytes at `i` as a device address, least-significant byte first (HCI order, and most
    /// formats' payload MACs). Two whole reads (32 and 16 bits), not the generic byte-sequence
    /// init.
    @inlinable @inline(__always) public func macLE(_ i: Int) -> BDAddress {
        BDAddress(rawValue: UInt64(le32(i)) | UInt64(le16(i + 4)) << 32)
    }
    /// Six bytes at `i` as a device address in display order (most-significant byte first).
    @inlinable @inline(__always) public func macBE(_ i: Int) -> BDAddress {
        BDAddress(rawValue: UInt64(be32(i)) << 16 | UInt64(be16(i + 4)))
    }
}
