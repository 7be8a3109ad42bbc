/// The one list of decoders, and dispatch from an advertisement to the decoders that may want it.
///
/// A registry is a value: `Registry.standard(keys:)` builds the default list; tests build their
/// own. Every decoder whose selector matches is run once, in list order, and all their readings are
/// kept (one advertisement can carry two formats, e.g. a Govee frame with an iBeacon glued on);
/// the peer vectors show no advertisement that two decoders both decode.
public struct Registry: Sendable {
    /// At most 64, so that a set of decoders is one `UInt64` (bit i = `decoders[i]`).
    public static let maxDecoders = 64
    public let decoders: [any SensorDecoder]
    private let selectors: Selectors

    public init(_ decoders: [any SensorDecoder]) {
        precondition(decoders.count <= Self.maxDecoders, "a registry holds at most \(Self.maxDecoders) decoders")
        self.decoders = decoders
        selectors = Selectors(decoders)
    }

    /// Every decoder this project ships, in dispatch order.
    /// - Parameter keys: per-device keys for encrypted formats (BTHome v2, MiBeacon).
    public static func standard(keys: DeviceKeys = DeviceKeys()) -> Registry {
        Registry([
            MinewFFE1Decoder(),
            // Group A: BTHome, Xiaomi (ATC/pvvx 0x181A, MiBeacon 0xFE95), Qingping, Eddystone TLM, iBeacon.
            BTHomeDecoder(keys: keys),
            XiaomiCustom181ADecoder(),
            XiaomiMiBeaconDecoder(keys: keys),
            QingpingDecoder(),
            EddystoneTLMDecoder(),
            IBeaconDecoder(),

            // Group B: Govee, Ruuvi, Inkbird, ThermoBeacon, SensorPush, SwitchBot.
            GoveeDecoder(),
            GoveeMeatDecoder(),
            RuuviDecoder(),
            InkbirdIBSTHDecoder(),
            InkbirdITHDecoder(),
            InkbirdBBQDecoder(),
            InkbirdIAMT2Decoder(),
            ThermoBeaconDecoder(),
            SensorPushDecoder(),
            SwitchBotMeterDecoder(),

            // Add new decoders here.
        ])
    }

    /// The outcome of running the registry over one advertisement.
    public struct Result: Sendable {
        public var readings = ReadingList()
        /// Decoders that recognised the advertisement but found it corrupt, and why.
        public var malformed: [Malformed] = []

        public init() {}
    }

    /// A decoder that found an advertisement of its format corrupt, and why; in words when read.
    public struct Malformed: Sendable {
        let decoderID: StaticString
        public let why: MalformedReason
        /// The decoder's id.
        public var decoder: String { decoderID.text }
        public var reason: String { why.description }
    }

    /// Decodes one advertisement into `result`, replacing what it held: its bytes walked into an
    /// `ADView` for the decoders, which borrows them for the call.
    public func decode(_ advertisement: Advertisement, into result: inout Result) {
        decode(advertisement.header, advertisement.data.span, into: &result)
    }

    /// The same, for an advertisement given as its header and a view of its bytes: for a caller
    /// that holds the bytes in a buffer of its own (a capture's packet, the bench's array) and so
    /// makes no `Advertisement`, whose copy of a reference to the buffer is two atomic operations.
    @inline(__always) public func decode(
        _ header: AdvertisementHeader, _ bytes: Span<UInt8>, into result: inout Result
    ) {
        // The decoders each service or manufacturer data structure selects are gathered as the
        // walk records it, while it has the entry at hand (`Selecting`).
        var selecting = Selecting(selectors)
        var index = InlineArray<1, ADIndex>(repeating: ADIndex())
        index[0].walk(bytes, reportingTo: &selecting)  // in place (`ADView.indexes`)
        run(ADView(bytes, index.span, header: header), selecting.wanted, into: &result)
    }

    /// Decodes one advertisement with every decoder whose selector matches.
    public func decode(_ advertisement: Advertisement) -> Result {
        var result = Result()
        decode(advertisement, into: &result)
        return result
    }

    /// The same, with the AD structures already parsed (tools that also show them).
    public func decode(_ advertisement: Advertisement, _ ad: AdvertisingData) -> Result {
        var result = Result()
        decode(ad.view(advertisement.header), into: &result)
        return result
    }

    /// Decodes one advertisement into `result`, replacing what it held, with the AD structures
    /// already walked. A caller that decodes in a loop passes the same result each time: its
    /// storage is reused (see `ReadingList`).
    public func decode(_ ad: ADView, into result: inout Result) {
        var wanted: UInt64 = 0
        for k in 0..<ad.serviceDataCount {
            wanted |= selectors.select(ad.index.entry(.serviceData, k), .serviceData, in: ad.bytes)
        }
        for k in 0..<ad.manufacturerDataCount {
            wanted |= selectors.select(ad.index.entry(.manufacturer, k), .manufacturer, in: ad.bytes)
        }
        run(ad, wanted, into: &result)
    }

    /// Runs over `ad`, in list order, into `result`: the decoders `selected` (those its service and
    /// manufacturer data chose), those its local name selects and those every advertisement runs.
    @inline(__always) private func run(_ ad: ADView, _ selected: UInt64, into result: inout Result) {
        if ad.index.spilled && ad.index.overflow == nil { return run(spilled: ad, selected, into: &result) }
        result.readings.removeAll()
        // Keeping its storage: emptied, the list was allocated again at the next corrupt frame.
        if !result.malformed.isEmpty { result.malformed.removeAll(keepingCapacity: true) }
        // The decoders to run, as a set: each runs once however many of its selectors match, and
        // in list order. Building the set allocates nothing, so an advertisement no decoder wants
        // (most of what a radio hears) costs only its AD walk and the lookups.
        var wanted = selected | selectors.select(localName: ad.index.localNameEntry) | selectors.always
        while wanted != 0 {
            let index = wanted.trailingZeroBitCount
            wanted &= wanted - 1
            let before = result.readings.count
            result.readings.decoderStart = before
            switch decoders[index].decode(ad, into: &result.readings) {
            case .decoded: break
            case .notMine: result.readings.truncate(to: before)
            case .malformed(let why):
                result.readings.truncate(to: before)
                result.malformed.append(Malformed(decoderID: decoders[index].id, why: why))
            }
        }
        result.readings.decoderStart = 0
    }

    /// The same, for an advertisement with more than four structures of a kind (rare): the rest
    /// are walked into an `ADOverflow`, kept alive over the decode (`ADIndex` invariant 3).
    @inline(never) private func run(spilled ad: ADView, _ selected: UInt64, into result: inout Result) {
        var index = InlineArray<1, ADIndex>(repeating: ad.index)
        let overflow = ADOverflow.complete(&index[0], ad.bytes)
        withExtendedLifetime(overflow) { run(ADView(ad.bytes, index.span, header: ad.header), selected, into: &result) }
    }
}

/// The registry's tables from selector keys to decoder sets, in one immutable object that owns
/// their memory: the walk's sink (`Selecting`) reads them through an unowned reference, touching
/// no reference count. Swift arrays held here were retained and released at each read from the
/// sink (~45 instructions an advertisement, callgrind).
///
/// Invariant: the tables are written once, in `init`, and freed in `deinit`; `byValueLength` and
/// `byNameLength` have 256 entries, one per value of the index's 8-bit length field, so that no
/// length read from an entry can index past them (an AD value has at most 254 bytes).
private final class Selectors: @unchecked Sendable {
    let byServiceData: SelectorTable
    let byCompany: SelectorTable
    /// Decoder sets by a manufacturer value's length and by the local name's length, indexed by
    /// the length: a load, where a hash lookup cost ~12 instructions for each manufacturer
    /// structure and name (callgrind).
    let byValueLength: UnsafeMutablePointer<UInt64>
    let byNameLength: UnsafeMutablePointer<UInt64>
    let anyManufacturer: UInt64
    /// Decoders selected by company and length together (`manufacturerWithValueLength`): in
    /// `byCompany` and `byValueLength` both, and run only when one structure matches both.
    let companyAndLength: UInt64
    let always: UInt64

    init(_ decoders: [any SensorDecoder]) {
        var sd: [UInt16: UInt64] = [:]
        var co: [UInt16: UInt64] = [:]
        var length = [UInt64](repeating: 0, count: 256)
        var nameLength = [UInt64](repeating: 0, count: 256)
        var anyM: UInt64 = 0
        var both: UInt64 = 0
        var all: UInt64 = 0
        for (i, d) in decoders.enumerated() {
            let bit: UInt64 = 1 << UInt64(i)
            for s in d.selectors {
                switch s {
                case .serviceData16(let u): sd[u, default: 0] |= bit
                case .manufacturer(let c): co[c, default: 0] |= bit
                case .anyManufacturer: anyM |= bit
                case .manufacturerValueLength(let n):
                    // A value is at most 254 bytes; a length no value can have selects nothing.
                    if (2...254).contains(n) { length[n] |= bit }
                case .manufacturerWithValueLength(let c, let n):
                    both |= bit
                    co[c, default: 0] |= bit
                    if (2...254).contains(n) { length[n] |= bit }
                case .localNameLength(let n):
                    // A name is at most 254 bytes (one AD structure), and may be empty.
                    if (0...254).contains(n) { nameLength[n] |= bit }
                case .any: all |= bit
                }
            }
        }
        // Its companies and lengths are read together, so it can have no company or length alone.
        for (i, d) in decoders.enumerated() where both & (1 << UInt64(i)) != 0 {
            for s in d.selectors {
                switch s {
                case .manufacturer, .manufacturerValueLength:
                    preconditionFailure("\(d.id): company-and-length selectors mixed with company or length ones")
                default: break
                }
            }
        }
        byServiceData = SelectorTable(sd)
        byCompany = SelectorTable(co)
        byValueLength = .allocate(capacity: 256)
        byValueLength.initialize(from: length, count: 256)
        byNameLength = .allocate(capacity: 256)
        byNameLength.initialize(from: nameLength, count: 256)
        anyManufacturer = anyM
        companyAndLength = both
        always = all
    }

    deinit {
        byServiceData.deallocate()
        byCompany.deallocate()
        byValueLength.deallocate()
        byNameLength.deallocate()
    }

    /// The decoders one indexed entry selects: service data by its 16-bit UUID, manufacturer data
    /// by company and value length (and any manufacturer data); other kinds, none.
    ///
    /// The keys are read unchecked: `e` is an entry of an index of `bytes` (`ADIndex` invariant 1:
    /// it lies inside them), and the walk indexes 16-bit service data and manufacturer data only
    /// with at least two bytes of value (`ADIndex.interpret`).
    @inline(__always) func select(_ e: InlinePositions.Entry, _ kind: ADKind, in bytes: Span<UInt8>) -> UInt64 {
        switch kind {
        case .serviceData:
            return e.type == ADType.serviceData16 ? byServiceData[bytes.le16(unchecked: e.offset)] : 0
        case .manufacturer:
            let company = byCompany[bytes.le16(unchecked: e.offset)]
            let length = byValueLength[e.length]
            // Either for most decoders; both, by this one structure, for the rest.
            return anyManufacturer | ((company | length) & ~companyAndLength) | (company & length)
        case .uuid, .other:
            return 0
        }
    }

    /// The decoders the local name selects, by its length (the complete name, if there is one).
    @inline(__always) func select(localName: InlinePositions.Entry?) -> UInt64 {
        if let name = localName { byNameLength[name.length] } else { 0 }
    }
}

/// The walk's sink that gathers the decoders each entry selects as it is recorded, while the walk
/// has it at hand: reading them back out of the index afterwards loaded and spilled every inline
/// entry (~40 instructions an advertisement, callgrind).
private struct Selecting: ADEntrySink {
    /// The registry's tables, which outlive the decode this sink is made for: read as a
    /// guaranteed reference (an `unowned(unsafe)` one was retained and released at each entry).
    let selectors: Unmanaged<Selectors>
    var wanted: UInt64 = 0

    init(_ selectors: Selectors) { self.selectors = .passUnretained(selectors) }

    @inline(__always) mutating func add(
        _ e: InlinePositions.Entry, _ kind: ADKind, held: Bool, in bytes: Span<UInt8>
    ) {
        wanted |= selectors._withUnsafeGuaranteedRef { $0.select(e, kind, in: bytes) }
    }
}

/// Decoder sets by a 16-bit selector key (UUID, company id): an open-addressing hash table with a
/// power-of-two number of slots, at most an eighth full. Every advertisement looks up each of its
/// manufacturer and service data keys, and nearly all of them are keys nobody registered: a probe
/// usually ends at the first, empty slot (a binary search cost ~70 instructions per lookup; a table
/// half full, whose registered keys made chains, ~4 an advertisement more, callgrind). Its memory
/// is its owner's (`Selectors`), allocated here and freed by `deallocate`.
private struct SelectorTable {
    /// Slot i holds `keys[i]` with its decoder set `sets[i]`; an empty slot has the set 0, and at
    /// least seven slots in eight are empty, so that every probe ends, most at once.
    private let keys: UnsafeMutablePointer<UInt16>
    private let sets: UnsafeMutablePointer<UInt64>
    private let mask: Int
    private let shift: UInt32

    init(_ table: [UInt16: UInt64]) {
        var bits: UInt32 = 2
        while (1 << bits) < 8 * table.count { bits += 1 }
        let size = 1 << Int(bits)
        keys = .allocate(capacity: size)
        keys.initialize(repeating: 0, count: size)
        sets = .allocate(capacity: size)
        sets.initialize(repeating: 0, count: size)
        mask = size - 1
        shift = 32 - bits
        for (key, set) in table where set != 0 {
            var slot = Self.slot(key, shift)
            while sets[slot] != 0 { slot = (slot + 1) & mask }
            keys[slot] = key
            sets[slot] = set
        }
    }

    func deallocate() {
        keys.deallocate()
        sets.deallocate()
    }

    /// Fibonacci hashing: the top bits of the key times 2^32 / φ, below the slot count. A masking
    /// shift: `shift` is below 32 (at least 4 slots), so no test for a shift past the width.
    @inline(__always) private static func slot(_ key: UInt16, _ shift: UInt32) -> Int {
        Int((UInt32(key) &* 0x9E37_79B9) &>> shift)
    }

    /// The decoders registered for `key`; empty when none.
    @inline(__always) subscript(key: UInt16) -> UInt64 {
        var slot = Self.slot(key, shift)
        while sets[slot] != 0 {
            if keys[slot] == key { return sets[slot] }
            slot = (slot + 1) & mask
        }
        return 0
    }
}

/// Keys for encrypted formats, per advertiser address. Owned by the caller (the CLI loads them
/// from the key file); decoders only read them.
public struct DeviceKeys: Sendable {
    public var keys: [BDAddress: [UInt8]]
    public init(_ keys: [BDAddress: [UInt8]] = [:]) { self.keys = keys }
    public subscript(address: BDAddress) -> [UInt8]? { keys[address] }
}
