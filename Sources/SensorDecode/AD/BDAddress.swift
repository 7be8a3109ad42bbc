/// A Bluetooth device address, kept as the 48-bit number printed most-significant byte first
/// (`AA:BB:CC:DD:EE:FF` is `0xAABBCCDDEEFF`). HCI carries it little-endian; see `init(littleEndian:)`.
public struct BDAddress: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue & 0xFFFF_FFFF_FFFF }

    /// From six bytes in HCI order (least-significant first); `nil` unless exactly six.
    public init?<C: Collection>(littleEndian bytes: C) where C.Element == UInt8 {
        guard bytes.count == 6 else { return nil }
        var v: UInt64 = 0
        for (i, b) in bytes.enumerated() { v |= UInt64(b) << (8 * UInt64(i)) }
        self.rawValue = v
    }

    /// From six bytes in display order (most-significant first); `nil` unless exactly six.
    public init?<C: Collection>(bigEndian bytes: C) where C.Element == UInt8 {
        guard bytes.count == 6 else { return nil }
        var v: UInt64 = 0
        for b in bytes { v = v << 8 | UInt64(b) }
        self.rawValue = v
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (also `-` separated, or 12 bare hex digits), any case. (The
    /// `String` overload gives callers in other modules this module's specialised parse, where
    /// the generic one walks the text through protocol calls.)
    public init?(_ text: String) { self.init(parsing: text) }
    public init?<S: StringProtocol>(_ text: S) { self.init(parsing: text) }

    private init?<S: StringProtocol>(parsing text: S) {
        let digits = text.utf8.filter { $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: "-") }
        guard digits.count == 12, text.utf8.count == 12 || text.utf8.count == 17 else { return nil }
        if text.utf8.count == 17 {
            // Separators must sit between the byte pairs, nowhere else.
            for (i, c) in text.utf8.enumerated() where i % 3 == 2 {
                guard c == UInt8(ascii: ":") || c == UInt8(ascii: "-") else { return nil }
            }
        }
        guard let bytes = Hex.decode(String(decoding: digits, as: UTF8.self)) else { return nil }
        self.init(bigEndian: bytes)
    }

    /// Six bytes, most-significant first.
    public var bigEndianBytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64(5 - $0))) } }
    /// Six bytes, least-significant first (HCI order).
    public var littleEndianBytes: [UInt8] { bigEndianBytes.reversed() }

    public var description: String {
        var text: [UInt8] = []
        text.reserveCapacity(17)
        appendText(to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the address as text (`AA:BB:CC:DD:EE:FF`) to UTF-8 `text`.
    func appendText(to text: inout [UInt8]) {
        for i in 0..<6 {
            let b = UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64(5 - i)))
            if i > 0 { text.append(UInt8(ascii: ":")) }
            text.append(Hex.digit(b >> 4, uppercase: true))
            text.append(Hex.digit(b & 0x0F, uppercase: true))
        }
    }

    public static func < (a: BDAddress, b: BDAddress) -> Bool { a.rawValue < b.rawValue }
}

/// The address type of an advertiser, as HCI LE reports give it (Core spec Vol 4 Part E 7.7.65.2).
public struct AddressType: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let publicDevice = AddressType(rawValue: 0x00)
    public static let randomDevice = AddressType(rawValue: 0x01)
    public static let publicIdentity = AddressType(rawValue: 0x02)
    public static let randomIdentity = AddressType(rawValue: 0x03)
    public static let anonymous = AddressType(rawValue: 0xFF)

    public var description: String {
        switch rawValue {
        case 0x00: "public"
        case 0x01: "random"
        case 0x02: "public-identity"
        case 0x03: "random-identity"
        case 0xFF: "anonymous"
        default: "type-\(rawValue)"
        }
    }
}
