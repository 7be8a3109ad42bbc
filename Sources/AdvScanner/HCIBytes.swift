import SensorDecode

// Byte reads of HCI event parameters: the parser checks each length against the bytes left
// before it reads (`HCIEvent.parse`, `checkReports`), so these trap on a bug, never on input.

/// Positions of values inside a byte buffer: how many there are, and four of them inline — the
/// first four, or the four from a later ordinal (`window`). The HCI parser records each report of an
/// event in one. No array: a report list stays plain values. An HCI event of more than four reports is checked
/// again for the rest (`AdvertisingReports`): at most 255 bytes, so the cost stays bounded.
struct InlinePositions: Sendable, BitwiseCopyable {
    /// Where one value lies, `offset` bytes from the start of the indexed buffer and `length` long,
    /// and its AD type. Packed in 32 bits (offset < 2^16, length and type < 2^8): an AD structure's
    /// value is at most 254 bytes, an HCI report at most 254, and the walks index at most the first
    /// 65,535 bytes of a buffer; small entries keep a whole advertisement's index a few words.
    struct Entry: Sendable, BitwiseCopyable {
        let packed: UInt32
        init(type: UInt8, offset: Int, length: Int) {
            packed = UInt32(truncatingIfNeeded: offset) & 0xFFFF | UInt32(length & 0xFF) << 16 | UInt32(type) << 24
        }
        var offset: Int { Int(packed & 0xFFFF) }
        var length: Int { Int((packed >> 16) & 0xFF) }
        var type: UInt8 { UInt8(truncatingIfNeeded: packed >> 24) }
        /// The value's bytes without their first `skip`, counted from the buffer's start.
        func range(from skip: Int = 0) -> Range<Int> { (offset + skip)..<(offset + length) }
        /// The largest offset an entry can hold.
        static let maxOffset = 0xFFFF
    }

    static let inlineCount = 4
    /// The held entries, `entries[0..<min(count - window, 4)]`.
    var entries = InlineArray<4, Entry>(repeating: Entry(type: 0, offset: 0, length: 0))
    /// Entries in the whole buffer (an AD structure and an HCI report are at least two bytes, so
    /// fewer than 2^15 fit in the 65,535 bytes indexed).
    var total: UInt16 = 0
    /// The ordinal of `e0`: a multiple of four, 0 after a normal walk.
    let window: UInt16

    /// Keeps the four entries from ordinal `window` on: 0, or `window(holding:)` of an entry.
    init(window: Int = 0) { self.window = UInt16(window) }

    /// The window that holds the `k`-th entry.
    static func window(holding k: Int) -> Int { k - k % inlineCount }

    var count: Int { Int(total) }

    /// Whether the `k`-th entry is one of the four held.
    func holds(_ k: Int) -> Bool {
        k &- Int(window) >= 0 && k &- Int(window) < Self.inlineCount
    }

    /// Counts an entry, and holds it if it falls in the window; returns whether it does.
    @discardableResult mutating func append(_ e: Entry) -> Bool {
        let slot = Int(total) &- Int(window)
        total &+= 1  // fewer than 2^15 entries fit in the bytes indexed (above)
        // Counted only past the window: the owner keeps it elsewhere, or finds it again.
        guard slot >= 0 && slot < Self.inlineCount else { return false }
        entries[slot] = e
        return true
    }

    /// The `k`-th entry, which must be held (`holds`).
    subscript(k: Int) -> Entry {
        precondition(holds(k) && k < count, "entry outside the window")
        return entries[k - Int(window)]
    }
}

/// Little-endian reads at offsets the parser has checked (from the slice's start); an offset
/// past the end traps, as an array index does.
extension ArraySlice where Element == UInt8 {
    func u8(_ i: Int) -> UInt8 { self[startIndex + i] }
    func le16(_ i: Int) -> UInt16 { UInt16(u8(i)) | UInt16(u8(i + 1)) << 8 }
}

/// The same reads of a view of a packet's bytes.
extension Span where Element == UInt8 {
    func u8(_ i: Int) -> UInt8 { self[i] }
    func i8(_ i: Int) -> Int8 { Int8(bitPattern: self[i]) }
    func le16(_ i: Int) -> UInt16 { UInt16(self[i]) | UInt16(self[i + 1]) << 8 }
    /// Six bytes at `i` as a device address, least-significant byte first (HCI order).
    func macLE(_ i: Int) -> BDAddress {
        BDAddress(rawValue: (0..<6).reduce(0) { $0 | UInt64(self[i + $1]) << (8 * UInt64($1)) })
    }
}
