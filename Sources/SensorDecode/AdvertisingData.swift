/// Advertising Data (AD structures), Core Specification Supplement Part A, and the assigned numbers
/// for AD types. The payload is a sequence of `length | type | value[length-1]`; a zero length ends
/// the significant part (the rest is padding).
///
/// The walk is exhaustive about lengths, in the manner of btmon's `print_eir`:
///  - it stops at a zero length (clean end) or at a structure whose length runs past the buffer
///    (`truncated`), keeping every structure before it;
///  - a field whose value has the wrong size for its type (flags without a byte, a TX power of two
///    bytes, a UUID list that is not a whole number of UUIDs) is skipped and counted in
///    `malformedFields`; it is never half-read;
///  - unknown types are kept in `other`, so `--all` can show them.

/// A service UUID of any of the three sizes.
public enum ServiceUUID: Hashable, Sendable, CustomStringConvertible {
    case uuid16(UInt16)
    case uuid32(UInt32)
    /// 16 bytes, most-significant first (the order of the canonical text form).
    case uuid128([UInt8])

    public var description: String {
        switch self {
        case .uuid16(let v): return Hex.encode([UInt8(v >> 8), UInt8(v & 0xFF)])
        case .uuid32(let v): return Hex.encode([UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)])
        case .uuid128(let b):
            // Written in place: iBeacon frames print one per advertisement.
            return Hex.ascii(count: Hex.uuidTextCount(b.count)) { out in
                var i = 0
                b.withUnsafeBufferPointer { Hex.writeUUIDText($0, to: out, at: &i) }
            }
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
    @inlinable public var companyID: UInt16 { value.le16(0) }
    /// The bytes after the company identifier.
    @inlinable public var data: ArraySlice<UInt8> { value.dropFirst(2) }

    /// `nil` when `value` is too short to hold a company id.
    @inlinable public init?(value: ArraySlice<UInt8>) {
        guard value.count >= 2 else { return nil }
        self.value = value
    }
}

/// The AD types we interpret, by their assigned numbers.
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
}

/// The positions of one advertisement's AD structures, as the walk found them: the part of
/// `AdvertisingData` and `ADView` that is not the bytes.
///
/// Every advertisement the radio hears is walked, and nearly all of them are a stranger's phone,
/// so the walk allocates nothing: scalar fields are stored, and the list kinds (service UUIDs,
/// service data, manufacturer data, other types) are kept as positions in the bytes (`InlinePositions`,
/// four inline per kind, the rest in `overflow`) and made into values only when read.
///
/// Invariants:
/// 1. Every position lies inside the bytes walked (the walk checks each structure's length
///    against the end of the buffer before recording it); positions count from their start.
/// 2. An index holds the first four entries of its kind (window 0). When a kind has more
///    (`spilled`), `overflow` points at the rest of every kind, in order, so that any entry is
///    read in constant time: a stranger's extended advertisement can carry hundreds of structures
///    of one kind, and finding each by walking again made reading them all quadratic.
/// 3. `overflow` does not keep its `ADOverflow` alive: whoever walks the bytes keeps it for as
///    long as the index is read (`AdvertisingData` holds it; `Registry` holds it over a decode,
///    whose views cannot outlive the call). An unowned reference, so that the index is plain
///    bytes, which views borrow through a span (`ADView.indexes`): an owned array here made every
///    view's destroy a call and a release test, ~22 instructions an advertisement (callgrind), for
///    an array nearly no advertisement has.
@usableFromInline struct ADIndex: Sendable, BitwiseCopyable {
    @usableFromInline var flags: UInt8?
    /// Where the local name lies: a position, not a slice, so that the index holds no reference.
    @usableFromInline var localNameEntry: InlinePositions.Entry?
    @usableFromInline var localNameIsComplete = false
    @usableFromInline var txPower: Int8?
    @usableFromInline var appearance: UInt16?
    @usableFromInline var truncated = false
    @usableFromInline var malformedFields = 0

    /// One entry per UUID (not per list structure): position of the UUID, its size in `length`.
    @usableFromInline var uuidIndex = InlinePositions()
    /// Service data structures (types 0x16, 0x20, 0x21): position and length of the whole value.
    @usableFromInline var serviceDataIndex = InlinePositions()
    /// Manufacturer-specific structures: position and length of the whole value (company id first).
    @usableFromInline var manufacturerIndex = InlinePositions()
    /// Structures of types not interpreted here.
    @usableFromInline var otherIndex = InlinePositions()
    /// Whether some kind has more than four entries, which `overflow` must then hold (invariant 2).
    @usableFromInline var spilled = false
    /// The entries past the fourth of each kind; `nil` unless `spilled` (invariants 2 and 3).
    @usableFromInline var overflow: Unmanaged<ADOverflow>? = nil

    /// Walks the AD structures of `bytes`, keeping four entries of each kind. Never fails:
    /// problems are recorded in `truncated` and `malformedFields`. The caller gives `spilled` an
    /// `overflow` (`ADOverflow(walking:)`) and keeps it (invariant 3).
    // Always inlined: built in its caller's frame, the index is not copied out (an outlined init
    // cost two 64-byte copies per advertisement, callgrind).
    @inline(__always) init(walking bytes: Span<UInt8>) {
        var ignored = IgnoredEntries()
        self.init(walking: bytes, reportingTo: &ignored)
    }

    /// The same walk, handing each entry it records to `sink` as well: `ADOverflow` keeps those
    /// past the fourth of their kind, `Registry` looks up the decoders each selects while the walk
    /// has it at hand. One walk for all, so that none can disagree with the index.
    @inline(__always) init<Sink: ADEntrySink>(walking bytes: Span<UInt8>, reportingTo sink: inout Sink) {
        walk(bytes, reportingTo: &sink)
    }

    /// An index of no structures, for `walk`.
    @inline(__always) init() {}

    /// Walks the AD structures of `bytes` into this index, which must be empty (`init()`): in
    /// place, so that an index in its owner's storage is not walked elsewhere and copied in.
    @inline(__always) mutating func walk<Sink: ADEntrySink>(_ bytes: Span<UInt8>, reportingTo sink: inout Sink) {
        var i = 0
        // Advertising data is at most 1,650 bytes (Core spec); positions are 16-bit, so a longer
        // buffer is walked up to 65,535 bytes and called truncated there.
        let end = min(bytes.count, InlinePositions.Entry.maxOffset)
        if bytes.count > InlinePositions.Entry.maxOffset { truncated = true }
        // Unchecked reads: `i < end <= bytes.count` by the loop, and `i + 1 < end` once the
        // structure's length (at least 1) is known to fit (two bounds checks a structure fewer).
        while i < end {
            let length = Int(bytes[unchecked: i])
            if length == 0 { break }  // zero length: end of significant part
            guard length <= end &- i &- 1 else {  // runs past the buffer (i < end: no overflow)
                truncated = true
                break
            }
            interpret(bytes, type: bytes[unchecked: i &+ 1], at: i &+ 2, count: length &- 1, sink: &sink)
            i &+= 1 &+ length  // at most `end`, by the guard
        }
    }

    /// The positions of one kind.
    @inlinable func positions(_ kind: ADKind) -> InlinePositions {
        switch kind {
        case .uuid: uuidIndex
        case .serviceData: serviceDataIndex
        case .manufacturer: manufacturerIndex
        case .other: otherIndex
        }
    }

    /// The `k`-th entry of a kind (`k` < its count): from the index, or past the fourth from
    /// `overflow` (invariant 2).
    @inlinable @inline(__always) func entry(_ kind: ADKind, _ k: Int) -> InlinePositions.Entry {
        // Unchecked: 0 <= k < 4 here (a negative `k` goes on, and traps below).
        if UInt(bitPattern: k) < UInt(InlinePositions.inlineCount) { return positions(kind).entries[unchecked: k] }
        // Invariant 3: the walker keeps the overflow alive while the index is read.
        guard let overflow else { preconditionFailure("entry \(k) of a spilled index read without its overflow") }
        return overflow.takeUnretainedValue().entries[kind.rawValue][k - InlinePositions.inlineCount]
    }

    /// Records an entry of a kind in its index (past the fourth: counted, `spilled`), and hands it
    /// to `sink`.
    @inline(__always) private mutating func record<Sink: ADEntrySink>(
        _ e: InlinePositions.Entry, _ kind: ADKind, _ bytes: Span<UInt8>, _ sink: inout Sink
    ) {
        let held: Bool
        switch kind {
        case .uuid: held = uuidIndex.append(e)
        case .serviceData: held = serviceDataIndex.append(e)
        case .manufacturer: held = manufacturerIndex.append(e)
        case .other: held = otherIndex.append(e)
        }
        if !held { spilled = true }
        sink.add(e, kind, held: held, in: bytes)
    }

    /// One structure into the index. Inlined into the walk's loop: as a call per structure (two an
    /// advertisement, typically) it cost ~12 instructions an advertisement more (callgrind).
    @inline(__always) private mutating func interpret<Sink: ADEntrySink>(
        _ bytes: Span<UInt8>, type: UInt8, at offset: Int, count: Int, sink: inout Sink
    ) {
        switch type {
        case ADType.flags:
            guard count >= 1 else { malformedFields += 1; return }
            flags = bytes[offset]
        case ADType.incompleteUUID16, ADType.completeUUID16:
            addUUIDs(bytes, at: offset, count: count, size: 2, sink: &sink)
        case ADType.incompleteUUID32, ADType.completeUUID32:
            addUUIDs(bytes, at: offset, count: count, size: 4, sink: &sink)
        case ADType.incompleteUUID128, ADType.completeUUID128:
            addUUIDs(bytes, at: offset, count: count, size: 16, sink: &sink)
        case ADType.shortenedLocalName, ADType.completeLocalName:
            // A complete name wins over a shortened one, whichever comes first.
            if localNameEntry == nil || type == ADType.completeLocalName {
                localNameEntry = InlinePositions.Entry(type: type, offset: offset, length: count)
                localNameIsComplete = type == ADType.completeLocalName
            }
        case ADType.txPowerLevel:
            guard count == 1 else { malformedFields += 1; return }
            txPower = Int8(bitPattern: bytes[offset])
        case ADType.appearance:
            guard count == 2 else { malformedFields += 1; return }
            appearance = bytes.le16(offset)
        case ADType.serviceData16, ADType.serviceData32, ADType.serviceData128:
            let uuidSize = type == ADType.serviceData16 ? 2 : type == ADType.serviceData32 ? 4 : 16
            guard count >= uuidSize else { malformedFields += 1; return }
            record(InlinePositions.Entry(type: type, offset: offset, length: count), .serviceData, bytes, &sink)
        case ADType.manufacturerSpecific:
            guard count >= 2 else { malformedFields += 1; return }
            record(InlinePositions.Entry(type: type, offset: offset, length: count), .manufacturer, bytes, &sink)
        default:
            record(InlinePositions.Entry(type: type, offset: offset, length: count), .other, bytes, &sink)
        }
    }

    /// A UUID list must be a whole number of UUIDs; otherwise none of it is read.
    private mutating func addUUIDs<Sink: ADEntrySink>(
        _ bytes: Span<UInt8>, at offset: Int, count: Int, size: Int, sink: inout Sink
    ) {
        guard count % size == 0 else { malformedFields += 1; return }
        var j = offset
        while j < offset + count {
            record(InlinePositions.Entry(type: 0, offset: j, length: size), .uuid, bytes, &sink)
            j += size
        }
    }
}

/// What else the walk hands each entry it records to (`ADIndex.init(walking:reportingTo:)`);
/// `held` is false past the fourth of a kind, which the index only counts.
@usableFromInline protocol ADEntrySink {
    mutating func add(_ e: InlinePositions.Entry, _ kind: ADKind, held: Bool, in bytes: Span<UInt8>)
}

/// The index alone: nothing else done (specialised away).
@usableFromInline struct IgnoredEntries: ADEntrySink {
    @inline(__always) @usableFromInline mutating func add(
        _ e: InlinePositions.Entry, _ kind: ADKind, held: Bool, in bytes: Span<UInt8>
    ) {}
}

/// The entries past the fourth of each kind of one advertisement, by `ADKind.rawValue`, in order
/// (`ADIndex` invariants 2 and 3): made by a second walk, only for an advertisement that has them.
@usableFromInline final class ADOverflow: Sendable {
    @usableFromInline let entries: [[InlinePositions.Entry]]

    private struct Kept: ADEntrySink {
        var entries: [[InlinePositions.Entry]] = [[], [], [], []]
        mutating func add(_ e: InlinePositions.Entry, _ kind: ADKind, held: Bool, in bytes: Span<UInt8>) {
            if !held { entries[kind.rawValue].append(e) }
        }
    }

    @usableFromInline init(walking bytes: Span<UInt8>) {
        var kept = Kept()
        _ = ADIndex(walking: bytes, reportingTo: &kept)
        entries = kept.entries
    }

    /// `index`, walked from `bytes`, with `overflow` set if it spilled: for an owner that keeps
    /// the returned overflow as long as it reads the index (invariant 3).
    @usableFromInline static func complete(_ index: inout ADIndex, _ bytes: Span<UInt8>) -> ADOverflow? {
        guard index.spilled else { return nil }
        let overflow = ADOverflow(walking: bytes)
        index.overflow = Unmanaged.passUnretained(overflow)
        return overflow
    }
}

/// One advertisement as decoders read it: its header (address, RSSI, time), its bytes, borrowed,
/// and their walked AD structures (`ADIndex`). A view, valid while the bytes are: `Registry`
/// makes one for the length of a decode, and a decoder cannot keep it; bytes a reading keeps past
/// the decode are copied (`ReadingList`).
///
/// WHY a view and not an owning `Advertisement` and `AdvertisingData`: a value that holds the
/// bytes holds a reference to their buffer, retained when it is made or copied and released when
/// it goes: two atomic operations each time, ~4 % of the decode's time each on the bench (an
/// experiment with non-atomic reference counting ran it ~20 % faster), and the copy and destroy
/// of its reference around them. Over a `Span`, the registry's walk and dispatch touch no
/// reference count, and a caller holding the bytes in a buffer of its own (a capture's packet,
/// the bench's array) makes no `Advertisement` at all: decode 1,123.5 -> 1,024.2 instructions per
/// advertisement for the bytes, best-of-30 rates +21 % (callgrind, the bench). Making one needs
/// a lifetime dependence (`@_lifetime`), for now behind the compiler's experimental `Lifetimes`
/// feature (Package.swift), which the standard library's own `Span` uses; the rest is the stable
/// `~Escapable`.
public struct ADView: ~Escapable {
    /// Everything the report said but the bytes.
    public let header: AdvertisementHeader
    /// The bytes that were walked; every range below counts from their start.
    public let bytes: Span<UInt8>
    /// Their index, borrowed from whoever walked them (one element): the view is a few words,
    /// where holding the 120-byte index made every view a copy of it (a `memcpy` an
    /// advertisement, ~35 instructions, callgrind).
    @usableFromInline let indexes: Span<ADIndex>

    /// A view of `bytes`, walked into `indexes[0]` (`AdvertisingData.view`, `Registry`).
    @_lifetime(copy bytes, copy indexes) @inlinable
    init(_ bytes: Span<UInt8>, _ indexes: Span<ADIndex>, header: AdvertisementHeader) {
        precondition(indexes.count == 1, "a view has one index")
        self.header = header
        self.bytes = bytes
        self.indexes = indexes
    }

    /// The index of `bytes` (checked to be there when the view was made).
    @inlinable @inline(__always) var index: ADIndex { indexes[unchecked: 0] }

    @inlinable public var flags: UInt8? { index.flags }
    /// Where the local name lies in `bytes`.
    @inlinable public var localNameRange: Range<Int>? { index.localNameEntry.map { $0.range() } }
    @inlinable public var localNameIsComplete: Bool { index.localNameIsComplete }
    @inlinable public var txPower: Int8? { index.txPower }
    @inlinable public var appearance: UInt16? { index.appearance }
    /// A structure's length ran past the end of the data; everything before it was kept.
    @inlinable public var truncated: Bool { index.truncated }
    /// Structures of a known type whose value had an impossible size; skipped.
    @inlinable public var malformedFields: Int { index.malformedFields }

    /// Where the service data for a 16-bit UUID lies in `bytes` (the first one), as decoders read
    /// it: `bytes.extracting(range)`.
    @inlinable @inline(__always) public func serviceDataRange(uuid16: UInt16) -> Range<Int>? {
        for k in 0..<index.serviceDataIndex.count {
            let e = index.entry(.serviceData, k)
            // Unchecked: an indexed 16-bit service data value (k < count) lies inside the bytes
            // and has at least two (`ADIndex` invariant 1, `interpret`).
            if e.type == ADType.serviceData16, bytes.le16(unchecked: e.offset) == uuid16 { return e.range(from: 2) }
        }
        return nil
    }

    /// Whether a 128-bit service UUID (16 bytes, most-significant first, as `ServiceUUID.uuid128`
    /// holds it) is listed; compares in place, making no `ServiceUUID`.
    public func hasServiceUUID128(_ uuid: [UInt8]) -> Bool {
        guard uuid.count == 16 else { return false }
        for k in 0..<index.uuidIndex.count where index.entry(.uuid, k).length == 16 {
            let start = index.entry(.uuid, k).offset
            // On air least-significant first: byte j of the air form is byte 15 - j of `uuid`.
            var same = true
            for j in 0..<16 where bytes[start + j] != uuid[15 - j] {
                same = false
                break
            }
            if same { return true }
        }
        return false
    }

    /// The number of service data structures, for index loops with `serviceDataUUID16(at:)`.
    @inlinable public var serviceDataCount: Int { index.serviceDataIndex.count }

    /// The 16-bit UUID of the `k`-th service data structure, `nil` for a 32- or 128-bit one (for
    /// dispatch by UUID without making the element).
    @inlinable @inline(__always) public func serviceDataUUID16(at k: Int) -> UInt16? {
        let e = index.entry(.serviceData, k)
        return e.type == ADType.serviceData16 ? bytes.le16(e.offset) : nil
    }

    /// The number of manufacturer-specific structures, for index loops with `manufacturerCompany(at:)`
    /// and the ranges below. Decoders that run on most advertisements loop on these: iterating
    /// `AdvertisingData.manufacturerData` made every element (callgrind).
    @inlinable public var manufacturerDataCount: Int { index.manufacturerIndex.count }

    /// The company id of the `k`-th manufacturer-specific structure.
    @inlinable @inline(__always) public func manufacturerCompany(at k: Int) -> UInt16 {
        bytes.le16(index.entry(.manufacturer, k).offset)
    }

    /// Where the whole value (company id first) of the `k`-th manufacturer-specific structure lies
    /// in `bytes`.
    @inlinable @inline(__always) public func manufacturerValueRange(at k: Int) -> Range<Int> {
        index.entry(.manufacturer, k).range()
    }

    /// The length of that whole value, read from the index.
    @inlinable @inline(__always) public func manufacturerValueLength(at k: Int) -> Int {
        index.entry(.manufacturer, k).length
    }

    /// Where the bytes after the company id of the `k`-th manufacturer-specific structure lie in
    /// `bytes`.
    @inlinable @inline(__always) public func manufacturerPayloadRange(at k: Int) -> Range<Int> {
        index.entry(.manufacturer, k).range(from: 2)
    }

    /// Where the bytes after the company id of the first structure of `company` lie in `bytes`,
    /// if there is one.
    @inlinable @inline(__always) public func manufacturerPayloadRange(company: UInt16) -> Range<Int>? {
        // Unchecked: an indexed manufacturer value (k < count) lies inside the bytes and has at
        // least two (`ADIndex` invariant 1, `interpret`).
        for k in 0..<manufacturerDataCount {
            let e = index.entry(.manufacturer, k)
            if bytes.le16(unchecked: e.offset) == company { return e.range(from: 2) }
        }
        return nil
    }

    /// The number of service UUIDs (one per UUID, as in `AdvertisingData.serviceUUIDs`), for
    /// index loops with `serviceUUID16(at:)`.
    @inlinable public var serviceUUIDCount: Int { index.uuidIndex.count }

    /// The `k`-th service UUID if it is a 16-bit one, else `nil`: read in place, where making the
    /// elements of `serviceUUIDs` copied the bytes and built an array per 128-bit UUID.
    @inlinable public func serviceUUID16(at k: Int) -> UInt16? {
        let e = index.entry(.uuid, k)
        return e.length == 2 ? bytes.le16(e.offset) : nil
    }
}

/// The parsed AD structures of one advertisement as a value of its own, holding its bytes: for
/// tools and tests, which keep, compare and print it (`decode --all`, `scan`). Decoders read an
/// `ADView` (`view`), which borrows the bytes instead.
public struct AdvertisingData: Sendable {
    /// The bytes that were walked; every slice and list element below is a view into them.
    public let bytes: ArraySlice<UInt8>
    /// The index, as one element that views borrow (`ADView.indexes`).
    @usableFromInline let indexes: InlineArray<1, ADIndex>
    @inlinable var index: ADIndex { indexes[0] }
    /// What `index.overflow` points at, kept for as long as this value (`ADIndex` invariant 3).
    private let overflow: ADOverflow?

    public init() { self.init(parsing: ArraySlice<UInt8>()) }

    /// Walks the AD structures of `bytes`. Never fails: problems are recorded in `truncated` and
    /// `malformedFields`. Slices share `bytes`' storage (no copies).
    public init(parsing bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        var index = ADIndex(walking: bytes.span)
        overflow = ADOverflow.complete(&index, bytes.span)
        indexes = [index]
    }

    public init(parsing bytes: [UInt8]) { self.init(parsing: bytes[...]) }

    /// The same structures as decoders read them, for the advertisement `header` describes.
    @_lifetime(borrow self) public func view(_ header: AdvertisementHeader) -> ADView {
        ADView(bytes.span, indexes.span, header: header)
    }

    /// The same, with an empty header: for reading the structures alone. (Written out: calling
    /// `view(_:)` from this getter did not pass the lifetime checker.)
    public var view: ADView {
        @_lifetime(borrow self) get { ADView(bytes.span, indexes.span, header: AdvertisementHeader()) }
    }

    public var flags: UInt8? { index.flags }
    /// Raw name bytes as broadcast (untrusted: any bytes, not necessarily UTF-8).
    public var localName: ArraySlice<UInt8>? { index.localNameEntry.map { bytes.value($0) } }
    public var localNameIsComplete: Bool { index.localNameIsComplete }
    public var txPower: Int8? { index.txPower }
    public var appearance: UInt16? { index.appearance }
    /// A structure's length ran past the end of the data; everything before it was kept.
    public var truncated: Bool { index.truncated }
    /// Structures of a known type whose value had an impossible size; skipped.
    public var malformedFields: Int { index.malformedFields }

    /// Service UUIDs from the complete and incomplete lists of all three sizes, in order.
    public var serviceUUIDs: ADFields<ServiceUUIDField> { ADFields(self, .uuid) }
    /// Service data of all three UUID sizes, in order.
    public var serviceData: ADFields<ServiceDataField> { ADFields(self, .serviceData) }
    /// Manufacturer-specific data, in order.
    public var manufacturerData: ADFields<ManufacturerDataField> { ADFields(self, .manufacturer) }
    /// Structures of types not interpreted above: (type, value).
    public var other: ADFields<OtherField> { ADFields(self, .other) }

    /// The service data for a 16-bit UUID, if present (the first one).
    public func serviceData(uuid16: UInt16) -> ArraySlice<UInt8>? {
        view.serviceDataRange(uuid16: uuid16).map { bytes.slice($0) }
    }

    /// The manufacturer data of a company, if present (the first one).
    public func manufacturerData(company: UInt16) -> ManufacturerData? {
        // The search decoders use; the value starts with the company id, two bytes before the payload.
        guard let payload = view.manufacturerPayloadRange(company: company) else { return nil }
        return ManufacturerData(value: bytes.slice((payload.lowerBound - 2)..<payload.upperBound))
    }

    /// The local name with control characters and invalid UTF-8 made harmless, for display.
    public var displayName: String? {
        localName.map { DisplayText.escape($0) }
    }
}

/// Equal when every field reads the same, whatever buffer each was parsed from.
extension AdvertisingData: Equatable {
    public static func == (a: AdvertisingData, b: AdvertisingData) -> Bool {
        a.flags == b.flags && a.localName == b.localName && a.localNameIsComplete == b.localNameIsComplete
            && a.serviceUUIDs.elementsEqual(b.serviceUUIDs) && a.serviceData.elementsEqual(b.serviceData)
            && a.manufacturerData.elementsEqual(b.manufacturerData) && a.txPower == b.txPower
            && a.appearance == b.appearance
            && a.other.elementsEqual(b.other, by: { $0.type == $1.type && $0.value == $1.value })
            && a.truncated == b.truncated && a.malformedFields == b.malformedFields
    }
}

/// Positions of values inside a byte buffer: how many there are, and four of them inline — the
/// first four, or the four from a later ordinal (`window`). The AD walk records each kind of AD
/// value in one (and the rest in `ADIndex.overflow`), the HCI parser each report of an
/// event. No array: an owner that holds no other reference but its bytes is destroyed with one
/// release, where an optional overflow array per index cost a release, or a generic value
/// witness, at every destroy (callgrind). An HCI event of more than four reports is checked
/// again for the rest (`AdvertisingReports`): at most 255 bytes, so the cost stays bounded.
public struct InlinePositions: Sendable, BitwiseCopyable {
    /// Where one value lies, `offset` bytes from the start of the indexed buffer and `length` long,
    /// and its AD type. Packed in 32 bits (offset < 2^16, length and type < 2^8): an AD structure's
    /// value is at most 254 bytes, an HCI report at most 254, and the walks index at most the first
    /// 65,535 bytes of a buffer; small entries keep a whole advertisement's index a few words.
    public struct Entry: Sendable, BitwiseCopyable {
        @usableFromInline let packed: UInt32
        @inlinable public init(type: UInt8, offset: Int, length: Int) {
            packed = UInt32(truncatingIfNeeded: offset) & 0xFFFF | UInt32(length & 0xFF) << 16 | UInt32(type) << 24
        }
        @inlinable public var offset: Int { Int(packed & 0xFFFF) }
        @inlinable public var length: Int { Int((packed >> 16) & 0xFF) }
        @inlinable public var type: UInt8 { UInt8(truncatingIfNeeded: packed >> 24) }
        /// The value's bytes without their first `skip`, counted from the buffer's start.
        @inlinable public func range(from skip: Int = 0) -> Range<Int> { (offset + skip)..<(offset + length) }
        /// The largest offset an entry can hold.
        public static let maxOffset = 0xFFFF
    }

    @usableFromInline static let inlineCount = 4
    /// The held entries, `entries[0..<min(count - window, 4)]`.
    @usableFromInline var entries = InlineArray<4, Entry>(repeating: Entry(type: 0, offset: 0, length: 0))
    /// Entries in the whole buffer (an AD structure and an HCI report are at least two bytes, so
    /// fewer than 2^15 fit in the 65,535 bytes indexed).
    @usableFromInline var total: UInt16 = 0
    /// The ordinal of `e0`: a multiple of four, 0 after a normal walk.
    @usableFromInline let window: UInt16

    /// Keeps the four entries from ordinal `window` on: 0, or `window(holding:)` of an entry.
    @inlinable public init(window: Int = 0) { self.window = UInt16(window) }

    /// The window that holds the `k`-th entry.
    @inlinable public static func window(holding k: Int) -> Int { k - k % inlineCount }

    @inlinable public var count: Int { Int(total) }

    /// Whether the `k`-th entry is one of the four held.
    @inlinable public func holds(_ k: Int) -> Bool {
        k &- Int(window) >= 0 && k &- Int(window) < Self.inlineCount
    }

    /// Counts an entry, and holds it if it falls in the window; returns whether it does. Always
    /// inlined: the walk specialised for a sink called it out of line (~22 instructions an
    /// advertisement, callgrind).
    @inlinable @inline(__always) @discardableResult public mutating func append(_ e: Entry) -> Bool {
        let slot = Int(total) &- Int(window)
        total &+= 1  // fewer than 2^15 entries fit in the bytes indexed (above)
        // Counted only past the window: the owner keeps it elsewhere, or finds it again.
        guard UInt(bitPattern: slot) < UInt(Self.inlineCount) else { return false }
        entries[unchecked: slot] = e
        return true
    }

    /// The `k`-th entry, which must be held (`holds`).
    @inlinable public subscript(k: Int) -> Entry {
        precondition(holds(k) && k < count, "entry outside the window")
        return entries[unchecked: k &- Int(window)]
    }
}

/// The kinds of AD value the walk indexes.
@usableFromInline enum ADKind: Int, Sendable { case uuid, serviceData, manufacturer, other }

extension ArraySlice where Element == UInt8 {
    /// The bytes an entry of an index over this buffer points at, without their first `skip`.
    @inlinable public func value(_ e: InlinePositions.Entry, from skip: Int = 0) -> ArraySlice<UInt8> {
        slice(e.range(from: skip))
    }

    /// The bytes of `range`, counted from the start of this buffer.
    @inlinable public func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
        self[(startIndex + range.lowerBound)..<(startIndex + range.upperBound)]
    }
}

/// How one kind of indexed AD value becomes a value a decoder reads.
public protocol ADFieldKind {
    associatedtype Element
    static func element(_ bytes: ArraySlice<UInt8>, _ entry: InlinePositions.Entry) -> Element
}

/// The values of one kind, made on access from their positions (no copy of the bytes).
public struct ADFields<Kind: ADFieldKind>: RandomAccessCollection, Sendable {
    @usableFromInline let ad: AdvertisingData
    @usableFromInline let kind: ADKind
    @inlinable init(_ ad: AdvertisingData, _ kind: ADKind) {
        self.ad = ad
        self.kind = kind
    }
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { ad.index.positions(kind).count }
    @inlinable public subscript(k: Int) -> Kind.Element { Kind.element(ad.bytes, ad.index.entry(kind, k)) }
}

public enum ServiceUUIDField: ADFieldKind {
    @inlinable public static func element(_ b: ArraySlice<UInt8>, _ e: InlinePositions.Entry) -> ServiceUUID {
        switch e.length {
        case 2: .uuid16(b.le16(e.offset))
        case 4: .uuid32(b.le32(e.offset))
        default: .uuid128(b.value(e).reversed())
        }
    }
}

public enum ServiceDataField: ADFieldKind {
    @inlinable public static func element(_ b: ArraySlice<UInt8>, _ e: InlinePositions.Entry) -> ServiceData {
        switch e.type {
        case ADType.serviceData16: return ServiceData(uuid: .uuid16(b.le16(e.offset)), data: b.value(e, from: 2))
        case ADType.serviceData32: return ServiceData(uuid: .uuid32(b.le32(e.offset)), data: b.value(e, from: 4))
        default: return ServiceData(uuid: .uuid128(b.value(e).prefix(16).reversed()), data: b.value(e, from: 16))
        }
    }
}

public enum ManufacturerDataField: ADFieldKind {
    @inlinable public static func element(_ b: ArraySlice<UInt8>, _ e: InlinePositions.Entry) -> ManufacturerData {
        // The walk recorded only values of at least two bytes.
        ManufacturerData(value: b.value(e))!
    }
}

public enum OtherField: ADFieldKind {
    @inlinable public static func element(_ b: ArraySlice<UInt8>, _ e: InlinePositions.Entry) -> (type: UInt8, value: ArraySlice<UInt8>) {
        (e.type, b.value(e))
    }
}

/// Text that came from the radio, made safe to print: a stranger's device can broadcast any bytes.
public enum DisplayText {
    /// Decodes UTF-8 (invalid sequences become U+FFFD) and escapes control characters
    /// (C0, DEL, C1, and the bidi overrides) as `\u{XX}`-style `\xNN` / `\u{NNNN}` text.
    public static func escape<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        // Fast path, the common case: printable ASCII without a backslash needs no escaping.
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        let decoded = String(decoding: bytes, as: UTF8.self)
        var out = ""
        out.reserveCapacity(decoded.utf8.count)
        for scalar in decoded.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) {
                out += "\\x" + Hex.encode([UInt8(v)])
            } else if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E
                || v == 0x200F
            {
                out += "\\u{" + String(v, radix: 16) + "}"
            } else if v == 0x5C {  // backslash: escaped so the escapes above are unambiguous
                out += "\\\\"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// Byte-level tests on the local name, building no `String`: decoders under a broad selector look
/// at the name of nearly every advertisement, and decoding it to text each time dominated the
/// cost of the whole registry (callgrind, BENCHMARKS.md). ASCII case folding only: the names
/// compared against are ASCII model names.
extension ADView {
    @inline(__always) static func fold(_ b: UInt8, _ ignoringCase: Bool) -> UInt8 {
        ignoringCase && b >= 0x41 && b <= 0x5A ? b | 0x20 : b
    }

    /// Whether `bytes` hold `needle` at `start` (the caller has checked that it fits).
    static func matches(
        _ bytes: Span<UInt8>, at start: Int, _ needle: UnsafeBufferPointer<UInt8>, _ ignoringCase: Bool
    ) -> Bool {
        for k in 0..<needle.count where fold(bytes[start + k], ignoringCase) != fold(needle[k], ignoringCase) {
            return false
        }
        return true
    }

    /// Runs `test` on the name and the needle's UTF-8 bytes; false when there is no name or the
    /// needle is longer than it.
    /// Needles are `StaticString`s, read in place: going through `String.withUTF8` built a String
    /// per test (callgrind), and every needle is a model name written in a decoder.
    /// The name is read in place, as positions in `bytes`: no slice, no reference counting.
    private func withName(
        _ needle: StaticString, _ test: (Span<UInt8>, Range<Int>, UnsafeBufferPointer<UInt8>) -> Bool
    ) -> Bool {
        guard let e = index.localNameEntry, e.length >= needle.utf8CodeUnitCount else { return false }
        let start = e.offset
        return needle.withUTF8Buffer { test(bytes, start..<(start + e.length), $0) }
    }

    public func localNameEquals(_ text: StaticString, ignoringCase: Bool = false) -> Bool {
        withName(text) { b, name, n in name.count == n.count && Self.matches(b, at: name.lowerBound, n, ignoringCase) }
    }

    public func localNameHasPrefix(_ prefix: StaticString, ignoringCase: Bool = false) -> Bool {
        withName(prefix) { b, name, n in Self.matches(b, at: name.lowerBound, n, ignoringCase) }
    }

    public func localNameContains(_ needle: StaticString, ignoringCase: Bool = false) -> Bool {
        withName(needle) { b, name, n in
            guard let first = n.first.map({ Self.fold($0, ignoringCase) }) else { return true }
            var i = name.lowerBound
            let last = name.upperBound - n.count
            while i <= last {
                // The first byte alone rules out nearly every position.
                if Self.fold(b[i], ignoringCase) == first && Self.matches(b, at: i, n, ignoringCase) { return true }
                i += 1
            }
            return false
        }
    }
}
