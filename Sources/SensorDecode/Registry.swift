/// The one list of decoders, and dispatch from an advertisement to the decoders that may want it.
///
/// A registry is a value: `Registry.standard(keys:)` builds the default list; tests build their
/// own. Every decoder whose selector matches is run, in list order, and all their readings are
/// kept (one advertisement can carry two formats, e.g. a Govee frame with an iBeacon glued on);
/// the peer vectors show no advertisement that two decoders both decode.
public struct Registry: Sendable {
    public let decoders: [any SensorDecoder]
    private let byServiceData: [UInt16: [Int]]
    private let byCompany: [UInt16: [Int]]
    private let anyManufacturer: [Int]
    private let always: [Int]

    public init(_ decoders: [any SensorDecoder]) {
        self.decoders = decoders
        var sd: [UInt16: [Int]] = [:]
        var co: [UInt16: [Int]] = [:]
        var anyM: [Int] = []
        var all: [Int] = []
        for (i, d) in decoders.enumerated() {
            for s in d.selectors {
                switch s {
                case .serviceData16(let u): sd[u, default: []].append(i)
                case .manufacturer(let c): co[c, default: []].append(i)
                case .anyManufacturer: anyM.append(i)
                case .any: all.append(i)
                }
            }
        }
        byServiceData = sd
        byCompany = co
        anyManufacturer = anyM
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
        public var readings: [Reading] = []
        /// (decoder id, reason) for decoders that recognised the advertisement but found it corrupt.
        public var malformed: [(decoder: String, reason: String)] = []
    }

    /// Decodes one advertisement with every decoder whose selector matches.
    public func decode(_ advertisement: Advertisement) -> Result {
        decode(advertisement, AdvertisingData(parsing: advertisement.data))
    }

    public func decode(_ advertisement: Advertisement, _ ad: AdvertisingData) -> Result {
        var result = Result()
        // Which decoders already ran: a bit per decoder (the registry has fewer than 64; beyond
        // that, the rare extra ones are tracked in an array). No allocation on the hot path.
        var triedBits: UInt64 = 0
        var triedMore: [Int] = []
        var name: String?? = .none  // the escaped local name, made once and only if a reading needs it
        func run(_ index: Int) {
            if index < 64 {
                let bit: UInt64 = 1 << UInt64(index)
                if triedBits & bit != 0 { return }
                triedBits |= bit
            } else {
                if triedMore.contains(index) { return }
                triedMore.append(index)
            }
            switch decoders[index].decode(advertisement, ad) {
            case .readings(var r):
                // Envelope fields every decoder would otherwise copy by hand.
                for j in r.indices {
                    r[j].timeMicros = advertisement.timeMicros
                    r[j].rssi = r[j].rssi ?? advertisement.rssi
                    if r[j].name == nil {
                        if name == nil { name = .some(ad.displayName) }
                        r[j].name = name!
                    }
                }
                if result.readings.isEmpty { result.readings = r } else { result.readings += r }
            case .notMine: break
            case .malformed(let why): result.malformed.append((decoders[index].id, why))
            }
        }
        for sd in ad.serviceData {
            if case .uuid16(let u) = sd.uuid, let list = byServiceData[u] { for i in list { run(i) } }
        }
        for md in ad.manufacturerData {
            if let list = byCompany[md.companyID] { for i in list { run(i) } }
        }
        if !ad.manufacturerData.isEmpty { for i in anyManufacturer { run(i) } }
        for i in always { run(i) }
        return result
    }
}

/// Keys for encrypted formats, per advertiser address. Owned by the caller (the CLI loads them
/// from the key file); decoders only read them.
public struct DeviceKeys: Sendable {
    public var keys: [BDAddress: [UInt8]]
    public init(_ keys: [BDAddress: [UInt8]] = [:]) { self.keys = keys }
    public subscript(address: BDAddress) -> [UInt8]? { keys[address] }
}
