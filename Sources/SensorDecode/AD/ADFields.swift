/// The AD types we interpret, by their assigned numbers (Assigned Numbers, "Common Data Types").
public enum ADType {
    public static let flags: UInt8 = 0x01
    public static let incompleteUUID16: UInt8 = 0x02
    public static let completeUUID16: UInt8 = 0x03
    public static let incompleteUUID32: UInt8 = 0x04
    public static let completeUUID32: UInt8 = 0x05
    public static let incompleteUUID128: UInt8 = 0x06
    public static let completeUUID128: UInt8 = 0x07
    public static let shortenedLocalName: UInt8 = 0x08
    public static let completeLocalName: UInt8 = 0x09
    public static let txPowerLevel: UInt8 = 0x0A
    public static let serviceData16: UInt8 = 0x16
    public static let appearance: UInt8 = 0x19
    public static let serviceData32: UInt8 = 0x20
    public static let serviceData128: UInt8 = 0x21
    public static let manufacturerSpecific: UInt8 = 0xFF

    /// The size of one UUID in a UUID list of this type (0x02–0x07).
    static func uuidSize(listType type: UInt8) -> Int {
        switch type {
        case incompleteUUID16, completeUUID16: 2
        case incompleteUUID32, completeUUID32: 4
        default: 16
        }
    }

    /// The size of the UUID that starts a service data value of this type (0x16, 0x20, 0x21).
    static func uuidSize(serviceDataType type: UInt8) -> Int {
        switch type {
        case serviceData16: 2
        case serviceData32: 4
        default: 16
        }
    }
}

/// A service UUID of any of the three sizes.
public enum ServiceUUID: Hashable, Sendable, CustomStringConvertible {
    case uuid16(UInt16)
    case uuid32(UInt32)
    /// 16 bytes, most-significant first (the order of the canonical text form).
    case uuid128([UInt8])

    /// From its bytes as AD carries them (least-significant first): 2, 4 or 16 of them.
    init(littleEndian bytes: ArraySlice<UInt8>) {
        let frame = Frame(bytes)
        switch bytes.count {
        case 2: self = .uuid16(frame.le16(0) ?? 0)
        case 4: self = .uuid32(frame.le32(0) ?? 0)
        default: self = .uuid128(bytes.reversed())
        }
    }

    /// Whether `bytes`, as AD carries a UUID (least-significant first), are this UUID.
    func isEqual(toLittleEndian bytes: ArraySlice<UInt8>) -> Bool {
        let frame = Frame(bytes)
        switch self {
        case .uuid16(let v): return bytes.count == 2 && frame.le16(0) == v
        case .uuid32(let v): return bytes.count == 4 && frame.le32(0) == v
        case .uuid128(let msbFirst): return bytes.count == 16 && bytes.reversed().elementsEqual(msbFirst)
        }
    }

    public var description: String {
        switch self {
        case .uuid16(let v): Hex.encode([UInt8(v >> 8), UInt8(v & 0xFF)])
        case .uuid32(let v): Hex.encode([UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)])
        case .uuid128(let b): Hex.uuidText(b)
        }
    }
}

public struct ServiceData: Sendable, Equatable {
    public init(uuid: ServiceUUID, data: ArraySlice<UInt8>) {
        self.uuid = uuid
        self.data = data
    }
    public var uuid: ServiceUUID
    public var data: ArraySlice<UInt8>
}

public struct ManufacturerData: Sendable, Equatable {
    /// The whole value including the two company-id bytes: some vendors (Inkbird, ThermoBeacon, Govee)
    /// put measurements where the company id should be. At least two bytes.
    public let value: ArraySlice<UInt8>

    /// Company identifier (little-endian on air).
    public var companyID: UInt16 { UInt16(value[value.startIndex]) | UInt16(value[value.startIndex + 1]) << 8 }
    /// The bytes after the company identifier.
    public var data: ArraySlice<UInt8> { value.dropFirst(2) }
    /// The whole value, company id bytes included, as a frame.
    public var frame: Frame { Frame(value) }
    /// The bytes after the company identifier, as a frame.
    public var payload: Frame { Frame(data) }

    /// A value known to hold a company id.
    init(checked value: ArraySlice<UInt8>) { self.value = value }

    /// `nil` when `value` is too short to hold a company id.
    public init?(value: ArraySlice<UInt8>) {
        guard value.count >= 2 else { return nil }
        self.value = value
    }
}
