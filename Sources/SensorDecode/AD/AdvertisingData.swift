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
/// against the bytes left before yielding it). Nothing is kept per structure: the properties
/// below are read in the one walk of `init`, and `fields` walks the bytes again when asked (an
/// advertisement has a handful of structures), so parsing one allocates nothing.
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
    private(set) var localNameRange: Range<Int>?

    /// One kept structure: its AD type and where its value lies in `bytes` (indices of `bytes`).
    struct Field: Sendable {
        enum Kind: Sendable { case uuids, serviceData, manufacturer, other }
        let kind: Kind
        let type: UInt8
        let value: Range<Int>

        /// The kind of a structure kept as a field; `nil` for the types read into the properties
        /// (flags, names, TX power, appearance) and for a value whose size is impossible for its
        /// type (a UUID list that is not a whole number of UUIDs, service data shorter than its
        /// UUID, manufacturer data without a company id).
        static func kind(type: UInt8, count: Int) -> Kind? {
            switch type {
            case ADType.incompleteUUID16, ADType.completeUUID16, ADType.incompleteUUID32, ADType.completeUUID32,
                ADType.incompleteUUID128, ADType.completeUUID128:
                count % ADType.uuidSize(listType: type) == 0 ? .uuids : nil
            case ADType.serviceData16, ADType.serviceData32, ADType.serviceData128:
                count >= ADType.uuidSize(serviceDataType: type) ? .serviceData : nil
            case ADType.manufacturerSpecific: count >= 2 ? .manufacturer : nil
            case ADType.flags, ADType.shortenedLocalName, ADType.completeLocalName, ADType.txPowerLevel,
                ADType.appearance:
                nil
            default: .other
            }
        }
    }

    /// The whole structures of `bytes[startIndex..<endIndex]` in order, each as its type and
    /// where its value lies. Invariant (from the walk in `init`): a length byte at every index
    /// from `startIndex` on, each structure whole and inside `bytes`, the last ending at `endIndex`.
    struct Structures: Collection {
        let bytes: ArraySlice<UInt8>
        let startIndex: Int
        let endIndex: Int
        subscript(i: Int) -> (type: UInt8, value: Range<Int>) { (bytes[i + 1], (i + 2)..<(i + 1 + Int(bytes[i]))) }
        func index(after i: Int) -> Int { i + 1 + Int(bytes[i]) }
    }

    /// Where the walk stopped: `bytes[..<walkedEnd]` is whole structures (see `Structures`).
    private var walkedEnd: Int
    var structures: Structures { Structures(bytes: bytes, startIndex: bytes.startIndex, endIndex: walkedEnd) }

    /// The kept structures that are `Element`s, in order (walked again on each use: no list is built).
    func fields<Element: ADFieldElement>(_: Element.Type = Element.self) -> ADFieldList<Element> {
        ADFieldList(structures: structures)
    }

    /// The most bytes walked: positions past it are not read (advertising data is at most 1,650
    /// bytes, Core spec), and a longer buffer is called truncated there.
    static let maxWalked = 0xFFFF

    public init() { self.init(parsing: ArraySlice<UInt8>()) }
    public init(parsing bytes: [UInt8]) { self.init(parsing: bytes[...]) }

    /// Walks the AD structures of `bytes`. Never fails: problems are recorded in `truncated` and
    /// `malformedFields`. Fields are slices of `bytes` (no copies).
    public init(parsing bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        walkedEnd = bytes.startIndex
        let end = bytes.startIndex + min(bytes.count, Self.maxWalked)
        if bytes.count > Self.maxWalked { truncated = true }
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
        walkedEnd = i
    }

    private mutating func interpret(type: UInt8, value: Range<Int>) {
        let count = value.count
        switch type {
        case ADType.flags:
            guard count >= 1 else { malformedFields += 1; return }
            flags = bytes[value.lowerBound]
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
        default:
            if Field.kind(type: type, count: count) == nil { malformedFields += 1 }
        }
    }

    /// Raw name bytes as broadcast (untrusted: any bytes, not necessarily UTF-8).
    public var localName: ArraySlice<UInt8>? { localNameRange.map { bytes[$0] } }

    /// The local name with control characters and invalid UTF-8 made harmless, for display.
    public var displayName: String? { localName.map { DisplayText.escape($0) } }

    /// Service UUIDs from the complete and incomplete lists of all three sizes, in order.
    public var serviceUUIDs: [ServiceUUID] {
        var out: [ServiceUUID] = []
        for list in fields(UUIDList.self) {
            for start in stride(from: list.value.lowerBound, to: list.value.upperBound, by: list.size) {
                out.append(ServiceUUID(littleEndian: bytes[start..<(start + list.size)]))
            }
        }
        return out
    }

    /// Whether a service UUID list carries `uuid` (walked in place: `serviceUUIDs` builds a list).
    public func listsServiceUUID(_ uuid: ServiceUUID) -> Bool {
        for list in fields(UUIDList.self) {
            for start in stride(from: list.value.lowerBound, to: list.value.upperBound, by: list.size)
            where uuid.isEqual(toLittleEndian: bytes[start..<(start + list.size)]) {
                return true
            }
        }
        return false
    }

    /// Service data of all three UUID sizes, in order (made as read).
    public var serviceData: some Collection<ServiceData> { fields(ServiceData.self) }

    /// Manufacturer-specific data, in order (made as read).
    public var manufacturerData: some Collection<ManufacturerData> { fields(ManufacturerData.self) }

    /// Structures of types not interpreted above: (type, value).
    public var other: [(type: UInt8, value: ArraySlice<UInt8>)] {
        fields(OtherStructure.self).map { ($0.type, $0.value) }
    }

    /// The value of the first 16-bit service data structure for `uuid16`, after the UUID.
    public func serviceData(uuid16: UInt16) -> Frame? { value(type: ADType.serviceData16, key: uuid16) }

    /// The value of the first manufacturer-specific structure with this company id, after the id.
    public func manufacturerData(company: UInt16) -> Frame? {
        value(type: ADType.manufacturerSpecific, key: company)
    }

    /// The value after the key of the first structure of `type` whose first two bytes, little-endian,
    /// are `key`.
    private func value(type: UInt8, key: UInt16) -> Frame? {
        var i = bytes.startIndex
        while i < walkedEnd {
            let length = Int(bytes[i])
            // A key needs two bytes of value: a length of at least 3 with the type byte.
            if bytes[i + 1] == type, length >= 3, self.key((i + 2)..<(i + 1 + length)) == key {
                return Frame(bytes[(i + 4)..<(i + 1 + length)])
            }
            i += 1 + length
        }
        return nil
    }

    /// Calls `body` with the type, key (16-bit UUID or company id) and where the value lies of every
    /// 16-bit service data and manufacturer-specific structure, in order: what the registry
    /// selects decoders by. (The walk in `init` kept only such values of at least two bytes.)
    func forEachKeyed(_ body: (_ type: UInt8, _ key: UInt16, _ value: Range<Int>) -> Void) {
        var i = bytes.startIndex
        while i < walkedEnd {
            let length = Int(bytes[i])
            let type = bytes[i + 1]
            if (type == ADType.serviceData16 || type == ADType.manufacturerSpecific) && length >= 3 {
                let value = (i + 2)..<(i + 1 + length)
                body(type, key(value), value)
            }
            i += 1 + length
        }
    }

    /// The first two bytes of a value, little-endian: a 16-bit service UUID or a company id (the
    /// walk keeps such fields only with at least two bytes).
    func key(_ value: Range<Int>) -> UInt16 { UInt16(bytes[value.lowerBound]) | UInt16(bytes[value.lowerBound + 1]) << 8 }
}

/// What one kind of kept structure reads as: the registry of `ADFieldList`'s element types.
protocol ADFieldElement {
    /// The kind of structure these are.
    static var kind: AdvertisingData.Field.Kind { get }
    /// The element of the structure of `type` whose value is `bytes[value]` (its size checked by
    /// `Field.kind`).
    init(_ bytes: ArraySlice<UInt8>, type: UInt8, value: Range<Int>)
}

/// The kept structures of one kind in an advertisement's AD bytes, in order, each made into an
/// `Element` as it is read: a collection over the bytes themselves, so reading one allocates
/// nothing.
struct ADFieldList<Element: ADFieldElement>: Collection {
    let structures: AdvertisingData.Structures

    /// Positions of the structures, in `AdvertisingData.bytes`.
    typealias Index = Int

    var startIndex: Int { firstKept(from: structures.startIndex) }
    var endIndex: Int { structures.endIndex }
    func index(after i: Int) -> Int { firstKept(from: structures.index(after: i)) }
    subscript(i: Int) -> Element {
        let s = structures[i]
        return Element(structures.bytes, type: s.type, value: s.value)
    }

    private func isKept(_ i: Int) -> Bool {
        let s = structures[i]
        return AdvertisingData.Field.kind(type: s.type, count: s.value.count) == Element.kind
    }

    private func firstKept(from start: Int) -> Int {
        var i = start
        while i < structures.endIndex, !isKept(i) { i = structures.index(after: i) }
        return i
    }
}

extension ManufacturerData: ADFieldElement {
    static var kind: AdvertisingData.Field.Kind { .manufacturer }
    init(_ bytes: ArraySlice<UInt8>, type: UInt8, value: Range<Int>) { self.init(checked: bytes[value]) }
}

extension ServiceData: ADFieldElement {
    static var kind: AdvertisingData.Field.Kind { .serviceData }
    init(_ bytes: ArraySlice<UInt8>, type: UInt8, value: Range<Int>) {
        let split = value.lowerBound + ADType.uuidSize(serviceDataType: type)
        self.init(uuid: ServiceUUID(littleEndian: bytes[value.lowerBound..<split]), data: bytes[split..<value.upperBound])
    }
}

/// A service UUID list: where its UUIDs lie, and their size.
struct UUIDList: ADFieldElement {
    static var kind: AdvertisingData.Field.Kind { .uuids }
    let value: Range<Int>
    let size: Int
    init(_ bytes: ArraySlice<UInt8>, type: UInt8, value: Range<Int>) {
        self.value = value
        size = ADType.uuidSize(listType: type)
    }
}

/// A structure of a type not interpreted.
struct OtherStructure: ADFieldElement {
    static var kind: AdvertisingData.Field.Kind { .other }
    let type: UInt8
    let value: ArraySlice<UInt8>
    init(_ bytes: ArraySlice<UInt8>, type: UInt8, value: Range<Int>) {
        self.type = type
        self.value = bytes[value]
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
