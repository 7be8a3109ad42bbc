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

    /// Parses `AA:BB:CC:DD:EE:FF` (also `-` separated, or 12 bare hex digits), any case.
    public init?<S: StringProtocol>(_ text: S) {
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
        Hex.ascii(count: 17) { out in
            for i in 0..<6 {
                let b = UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64(5 - i)))
                out[3 * i] = Hex.digit(b >> 4, uppercase: true)
                out[3 * i + 1] = Hex.digit(b & 0x0F, uppercase: true)
                if i < 5 { out[3 * i + 2] = UInt8(ascii: ":") }
            }
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

/// Everything an advertising report says of an advertisement but its bytes: address and type,
/// event type, RSSI, PHYs, advertising set and receive time. Plain values (`BitwiseCopyable`), so
/// that a decode given a header and a view of the bytes (`Registry.decode(_:_:into:)`) copies and
/// destroys nothing that is reference counted.
public struct AdvertisementHeader: Sendable, Equatable, BitwiseCopyable {
    @inlinable public var address: BDAddress {
        get { BDAddress(rawValue: fields[0]) }  // the low 48 bits
        set { fields[0] = fields[0] & ~0xFFFF_FFFF_FFFF | newValue.rawValue }
    }
    @inlinable public var addressType: AddressType {
        get { AddressType(rawValue: UInt8(truncatingIfNeeded: fields[0] >> 48)) }
        set { fields[0] = fields[0] & ~(0xFF << 48) | UInt64(newValue.rawValue) << 48 }
    }
    /// Legacy event types 0–4 as in the 0x02 report; extended reports keep their 16-bit property bits.
    @inlinable public var eventType: UInt16 {
        get { UInt16(truncatingIfNeeded: fields[1]) }
        set { fields[1] = fields[1] & ~0xFFFF | UInt64(newValue) }
    }
    /// dBm; `nil` when the controller says "not available" (127).
    @inlinable public var rssi: Int8? {
        get { byte(Self.rssiField).map { Int8(bitPattern: $0) } }
        set { setByte(Self.rssiField, newValue.map { UInt8(bitPattern: $0) }) }
    }
    /// Primary / secondary PHY from an extended report (1 = 1M, 2 = 2M, 3 = Coded); `nil` for legacy.
    @inlinable public var primaryPHY: UInt8? {
        get { byte(Self.primaryPHYField) }
        set { setByte(Self.primaryPHYField, newValue) }
    }
    @inlinable public var secondaryPHY: UInt8? {
        get { byte(Self.secondaryPHYField) }
        set { setByte(Self.secondaryPHYField, newValue) }
    }
    /// Advertising set id from an extended report; `nil` for legacy or "no ADI".
    @inlinable public var sid: UInt8? {
        get { byte(Self.sidField) }
        set { setByte(Self.sidField, newValue) }
    }
    /// Receive time, microseconds since the Unix epoch (UTC). 0 when unknown.
    public var timeMicros: Int64

    /// The fields above but `timeMicros`, packed in two words. WHY: outside the file that
    /// declares it, the compiler (Swift 6.3) copies and destroys a struct of more than six scalars
    /// through the type's value witnesses, outlined calls. With each field of an `Advertisement`
    /// stored apart (nine fields, its bytes alone four scalars) each advertisement decoded was
    /// copied twice and destroyed twice that way; one vector of two words keeps it at six: decode
    /// 1,287 -> 1,221 instructions per advertisement (callgrind; the bench's instruction counts
    /// show it if a compiler changes).
    ///
    /// Layout: `fields[0]` = address (bits 0–47) | address type (48–55); `fields[1]` = event type
    /// (0–15) | four optional bytes at bits 16, 24, 32, 40 (RSSI, primary PHY, secondary PHY,
    /// SID) | which of them are present, a bit each at 48 + field number.
    @usableFromInline var fields: SIMD2<UInt64>
    @inlinable static var rssiField: Int { 0 }
    @inlinable static var primaryPHYField: Int { 1 }
    @inlinable static var secondaryPHYField: Int { 2 }
    @inlinable static var sidField: Int { 3 }

    @inlinable @inline(__always) func byte(_ field: Int) -> UInt8? {
        let word = fields[1]
        guard word & (1 << (48 + UInt64(field))) != 0 else { return nil }
        return UInt8(truncatingIfNeeded: word >> (16 + 8 * UInt64(field)))
    }

    @inlinable @inline(__always) mutating func setByte(_ field: Int, _ value: UInt8?) {
        fields[1] = fields[1] & ~(0xFF << (16 + 8 * UInt64(field)) | 1 << (48 + UInt64(field)))
            | Self.packed(field, value)
    }

    /// An optional byte in its place in `fields[1]`, with its presence bit; 0 for `nil`.
    @inlinable @inline(__always) static func packed(_ field: Int, _ value: UInt8?) -> UInt64 {
        guard let value else { return 0 }
        return UInt64(value) << (16 + 8 * UInt64(field)) | 1 << (48 + UInt64(field))
    }

    // Inlinable: the scanner makes one per report, and as a call the packing cost more than the
    // copies it saves (callgrind).
    @inlinable public init(
        address: BDAddress = BDAddress(rawValue: 0), addressType: AddressType = .publicDevice, eventType: UInt16 = 0,
        rssi: Int8? = nil, primaryPHY: UInt8? = nil, secondaryPHY: UInt8? = nil, sid: UInt8? = nil,
        timeMicros: Int64 = 0
    ) {
        fields = SIMD2(
            address.rawValue | UInt64(addressType.rawValue) << 48,
            UInt64(eventType) | Self.packed(Self.rssiField, rssi.map { UInt8(bitPattern: $0) })
                | Self.packed(Self.primaryPHYField, primaryPHY) | Self.packed(Self.secondaryPHYField, secondaryPHY)
                | Self.packed(Self.sidField, sid))
        self.timeMicros = timeMicros
    }
}

/// One advertising report as the controller delivered it, owning its bytes: the unit tools, tests
/// and the live scanner pass around. Decoders read it through an `ADView` (its header and a view
/// of its bytes).
///
/// Built by AdvScanner from LE Advertising Report (0x02) or LE Extended Advertising Report (0x0D)
/// events, or by hand (the `decode` command, tests). Lives in SensorDecode so that decoders need
/// nothing from the scanner, and the scanner nothing but this type from the decoders.
@dynamicMemberLookup
public struct Advertisement: Sendable, Equatable {
    /// Everything but the bytes.
    public var header: AdvertisementHeader
    /// The AD structures, exactly as received: a view into the HCI packet that carried them, or
    /// bytes of their own.
    public var data: ArraySlice<UInt8>

    /// The header's fields, read and written as the advertisement's own (`ad.address`).
    @inlinable public subscript<T>(dynamicMember field: WritableKeyPath<AdvertisementHeader, T>) -> T {
        get { header[keyPath: field] }
        set { header[keyPath: field] = newValue }
    }

    @inlinable public init(header: AdvertisementHeader, data: ArraySlice<UInt8>) {
        self.header = header
        self.data = data
    }

    @inlinable public init(
        address: BDAddress, addressType: AddressType = .publicDevice, eventType: UInt16 = 0, rssi: Int8? = nil,
        primaryPHY: UInt8? = nil, secondaryPHY: UInt8? = nil, sid: UInt8? = nil, data: ArraySlice<UInt8>,
        timeMicros: Int64 = 0
    ) {
        header = AdvertisementHeader(
            address: address, addressType: addressType, eventType: eventType, rssi: rssi, primaryPHY: primaryPHY,
            secondaryPHY: secondaryPHY, sid: sid, timeMicros: timeMicros)
        self.data = data
    }

    public init(
        address: BDAddress, addressType: AddressType = .publicDevice, eventType: UInt16 = 0, rssi: Int8? = nil,
        primaryPHY: UInt8? = nil, secondaryPHY: UInt8? = nil, sid: UInt8? = nil, data: [UInt8], timeMicros: Int64 = 0
    ) {
        self.init(
            address: address, addressType: addressType, eventType: eventType, rssi: rssi, primaryPHY: primaryPHY,
            secondaryPHY: secondaryPHY, sid: sid, data: data[...], timeMicros: timeMicros)
    }
}
