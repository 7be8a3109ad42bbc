/// The seam between advertisements and device formats. A decoder is a pure function of one
/// advertisement: no I/O, no clock, no logger, no state between calls. Keys for encrypted formats
/// are given when the decoder is made, never looked up.
public protocol SensorDecoder: Sendable {
    /// Stable identifier, stored with every reading. Never rename or reuse one.
    var id: String { get }
    /// Where this decoder's data lives; the registry calls it only for advertisements that carry
    /// one of these.
    var selectors: [Selector] { get }
    /// Decodes one advertisement: its readings (possibly several, e.g. sub-devices), or why not.
    func decode(_ ad: Advertisement) -> DecodeOutcome
}

/// What a decoder looks at first. The registry indexes decoders by these, so an advertisement
/// reaches only the decoders that can possibly want it; the decoder still checks everything.
public enum Selector: Hashable, Sendable {
    /// Service data for this 16-bit UUID.
    case serviceData(uuid16: UInt16)
    /// Manufacturer-specific data with this company id.
    case manufacturer(company: UInt16)
    /// Manufacturer-specific data whose whole value (company id bytes included) has this many
    /// bytes: for formats that put data where the company id should be.
    case manufacturerLength(Int)
    /// This local name, exactly as broadcast (formats recognised by their name alone).
    case localName(String)
}

/// The three outcomes of a decode, after rtl_433's "not mine is not broken".
public enum DecodeOutcome: Sendable, Equatable {
    /// The advertisement is this decoder's and held these readings (possibly several, e.g. sub-devices).
    case readings([Reading])
    /// Not this decoder's format: wrong selector, frame type or length for any known frame.
    case notMine
    /// This decoder's format, but corrupt or impossible (bad check, out-of-range value).
    case malformed(String)

    /// One reading.
    public static func reading(_ r: consuming Reading) -> DecodeOutcome { .readings([consume r]) }
}

/// Keys for encrypted formats, per advertiser address. Owned by the caller (the CLI loads them
/// from the key file); decoders only read them.
public struct DeviceKeys: Sendable {
    public var keys: [BDAddress: [UInt8]]
    public init(_ keys: [BDAddress: [UInt8]] = [:]) { self.keys = keys }
    public subscript(address: BDAddress) -> [UInt8]? { keys[address] }
}
