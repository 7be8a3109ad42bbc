public struct Measurement: Hashable, Sendable {
    public var quantity: Quantity
    public var value: Double

    public init(_ quantity: Quantity, _ value: Double) {
        self.quantity = quantity
        self.value = value
    }
}

/// What a decoder made of one advertisement: who sent it, which device model, and its measurements.
/// Decoders start one with `Advertisement.reading(decoder:model:frameKind:)` and `add` to it.
public struct Reading: Sendable, Equatable {
    public var address: BDAddress
    public var addressType: AddressType
    /// The decoder's stable id (`Registry` ids are stored with readings; never renamed or reused).
    public var decoderID: String
    /// Device model as the decoder knows it ("MM-BLEBC7", "H5075", …).
    public var model: String
    /// Which frame of a multi-frame protocol this came from ("a1-01", "tlm", …), or the identity
    /// a frame carries (iBeacon's `uuid/major/minor`); `nil` if only one.
    public var frameKind: String?
    public var measurements: [Measurement]
    /// Receive time, microseconds since the Unix epoch (UTC), copied from the advertisement.
    public var timeMicros: Int64
    public var rssi: Int8?
    /// Problems worth a user's attention that did not stop decoding (e.g. the MAC inside the
    /// payload differs from the advertiser address).
    public var warnings: [DecodeWarning]
    /// Button presses, dimmer turns and the like the frame carried (`DeviceEvent`), in frame order.
    public var events: [DeviceEvent]
    /// The device's name: from the payload where the format carries one, else the AD local name.
    /// Kept as broadcast and escaped when read (`name`): most readings are folded into a stored
    /// row that already has it.
    var nameSource: DeviceName?

    /// The device's name as display text (escaped with `DisplayText.escape`, still a stranger's
    /// words).
    public var name: String? {
        get { nameSource?.text }
        set { nameSource = newValue.map(DeviceName.text) }
    }

    /// The value of a quantity, if this reading has it.
    public func value(_ q: Quantity) -> Double? {
        measurements.first { $0.quantity == q }?.value
    }

    /// Appends a measurement.
    public mutating func add(_ quantity: Quantity, _ value: Double) {
        measurements.append(Measurement(quantity, value))
    }

    /// Adds a warning.
    public mutating func warn(_ warning: DecodeWarning) {
        warnings.append(warning)
    }

    /// Warns when the device address a payload carries is not the advertiser's (firmware that
    /// lets the user broadcast a random address does this).
    public mutating func checkPayloadAddress(_ payloadAddress: BDAddress) {
        if payloadAddress != address { warn(.payloadAddress(payloadAddress, advertiser: address)) }
    }

    /// Sets the name to one the frame carries: bytes as broadcast, escaped for display.
    public mutating func setName(fromFrame bytes: Frame) {
        nameSource = .broadcast(bytes.bytes)
    }
}

extension Reading {
    // Here rather than in the struct so that the struct keeps its memberwise initializer (whose
    // labels differ: `warnings` and `events` are declared before the name), which builds a reading in place; an
    // initializer assigning each stored property left a copy of the whole reading behind.
    public init(
        address: BDAddress, addressType: AddressType = .publicDevice, decoderID: String, model: String,
        frameKind: String? = nil, measurements: [Measurement], timeMicros: Int64 = 0, rssi: Int8? = nil,
        name: String? = nil, warnings: [DecodeWarning] = [], events: [DeviceEvent] = []
    ) {
        self.init(
            address: address, addressType: addressType, decoderID: decoderID, model: model, frameKind: frameKind,
            measurements: measurements, timeMicros: timeMicros, rssi: rssi, warnings: warnings, events: events,
            nameSource: name.map(DeviceName.text))
    }
}

/// A problem that did not stop decoding, written as a string (`"object 0x\(Hex.number(id)) skipped"`).
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
            // Written in one buffer: interpolation built it piece by piece, for a warning that
            // every reading of such a device carries.
            var text: [UInt8] = []
            text.reserveCapacity(64)
            text += "payload MAC ".utf8
            payload.appendText(to: &text)
            text += " differs from advertiser address ".utf8
            advertiser.appendText(to: &text)
            return String(decoding: text, as: UTF8.self)
        case .text(let words): return words
        }
    }
}

/// A device name as broadcast (any bytes: escaped for display when read) or as display text.
enum DeviceName: Sendable, Equatable {
    case broadcast(ArraySlice<UInt8>)
    case text(String)

    var text: String {
        switch self {
        case .broadcast(let bytes): DisplayText.escape(bytes)
        case .text(let text): text
        }
    }

    /// Names are equal when they read the same.
    static func == (a: DeviceName, b: DeviceName) -> Bool { a.text == b.text }
}
