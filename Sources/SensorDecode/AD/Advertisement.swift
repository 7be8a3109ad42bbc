/// Everything an advertising report says of an advertisement but its bytes: address and type,
/// event type, RSSI, PHYs, advertising set and receive time.
public struct AdvertisementHeader: Sendable, Equatable {
    public var address: BDAddress
    public var addressType: AddressType
    /// Legacy event types 0–4 as in the 0x02 report; extended reports keep their 16-bit property bits.
    public var eventType: UInt16
    /// dBm; `nil` when the controller says "not available" (127).
    public var rssi: Int8?
    /// Primary / secondary PHY from an extended report (1 = 1M, 2 = 2M, 3 = Coded); `nil` for legacy.
    public var primaryPHY: UInt8?
    public var secondaryPHY: UInt8?
    /// Advertising set id from an extended report; `nil` for legacy or "no ADI".
    public var sid: UInt8?
    /// Receive time, microseconds since the Unix epoch (UTC). 0 when unknown.
    public var timeMicros: Int64

    public init(
        address: BDAddress = BDAddress(rawValue: 0), addressType: AddressType = .publicDevice, eventType: UInt16 = 0,
        rssi: Int8? = nil, primaryPHY: UInt8? = nil, secondaryPHY: UInt8? = nil, sid: UInt8? = nil,
        timeMicros: Int64 = 0
    ) {
        self.address = address
        self.addressType = addressType
        self.eventType = eventType
        self.rssi = rssi
        self.primaryPHY = primaryPHY
        self.secondaryPHY = secondaryPHY
        self.sid = sid
        self.timeMicros = timeMicros
    }
}

/// One advertising report, owning its bytes and their AD structures parsed: what decoders read.
///
/// Built by AdvScanner from LE Advertising Report (0x02) or LE Extended Advertising Report (0x0D)
/// events, or by hand (the `decode` command, tests). Lives in SensorDecode so that decoders need
/// nothing from the scanner, and the scanner nothing but this type from the decoders.
///
/// The bytes are kept once, in `fields`, so that they and their parse cannot disagree.
@dynamicMemberLookup
public struct Advertisement: Sendable, Equatable {
    /// Everything but the bytes.
    public var header: AdvertisementHeader
    /// The AD structures, parsed.
    public private(set) var fields: AdvertisingData
    /// The AD structures, exactly as received (setting them parses them again).
    public var data: ArraySlice<UInt8> {
        get { fields.bytes }
        set { fields = AdvertisingData(parsing: newValue) }
    }

    /// The header's fields, read and written as the advertisement's own (`ad.address`).
    public subscript<T>(dynamicMember field: WritableKeyPath<AdvertisementHeader, T>) -> T {
        get { header[keyPath: field] }
        set { header[keyPath: field] = newValue }
    }

    public init(header: AdvertisementHeader, data: ArraySlice<UInt8>) {
        self.header = header
        fields = AdvertisingData(parsing: data)
    }

    public init(
        address: BDAddress, addressType: AddressType = .publicDevice, eventType: UInt16 = 0, rssi: Int8? = nil,
        primaryPHY: UInt8? = nil, secondaryPHY: UInt8? = nil, sid: UInt8? = nil, data: ArraySlice<UInt8>,
        timeMicros: Int64 = 0
    ) {
        self.init(
            header: AdvertisementHeader(
                address: address, addressType: addressType, eventType: eventType, rssi: rssi, primaryPHY: primaryPHY,
                secondaryPHY: secondaryPHY, sid: sid, timeMicros: timeMicros),
            data: data)
    }

    public init(
        address: BDAddress, addressType: AddressType = .publicDevice, eventType: UInt16 = 0, rssi: Int8? = nil,
        primaryPHY: UInt8? = nil, secondaryPHY: UInt8? = nil, sid: UInt8? = nil, data: [UInt8], timeMicros: Int64 = 0
    ) {
        self.init(
            address: address, addressType: addressType, eventType: eventType, rssi: rssi, primaryPHY: primaryPHY,
            secondaryPHY: secondaryPHY, sid: sid, data: data[...], timeMicros: timeMicros)
    }

    /// Equal when the header and the bytes are (the parse follows from the bytes).
    public static func == (a: Advertisement, b: Advertisement) -> Bool { a.header == b.header && a.data == b.data }
}

/// What decoders read of an advertisement.
extension Advertisement {
    /// The value of the first 16-bit service data structure for `uuid16`, after the UUID.
    public func serviceData(uuid16: UInt16) -> Frame? { fields.serviceData(uuid16: uuid16) }

    /// The value of the first manufacturer-specific structure with this company id, after the id.
    public func manufacturerData(company: UInt16) -> Frame? { fields.manufacturerData(company: company) }

    /// Every manufacturer-specific structure, in order, each with its company id.
    public var manufacturerData: some Collection<ManufacturerData> { fields.manufacturerData }

    /// The 16-bit service UUIDs of the UUID lists, in order.
    public var serviceUUID16s: [UInt16] {
        fields.serviceUUIDs.compactMap { if case .uuid16(let u) = $0 { u } else { nil } }
    }

    /// The local name's bytes as broadcast (untrusted), the complete name if there is one.
    public var localName: Frame? {
        guard let range = fields.localNameRange else { return nil }
        return Frame(fields.bytes[range])
    }

    /// Whether the local name is `text` (ASCII case folded if `ignoringCase`).
    public func localNameIs(_ text: String, ignoringCase: Bool = false) -> Bool {
        guard let name = fields.localName else { return false }
        return name.elementsEqual(text.utf8) { ASCII.same($0, $1, ignoringCase) }
    }

    /// Whether the local name starts with `prefix`.
    public func localNameHasPrefix(_ prefix: String, ignoringCase: Bool = false) -> Bool {
        guard let name = fields.localName else { return false }
        return ASCII.hasPrefix(name, prefix, ignoringCase)
    }

    /// Whether the local name contains `needle`.
    public func localNameContains(_ needle: String, ignoringCase: Bool = false) -> Bool {
        guard var name = fields.localName else { return false }
        while name.count >= needle.utf8.count {
            if ASCII.hasPrefix(name, needle, ignoringCase) { return true }
            name = name.dropFirst()
        }
        return false
    }

    /// A reading of this advertisement: its address, time, RSSI and local name, and no
    /// measurements yet.
    public func reading(decoder: String, model: String, frameKind: String? = nil) -> Reading {
        // `if let` rather than `map`: a closure over `fields` copied the whole advertisement.
        var localNameSource: DeviceName?
        if let range = fields.localNameRange { localNameSource = .broadcast(fields.bytes[range]) }
        var measurements: [Measurement] = []
        measurements.reserveCapacity(4)  // most readings have 1 to 4: one allocation
        return Reading(
            address: header.address, addressType: header.addressType, decoderID: decoder, model: model,
            frameKind: frameKind, measurements: measurements, timeMicros: header.timeMicros, rssi: header.rssi,
            warnings: [], events: [], nameSource: localNameSource)
    }
}

/// ASCII case folding for comparing names with model names (all ASCII).
enum ASCII {
    static func fold(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
    static func same(_ a: UInt8, _ b: UInt8, _ ignoringCase: Bool) -> Bool {
        ignoringCase ? fold(a) == fold(b) : a == b
    }
    static func hasPrefix(_ bytes: ArraySlice<UInt8>, _ prefix: String, _ ignoringCase: Bool) -> Bool {
        bytes.count >= prefix.utf8.count && zip(bytes, prefix.utf8).allSatisfy { same($0, $1, ignoringCase) }
    }
}
