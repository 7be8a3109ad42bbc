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
    private let byServiceData: SelectorTable
    private let byCompany: SelectorTable
    /// Decoder sets by a manufacturer value's length and by the local name's length, indexed by
    /// the length: a load, where a hash lookup cost ~12 instructions for each manufacturer
    /// structure and name (callgrind). 256 entries, one per value of the index's 8-bit length
    /// field, so that no length can index past them (an AD value has at most 254 bytes).
    private let byValueLength: [UInt64]
    private let byNameLength: [UInt64]
    private let anyManufacturer: UInt64
    /// Decoders selected by company and length together (`manufacturerWithValueLength`): in
    /// `byCompany` and `byValueLength` both, and run only when one structure matches both.
    private let companyAndLength: UInt64
    private let always: UInt64

    public init(_ decoders: [any SensorDecoder]) {
        precondition(decoders.count <= Self.maxDecoders, "a registry holds at most \(Self.maxDecoders) decoders")
        self.decoders = decoders
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
        byValueLength = length
        byNameLength = nameLength
        anyManufacturer = anyM
        companyAndLength = both
        always = all
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
        decode(ADView(parsing: bytes, header: header), into: &result)
    }

    /// The same, for an advertisement with more than four structures of a kind (rare): the rest
    /// are walked into an `ADOverflow`, kept alive over the decode (`ADIndex` invariant 3).
    @inline(never) private func decode(spilled ad: ADView, into result: inout Result) {
        var index = ad.index
        let overflow = ADOverflow.complete(&index, ad.bytes)
        withExtendedLifetime(overflow) { decode(ADView(ad.bytes, index, header: ad.header), into: &result) }
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

    /// Decodes one advertisement into `result`, replacing what it held. A caller that decodes in
    /// a loop passes the same result each time: its storage is reused (see `ReadingList`).
    @inline(__always) public func decode(_ ad: ADView, into result: inout Result) {
        if ad.index.spilled && ad.index.overflow == nil { return decode(spilled: ad, into: &result) }
        result.readings.removeAll()
        // Keeping its storage: emptied, the list was allocated again at the next corrupt frame.
        if !result.malformed.isEmpty { result.malformed.removeAll(keepingCapacity: true) }
        // The decoders to run, as a set: each runs once however many of its selectors match, and
        // in list order. Building the set allocates nothing, so an advertisement no decoder wants
        // (most of what a radio hears) costs only its AD walk and these lookups.
        var wanted = always
        for k in 0..<ad.serviceDataCount {
            if let u = ad.serviceDataUUID16(at: k) { wanted |= byServiceData[u] }
        }
        if let name = ad.index.localNameEntry { wanted |= byNameLength[name.length] }
        if ad.manufacturerDataCount > 0 {
            wanted |= anyManufacturer
            for k in 0..<ad.manufacturerDataCount {
                let company = byCompany[ad.manufacturerCompany(at: k)]
                let length = byValueLength[ad.manufacturerValueLength(at: k)]
                // Either for most decoders; both, by this one structure, for the rest.
                wanted |= ((company | length) & ~companyAndLength) | (company & length)
            }
        }
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
}

/// Decoder sets by a 16-bit selector key (UUID, company id): an open-addressing hash table with a
/// power-of-two number of slots, at most half full. Every advertisement looks up each of its
/// manufacturer and service data keys, and nearly all of them are keys nobody registered: a probe
/// usually ends at the first, empty slot (a binary search cost ~70 instructions per lookup,
/// callgrind).
private struct SelectorTable: Sendable {
    /// Slot i holds `keys[i]` with its decoder set `sets[i]`; an empty slot has the set 0.
    private let keys: [UInt16]
    private let sets: [UInt64]
    private let shift: UInt32

    init(_ table: [UInt16: UInt64]) {
        var bits: UInt32 = 2
        while (1 << bits) < 2 * table.count { bits += 1 }
        let size = 1 << Int(bits)
        var keys = [UInt16](repeating: 0, count: size)
        var sets = [UInt64](repeating: 0, count: size)
        shift = 32 - bits
        for (key, set) in table where set != 0 {
            var slot = Self.slot(key, shift)
            while sets[slot] != 0 { slot = (slot + 1) & (size - 1) }
            keys[slot] = key
            sets[slot] = set
        }
        self.keys = keys
        self.sets = sets
    }

    /// Fibonacci hashing: the top bits of the key times 2^32 / φ.
    @inline(__always) private static func slot(_ key: UInt16, _ shift: UInt32) -> Int {
        Int((UInt32(key) &* 0x9E37_79B9) >> shift)
    }

    /// The decoders registered for `key`; empty when none.
    @inline(__always) subscript(key: UInt16) -> UInt64 {
        let mask = keys.count - 1
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
