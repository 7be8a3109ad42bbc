public struct Measurement: Hashable, Sendable {
    public var quantity: Quantity
    public var value: Double

    public init(_ quantity: Quantity, _ value: Double) {
        self.quantity = quantity
        self.value = value
    }
}

extension Array where Element == Measurement {
    /// An empty list with room for a frame's measurements. Decoders append one by one, and
    /// growing from empty reallocated two or three times per reading (callgrind).
    public static func forFrame() -> [Measurement] {
        var list: [Measurement] = []
        list.reserveCapacity(8)
        return list
    }
}

/// What a decoder made of one advertisement: who sent it, which device model, and its measurements.
public struct Reading: Sendable, Equatable {
    public var address: BDAddress
    public var addressType: AddressType
    /// The decoder's stable id (`Registry` ids are stored with readings; never renamed or reused).
    public var decoderID: String
    /// Device model as the decoder knows it ("MM-BLEBC7", "H5075", …).
    public var model: String
    /// Which frame of a multi-frame protocol this came from ("a1-01", "tlm", …); `nil` if only one.
    public var frameKind: String?
    public var measurements: [Measurement]
    /// Receive time, microseconds since the Unix epoch (UTC), copied from the advertisement.
    public var timeMicros: Int64
    public var rssi: Int8?
    /// The device's name: from the payload where the format carries one, else the AD local name.
    /// Radio text: already escaped with `DisplayText.escape`, but still a stranger's words.
    public var name: String?
    /// Problems worth a user's attention that did not stop decoding (e.g. the MAC inside the
    /// payload differs from the advertiser address).
    public var warnings: [DecodeWarning]

    public init(
        address: BDAddress, addressType: AddressType = .publicDevice, decoderID: String, model: String,
        frameKind: String? = nil, measurements: [Measurement], timeMicros: Int64 = 0, rssi: Int8? = nil,
        name: String? = nil, warnings: [DecodeWarning] = []
    ) {
        self.address = address
        self.addressType = addressType
        self.decoderID = decoderID
        self.model = model
        self.frameKind = frameKind
        self.measurements = measurements
        self.timeMicros = timeMicros
        self.rssi = rssi
        self.name = name
        self.warnings = warnings
    }

    /// The value of a quantity, if this reading has it.
    public func value(_ q: Quantity) -> Double? {
        measurements.first { $0.quantity == q }?.value
    }
}

/// A problem that did not stop decoding. Kept as a value and put into words only when shown: a
/// stranger's sensor can advertise a mismatched MAC in every frame, and formatting both addresses
/// for each one cost more than decoding the frame (callgrind).
public enum DecodeWarning: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The device address carried inside the payload differs from the advertiser address.
    case payloadAddress(BDAddress, advertiser: BDAddress)
    /// Anything else, in words.
    case text(String)

    public init(stringLiteral value: String) { self = .text(value) }
    public init(stringInterpolation: DefaultStringInterpolation) { self = .text(String(stringInterpolation: stringInterpolation)) }

    public var description: String {
        switch self {
        case .payloadAddress(let payload, let advertiser):
            "payload MAC \(payload) differs from advertiser address \(advertiser)"
        case .text(let words): words
        }
    }
}
