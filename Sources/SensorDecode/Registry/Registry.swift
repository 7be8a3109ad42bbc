/// The one list of decoders, and dispatch from an advertisement to the decoders that may want it.
///
/// A registry is a value: `Registry.standard(keys:)` builds the default list; tests build their
/// own. Every decoder one of whose selectors matches is run once, in list order, and all their
/// readings are kept (one advertisement can carry two formats, e.g. a Govee frame with an iBeacon
/// glued on). Any number of decoders: the selector tables map a key (UUID, company id, value
/// length, name) to the positions of the decoders that registered it.
public struct Registry: Sendable {
    public let decoders: [any SensorDecoder]
    private var byServiceData = KeyTable<UInt16>()
    private var byCompany = KeyTable<UInt16>()
    /// `byManufacturerLength[n]`: the decoders of manufacturer structures of n bytes (lengths are
    /// few and small, so a list per length up to the longest registered).
    private var byManufacturerLength: [[Int]] = []
    /// Both lists of a manufacturer structure merged ahead of time (`company << 16 | length`), for
    /// each company and length that both have decoders: such a structure (every Govee frame) then
    /// needs no merge.
    private var byCompanyAndLength: [UInt32: [Int]] = [:]
    /// `byLocalName[n]`: the names of n bytes, each with its decoders.
    private var byLocalName: [[(name: [UInt8], positions: [Int])]] = []

    public init(_ decoders: [any SensorDecoder]) {
        self.decoders = decoders
        for (i, d) in decoders.enumerated() {
            for s in Set(d.selectors) {
                switch s {
                case .serviceData(let uuid): byServiceData.add(i, for: uuid)
                case .manufacturer(let company): byCompany.add(i, for: company)
                case .manufacturerLength(let n):
                    // An AD structure's one length byte counts its type too: no value is longer.
                    guard (0...254).contains(n) else { continue }
                    while byManufacturerLength.count <= n { byManufacturerLength.append([]) }
                    byManufacturerLength[n].append(i)
                case .localName(let name):
                    let bytes = Array(name.utf8)
                    while byLocalName.count <= bytes.count { byLocalName.append([]) }
                    if let k = byLocalName[bytes.count].firstIndex(where: { $0.name == bytes }) {
                        byLocalName[bytes.count][k].positions.append(i)
                    } else {
                        byLocalName[bytes.count].append((bytes, [i]))
                    }
                }
            }
        }
        for (company, companyList) in byCompany.entries {
            for (length, lengthList) in byManufacturerLength.enumerated() where !lengthList.isEmpty {
                byCompanyAndLength[UInt32(company) << 16 | UInt32(length)] = Self.merge(companyList, lengthList)
            }
        }
    }

    /// Every decoder this project ships, in dispatch order.
    /// - Parameter keys: per-device keys for encrypted formats (BTHome v2, MiBeacon).
    public static func standard(keys: DeviceKeys = DeviceKeys()) -> Registry {
        Registry([
            MinewFFE1Decoder(),
            BTHomeDecoder(keys: keys),
            XiaomiCustom181ADecoder(),
            XiaomiMiBeaconDecoder(keys: keys),
            QingpingDecoder(),
            EddystoneTLMDecoder(),
            IBeaconDecoder(),
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
            KKMSensorDecoder(),
            ThermoProDecoder(),
            HolyIOTDecoder(),
            MOCREODecoder(),
            RelsibDecoder(),
            HHCCDecoder(),
            JaaleeDecoder(),
            OriaT301Decoder(),
            SmartDryDecoder(),
            MopekaProDecoder(),
            SensorEasyDecoder(),
            RuuviEddystoneURLDecoder(),
            SensirionDecoder(),
            AranetDecoder(),
            TeltonikaDecoder(),
            TiltDecoder(),
            AcconeerDecoder(),
            AlmendoDecoder(),
            BlueMaestroDecoder(),
            BlustreamDecoder(),
            BParasiteDecoder(),
            ChefIQDecoder(),
            INodeDecoder(),
            JinouDecoder(),
            MichelinTMSDecoder(),
            TPMSDecoder(),
            AirMentorDecoder(),
            AprilBrotherDecoder(),
            RDL52832Decoder(),
            MokoBeaconXProDecoder(),
            AmphiroDecoder(),
            RuuviE1Decoder(),
            // Add new decoders here.
        ])
    }

    /// The outcome of running the registry over one advertisement.
    public struct Result: Sendable, Equatable {
        /// The readings of every decoder that decoded it, in list order.
        public var readings: [Reading] = []
        /// Decoders that recognised the advertisement but found it corrupt, and why.
        public var malformed: [Malformed] = []
        public init() {}
    }

    /// A decoder that found an advertisement of its format corrupt, and why.
    public struct Malformed: Sendable, Equatable {
        public let decoder: String
        public let reason: String
        public init(decoder: String, reason: String) {
            self.decoder = decoder
            self.reason = reason
        }
    }

    /// The positions of the decoders `ad` selects, each once, in list order.
    public func candidates(for ad: Advertisement) -> [Int] {
        candidates(for: ad.fields)
    }

    /// The same, for parsed AD structures (taken by reference: an `Advertisement` is not copied).
    func candidates(for fields: borrowing AdvertisingData) -> [Int] {
        var found: [Int] = []
        fields.forEachKeyed { type, key, value in
            if type == ADType.serviceData16 {
                Self.add(byServiceData[key], to: &found)
            } else if value.count < byManufacturerLength.count, !byManufacturerLength[value.count].isEmpty {
                let both = byCompanyAndLength[UInt32(key) << 16 | UInt32(value.count)]
                Self.add(both ?? byManufacturerLength[value.count], to: &found)
            } else {
                Self.add(byCompany[key], to: &found)
            }
        }
        if let range = fields.localNameRange, range.count < byLocalName.count {
            let name = fields.bytes[range]
            for entry in byLocalName[range.count] where entry.name.elementsEqual(name) {
                Self.add(entry.positions, to: &found)
            }
        }
        return found
    }

    /// Adds the decoders `list` names to `found`: the first list as it is (no copy), a later one
    /// merged in.
    private static func add(_ list: [Int]?, to found: inout [Int]) {
        guard let list, !list.isEmpty else { return }
        found = found.isEmpty ? list : merge(found, list)
    }

    /// Two lists of positions, each ascending without repeats (as every table list is), as one.
    static func merge(_ a: [Int], _ b: [Int]) -> [Int] {
        if a == b { return a }  // the same key twice (two structures of one company)
        var out: [Int] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count, j < b.count {
            if a[i] <= b[j] {
                if a[i] == b[j] { j += 1 }
                out.append(a[i])
                i += 1
            } else {
                out.append(b[j])
                j += 1
            }
        }
        out += a[i...]
        out += b[j...]
        return out
    }

    /// Decodes one advertisement with every decoder it selects, counting each outcome in
    /// `statistics`.
    public func decode(_ ad: Advertisement, counting statistics: inout DecoderStatistics) -> Result {
        decode(ad) { i, outcome in statistics.count(outcome, decoder: self.decoders[i].id, at: i) }
    }

    /// The same, without counting.
    public func decode(_ ad: Advertisement) -> Result {
        decode(ad) { _, _ in }
    }

    /// Runs the candidates of `ad` in list order, handing each outcome to `observe`.
    private func decode(_ ad: Advertisement, observe: (Int, DecodeOutcome) -> Void) -> Result {
        var result = Result()
        for i in candidates(for: ad) {
            let outcome = decoders[i].decode(ad)
            observe(i, outcome)
            switch consume outcome {
            case .readings(let readings):
                if result.readings.isEmpty { result.readings = readings } else { result.readings += readings }
            case .notMine: break
            case .malformed(let why): result.malformed.append(Malformed(decoder: decoders[i].id, reason: why))
            }
        }
        return result
    }
}

/// How often each decoder decoded, said "not mine" or found a frame malformed (as rtl_433 counts
/// per decoder). A value the caller keeps and passes to `Registry.decode(_:counting:)`; kept by
/// the decoder's position in its registry, read by decoder id.
public struct DecoderStatistics: Sendable, Equatable {
    public struct Counts: Sendable, Equatable {
        public var decoded = 0
        public var notMine = 0
        public var malformed = 0
        public init() {}
        public var runs: Int { decoded + notMine + malformed }
    }

    /// `counts[i]` are those of the decoder at position i, whose id is `ids[i]` ("" if never run).
    private var ids: [String] = []
    private var counts: [Counts] = []

    public init() {}

    /// The counts of the decoder with this id (zero if it never ran).
    public subscript(decoder: String) -> Counts {
        ids.firstIndex(of: decoder).map { counts[$0] } ?? Counts()
    }

    /// The decoders that ran, by id, with their counts, in registry order.
    public var byDecoder: [(id: String, counts: Counts)] {
        zip(ids, counts).filter { $0.1.runs > 0 }.map { (id: $0.0, counts: $0.1) }
    }

    /// Counts one outcome of the decoder at `position` in its registry.
    public mutating func count(_ outcome: DecodeOutcome, decoder id: @autoclosure () -> String, at position: Int) {
        while counts.count <= position {
            ids.append("")
            counts.append(Counts())
        }
        if ids[position].isEmpty { ids[position] = id() }  // a position's decoder never changes
        switch outcome {
        case .readings: counts[position].decoded += 1
        case .notMine: counts[position].notMine += 1
        case .malformed: counts[position].malformed += 1
        }
    }

    /// One line per decoder that ran: `govee: 12 decoded, 3 not mine, 0 malformed`.
    public var lines: [String] {
        byDecoder.map { "\($0.id): \($0.counts.decoded) decoded, \($0.counts.notMine) not mine, \($0.counts.malformed) malformed" }
    }

    public static func == (a: DecoderStatistics, b: DecoderStatistics) -> Bool {
        a.byDecoder.elementsEqual(b.byDecoder) { $0.id == $1.id && $0.counts == $1.counts }
    }
}

/// The positions of the decoders that registered each key, in list order: keys kept sorted and
/// found by bisection (a few comparisons where a dictionary would hash the key).
struct KeyTable<Key: Comparable & Sendable>: Sendable {
    private var keys: [Key] = []
    private var positions: [[Int]] = []

    /// Every key with its positions, keys ascending.
    var entries: Zip2Sequence<[Key], [[Int]]> { zip(keys, positions) }

    /// Where `key` is or would go in `keys`.
    private func slot(_ key: Key) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Registers decoder `position` for `key`; positions come in ascending order.
    mutating func add(_ position: Int, for key: Key) {
        let i = slot(key)
        if i < keys.count, keys[i] == key {
            positions[i].append(position)
        } else {
            keys.insert(key, at: i)
            positions.insert([position], at: i)
        }
    }

    subscript(key: Key) -> [Int]? {
        let i = slot(key)
        return i < keys.count && keys[i] == key ? positions[i] : nil
    }
}
