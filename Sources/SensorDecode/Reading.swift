public struct Measurement: Hashable, Sendable {
    public var quantity: Quantity
    public var value: Double

    public init(_ quantity: Quantity, _ value: Double) {
        self.quantity = quantity
        self.value = value
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
    /// Which frame of a multi-frame protocol this came from ("a1-01", "tlm", …), or the identity
    /// a frame carries (iBeacon's `uuid/major/minor`); `nil` if only one. See `frameKind`.
    public var frameKindText: DeferredText?
    public var measurements: [Measurement]
    /// Receive time, microseconds since the Unix epoch (UTC), copied from the advertisement.
    public var timeMicros: Int64
    public var rssi: Int8?
    /// The device's name: from the payload where the format carries one, else the AD local name.
    /// Kept as received and escaped with `DisplayText.escape` when read. See `name`.
    public var nameText: DeferredText?
    /// Problems worth a user's attention that did not stop decoding (e.g. the MAC inside the
    /// payload differs from the advertiser address).
    public var warnings: [DecodeWarning]

    public init(
        address: BDAddress, addressType: AddressType = .publicDevice, decoderID: String, model: String,
        frameKind: String? = nil, measurements: [Measurement], timeMicros: Int64 = 0, rssi: Int8? = nil,
        name: String? = nil, warnings: [DecodeWarning] = []
    ) {
        self.init(
            address: address, addressType: addressType, decoderID: decoderID, model: model,
            frameKindText: frameKind.map(DeferredText.init), measurements: measurements, timeMicros: timeMicros,
            rssi: rssi, nameText: name.map(DeferredText.init), warnings: warnings)
    }

    /// The same, with the texts as a reading keeps them (`ReadingList` makes readings this way,
    /// every field at once: set one by one after the init, the reading was copied twice on its
    /// way out, ~340 instructions and its references retained and released, callgrind).
    @inline(__always) init(
        address: BDAddress, addressType: AddressType, decoderID: String, model: String, frameKindText: DeferredText?,
        measurements: [Measurement], timeMicros: Int64, rssi: Int8?, nameText: DeferredText?, warnings: [DecodeWarning]
    ) {
        self.address = address
        self.addressType = addressType
        self.decoderID = decoderID
        self.model = model
        self.frameKindText = frameKindText
        self.measurements = measurements
        self.timeMicros = timeMicros
        self.rssi = rssi
        self.nameText = nameText
        self.warnings = warnings
    }

    /// The device's name as display text: escaped radio text, still a stranger's words.
    public var name: String? {
        get { nameText?.text }
        set { nameText = newValue.map(DeferredText.init) }
    }

    public var frameKind: String? {
        get { frameKindText?.text }
        set { frameKindText = newValue.map(DeferredText.init) }
    }

    /// The value of a quantity, if this reading has it.
    public func value(_ q: Quantity) -> Double? {
        measurements.first { $0.quantity == q }?.value
    }
}

/// Text of a reading made from advertisement bytes only when it is read: a device name as the
/// radio sent it (escaped when read), or an identity a frame carries (iBeacon's UUID, major and
/// minor).
///
/// Most advertisements a sensor sends carry its local name, and escaping it for each reading cost
/// more than decoding the reading (~480 instructions, callgrind); an iBeacon's identity text cost
/// ~240 (an allocation). A logger needs either only when it stores a row or prints a line, so a
/// reading keeps the bytes, which share the storage its reading list copied them into (see
/// `ReadingList`, invariant 2). Equal when the texts are.
public struct DeferredText: Sendable, Equatable, CustomStringConvertible {
    /// Makes the text from the bytes. A plain function, not a closure that captures: copying a
    /// reading then copies a pointer.
    public typealias Format = @Sendable (ArraySlice<UInt8>) -> String

    @usableFromInline enum Form: Sendable {
        case text(String)
        case bytes(ArraySlice<UInt8>, Format)
    }
    @usableFromInline var form: Form

    /// Text as it is.
    public init(_ text: String) { form = .text(text) }
    /// Text that `format` makes of `bytes` when read. `format` must be a pure function of the
    /// bytes (it runs each time the text is read, and equality compares its results).
    @inlinable public init(_ bytes: ArraySlice<UInt8>, format: @escaping Format) { form = .bytes(bytes, format) }
    /// A name as broadcast: untrusted bytes, not necessarily UTF-8, escaped when read.
    @inlinable public static func radio(_ bytes: ArraySlice<UInt8>) -> DeferredText {
        // A closure literal that captures nothing: a reference to the generic `escape` would
        // capture its type arguments.
        DeferredText(bytes, format: { DisplayText.escape($0) })
    }

    public var text: String {
        switch form {
        case .text(let t): t
        case .bytes(let b, let format): format(b)
        }
    }

    public var description: String { text }

    public static func == (a: DeferredText, b: DeferredText) -> Bool { a.text == b.text }
}

/// A problem that did not stop decoding. Kept as a value and put into words only when shown: a
/// stranger's sensor can advertise a mismatched MAC in every frame, and formatting both addresses
/// for each one cost more than decoding the frame (callgrind).
public enum DecodeWarning: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The device address carried inside the payload differs from the advertiser address.
    case payloadAddress(BDAddress, advertiser: BDAddress)
    /// Anything else, in words.
    case text(String)
    /// Anything else, in pieces put into words when read: what a literal or an interpolation
    /// (`"object 0x\(hex: id) skipped"`) makes, as a `MalformedReason` does.
    case reason(MalformedReason)

    public typealias StringLiteralType = StaticString
    public init(stringLiteral value: StaticString) { self = .reason(MalformedReason(stringLiteral: value)) }
    public init(stringInterpolation: MalformedReason.StringInterpolation) {
        self = .reason(MalformedReason(stringInterpolation: stringInterpolation))
    }

    public var description: String {
        switch self {
        case .payloadAddress(let payload, let advertiser):
            "payload MAC \(payload) differs from advertiser address \(advertiser)"
        case .text(let words): words
        case .reason(let why): why.description
        }
    }

    /// Equal when the words are, however each was kept.
    public static func == (a: DecodeWarning, b: DecodeWarning) -> Bool { a.description == b.description }
}
