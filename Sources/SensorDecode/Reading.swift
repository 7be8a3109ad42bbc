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
    /// Kept as received and escaped with `DisplayText.escape` when read (see `DeviceName`).
    public var deviceName: DeviceName?
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
        self.deviceName = name.map(DeviceName.init)
        self.warnings = warnings
    }

    /// The device's name as display text: escaped radio text, still a stranger's words.
    public var name: String? {
        get { deviceName?.text }
        set { deviceName = newValue.map(DeviceName.init) }
    }

    /// The value of a quantity, if this reading has it.
    public func value(_ q: Quantity) -> Double? {
        measurements.first { $0.quantity == q }?.value
    }
}

/// A device name: text a decoder made, or bytes the radio sent, which are escaped only when read.
///
/// Most advertisements a sensor sends carry its local name, and escaping it for each reading cost
/// more than decoding the reading (~480 instructions, callgrind), while a logger needs the text
/// only when it stores a row or prints a line. Equal when their texts are equal.
public struct DeviceName: Sendable, Equatable, CustomStringConvertible {
    @usableFromInline enum Form: Sendable {
        case text(String)
        /// Untrusted bytes, not necessarily UTF-8; a view sharing the advertisement's storage.
        case radio(ArraySlice<UInt8>)
    }
    @usableFromInline var form: Form

    /// Text already made safe to print.
    public init(_ text: String) { form = .text(text) }
    /// Bytes as broadcast.
    @inlinable public init(radio bytes: ArraySlice<UInt8>) { form = .radio(bytes) }

    /// The name, with control characters and invalid UTF-8 made harmless.
    public var text: String {
        switch form {
        case .text(let t): t
        case .radio(let b): DisplayText.escape(b)
        }
    }

    public var description: String { text }

    public static func == (a: DeviceName, b: DeviceName) -> Bool {
        // Equal bytes escape to equal text; unequal bytes still can (invalid UTF-8 is repaired).
        if case .radio(let x) = a.form, case .radio(let y) = b.form, x.elementsEqual(y) { return true }
        return a.text == b.text
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
