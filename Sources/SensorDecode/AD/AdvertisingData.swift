/// Advertising Data (AD structures), Core Specification Supplement Part A. The payload is a
/// sequence of `length | type | value[length-1]`; a zero length ends the significant part (the
/// rest is padding).
///
/// The walk is exhaustive about lengths, in the manner of btmon's `print_eir`:
///  - it stops at a zero length (clean end) or at a structure whose length runs past the buffer
///    (`truncated`), keeping every structure before it;
///  - a field whose value has the wrong size for its type (flags without a byte, a TX power of two
///    bytes, a UUID list that is not a whole number of UUIDs) is skipped and counted in
///    `malformedFields`; it is never half-read;
///  - unknown types are kept in `other`, so `--all` can show them.
///
/// Invariant: every `Field.value` lies inside `bytes` (the walk checks each structure's length
/// against the bytes left before keeping it).
public struct AdvertisingData: Sendable {
    /// The bytes walked; every field is a slice of them.
    public let bytes: ArraySlice<UInt8>
    public private(set) var flags: UInt8?
    public private(set) var localNameIsComplete = false
    public private(set) var txPower: Int8?
    public private(set) var appearance: UInt16?
    /// A structure's length ran past the end of the data; everything before it was kept.
    public private(set) var truncated = false
    /// Structures of a known type whose value had an impossible size; skipped.
    public private(set) var malformedFields = 0

    /// One kept structure: its AD type and where its value lies in `bytes` (indices of `bytes`).
    struct Field: Sendable {
        enum Kind: Sendable { case uuids, serviceData, manufacturer, other }
        let kind: Kind
        let type: UInt8
        let value: Range<Int>
    }
    private(set) var fields: [Field] = []
    private(set) var localNameRange: Range<Int>?

    /// The most bytes walked: positions past it are not read (advertising data is at most 1,650
    /// bytes, Core spec), and a longer buffer is called truncated there.
    static let maxWalked = 0xFFFF

    public init() { self.init(parsing: ArraySlice<UInt8>()) }
    public init(parsing bytes: [UInt8]) { self.init(parsing: bytes[...]) }

    /// Walks the AD structures of `bytes`. Never fails: problems are recorded in `truncated` and
    /// `malformedFields`. Fields are slices of `bytes` (no copies).
    public init(parsing bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        let end = bytes.startIndex + min(bytes.count, Self.maxWalked)
        if bytes.count > Self.maxWalked { truncated = true }
        fields.reserveCapacity(bytes.count / 3 + 1)  // a structure is at least 2 bytes, most are 3 or more
        var i = bytes.startIndex
        while i < end {
            let length = Int(bytes[i])
            if length == 0 { break }  // zero length: end of significant part
            guard length <= end - i - 1 else {  // runs past the buffer
                truncated = true
                break
            }
            interpret(type: bytes[i + 1], value: (i + 2)..<(i + 1 + length))
            i += 1 + length
        }
    }

    private mutating func interpret(type: UInt8, value: Range<Int>) {
        let count = value.count
        switch type {
        case ADType.flags:
            guard count >= 1 else { malformedFields += 1; return }
            flags = bytes[value.lowerBound]
        case ADType.incompleteUUID16, ADType.completeUUID16, ADType.incompleteUUID32, ADType.completeUUID32,
            ADType.incompleteUUID128, ADType.completeUUID128:
            // A UUID list must be a whole number of UUIDs; otherwise none of it is read.
            guard count % ADType.uuidSize(listType: type) == 0 else { malformedFields += 1; return }
            fields.append(Field(kind: .uuids, type: type, value: value))
        case ADType.shortenedLocalName, ADType.completeLocalName:
            // A complete name wins over a shortened one, whichever comes first.
            if localNameRange == nil || type == ADType.completeLocalName {
                localNameRange = value
                localNameIsComplete = type == ADType.completeLocalName
            }
        case ADType.txPowerLevel:
            guard count == 1 else { malformedFields += 1; return }
            txPower = Int8(bitPattern: bytes[value.lowerBound])
        case ADType.appearance:
            guard count == 2 else { malformedFields += 1; return }
            appearance = UInt16(bytes[value.lowerBound]) | UInt16(bytes[value.lowerBound + 1]) << 8
        case ADType.serviceData16, ADType.serviceData32, ADType.serviceData128:
            guard count >= ADType.uuidSize(serviceDataType: type) else { malformedFields += 1; return }
            fields.append(Field(kind: .serviceData, type: type, value: value))
        case ADType.manufacturerSpecific:
            guard count >= 2 else { malformedFields += 1; return }
            fields.append(Field(kind: .manufacturer, type: type, value: value))
        default:
            fields.append(Field(kind: .other, type: type, value: value))
        }
    }

    /// Raw name bytes as broadcast (untrusted: any bytes, not necessarily UTF-8).
    public var localName: ArraySlice<UInt8>? { localNameRange.map { bytes[$0] } }

    /// The local name with control characters and invalid UTF-8 made harmless, for display.
    public var displayName: String? { localName.map { DisplayText.escape($0) } }

    /// Service UUIDs from the complete and incomplete lists of all three sizes, in order.
    public var serviceUUIDs: [ServiceUUID] {
        var out: [ServiceUUID] = []
        for f in fields where f.kind == .uuids {
            let size = ADType.uuidSize(listType: f.type)
            for start in stride(from: f.value.lowerBound, to: f.value.upperBound, by: size) {
                out.append(ServiceUUID(littleEndian: bytes[start..<(start + size)]))
            }
        }
        return out
    }

    /// Service data of all three UUID sizes, in order (made as read).
    public var serviceData: some BidirectionalCollection<ServiceData> {
        fields.lazy.filter { $0.kind == .serviceData }.map { f in
            let size = ADType.uuidSize(serviceDataType: f.type)
            let split = f.value.lowerBound + size
            return ServiceData(
                uuid: ServiceUUID(littleEndian: bytes[f.value.lowerBound..<split]), data: bytes[split..<f.value.upperBound])
        }
    }

    /// Manufacturer-specific data, in order (made as read).
    public var manufacturerData: some BidirectionalCollection<ManufacturerData> {
        // The walk kept only values of at least two bytes.
        fields.lazy.filter { $0.kind == .manufacturer }.map { ManufacturerData(checked: self.bytes[$0.value]) }
    }

    /// Structures of types not interpreted above: (type, value).
    public var other: [(type: UInt8, value: ArraySlice<UInt8>)] {
        fields.filter { $0.kind == .other }.map { ($0.type, bytes[$0.value]) }
    }

    /// The value of the first 16-bit service data structure for `uuid16`, after the UUID.
    public func serviceData(uuid16: UInt16) -> Frame? {
        for f in fields where f.kind == .serviceData && f.type == ADType.serviceData16 && key(f) == uuid16 {
            return Frame(bytes[(f.value.lowerBound + 2)..<f.value.upperBound])
        }
        return nil
    }

    /// The first two bytes of a field's value, little-endian: a 16-bit service UUID or a company
    /// id (the walk keeps such fields only with at least two bytes).
    func key(_ f: Field) -> UInt16 { UInt16(bytes[f.value.lowerBound]) | UInt16(bytes[f.value.lowerBound + 1]) << 8 }

    /// The value of the first manufacturer-specific structure with this company id, after the id.
    public func manufacturerData(company: UInt16) -> Frame? {
        for f in fields where f.kind == .manufacturer && key(f) == company {
            return Frame(bytes[(f.value.lowerBound + 2)..<f.value.upperBound])
        }
        return nil
    }
}

/// Equal when every field reads the same, whatever buffer each was parsed from.
extension AdvertisingData: Equatable {
    public static func == (a: AdvertisingData, b: AdvertisingData) -> Bool {
        a.flags == b.flags && a.localName == b.localName && a.localNameIsComplete == b.localNameIsComplete
            && a.serviceUUIDs == b.serviceUUIDs && a.serviceData.elementsEqual(b.serviceData)
            && a.manufacturerData.elementsEqual(b.manufacturerData) && a.txPower == b.txPower
            && a.appearance == b.appearance
            && a.other.elementsEqual(b.other, by: { $0.type == $1.type && $0.value == $1.value })
            && a.truncated == b.truncated && a.malformedFields == b.malformedFields
    }
}
