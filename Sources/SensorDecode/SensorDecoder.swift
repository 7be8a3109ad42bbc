/// The seam between advertisements and device formats. A decoder is a pure function of one
/// advertisement: no I/O, no clock, no logger, no state between calls. Keys for encrypted formats
/// are given when the decoder is made, never looked up.
public protocol SensorDecoder: Sendable {
    /// Stable identifier, stored with every reading. Never rename or reuse one. A literal
    /// (`var id: StaticString { "govee" }`): a reading being written keeps it without reference
    /// counting (see `ReadingList`), and it becomes a `String` when the reading is read.
    var id: StaticString { get }
    /// Where this decoder's data lives; the registry only calls it for advertisements that carry one
    /// of these.
    var selectors: [DecoderSelector] { get }
    /// Decodes one advertisement whose AD structures were already parsed (`ad`: its header and a
    /// view of its bytes, for the length of the call), appending its readings (possibly several,
    /// e.g. sub-devices) to `readings`. The registry drops what was appended unless the verdict is
    /// `.decoded`. Bytes a reading keeps past the call are copied into the list (`ReadingList`).
    func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict
}

extension SensorDecoder {
    /// The same decode, with its readings as values of their own (tests, tools); as from the
    /// registry, each carries the advertisement's time, RSSI and (unless the frame names the
    /// device) local name.
    public func decode(_ advertisement: Advertisement, _ ad: AdvertisingData) -> DecodeOutcome {
        var list = ReadingList()
        switch decode(ad.view(advertisement.header), into: &list) {
        case .decoded:
            var readings: [Reading] = []
            list.takeEach { readings.append($0) }
            return .readings(readings)
        case .notMine: return .notMine
        case .malformed(let why): return .malformed(why.description)
        }
    }
}

/// What a decoder says of one advertisement, its readings aside.
public enum DecodeVerdict: Sendable, Equatable {
    /// The advertisement is this decoder's; its readings were appended.
    case decoded
    /// Not this decoder's format: wrong selector, frame type or length for any known frame.
    case notMine
    /// This decoder's format, but corrupt or impossible (bad check, out-of-range value).
    case malformed(MalformedReason)
}

/// Why a decoder found a frame of its format corrupt, written like a string
/// (`.malformed("humidity \(h) % out of range")`) but put into words only when read: its literal
/// pieces are kept as they are and its numbers as numbers. A stranger's device can send a corrupt
/// frame in every advertisement, and formatting each reason (a `Double` in words, a string grown
/// piece by piece) cost ~3,000 instructions a frame, more than decoding ten good ones (callgrind).
/// Equal when the words are.
public struct MalformedReason: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    public typealias StringLiteralType = StaticString

    @usableFromInline enum Piece: Sendable {
        case literal(StaticString)
        case integer(Int)
        case real(Double)
        /// A number in lowercase hexadecimal, at least `digits` of them (`appendInterpolation(hex:)`).
        case hex(UInt64, digits: UInt8)
        /// Anything else, in words already.
        case text(String)
    }
    /// In order; one array, so that a verdict stays a word and `.decoded` costs what it did.
    @usableFromInline var pieces: [Piece] = []

    public init(stringLiteral value: StaticString) { pieces = [.literal(value)] }
    /// A reason already in words (one also given as a warning).
    public init(_ text: String) { pieces = [.text(text)] }
    public init(stringInterpolation: StringInterpolation) { pieces = stringInterpolation.pieces }

    public struct StringInterpolation: StringInterpolationProtocol {
        @usableFromInline var pieces: [Piece] = []
        public init(literalCapacity: Int, interpolationCount: Int) { pieces.reserveCapacity(2 * interpolationCount + 1) }
        public mutating func appendLiteral(_ literal: StaticString) {
            if literal.utf8CodeUnitCount > 0 { pieces.append(.literal(literal)) }  // not the "" around a value
        }
        public mutating func appendInterpolation(_ value: StaticString) { pieces.append(.literal(value)) }
        public mutating func appendInterpolation(_ value: Double) { pieces.append(.real(value)) }
        /// A byte or word in hex without making its text (`0x\(hex: id)` reads `0x0f` for 15).
        public mutating func appendInterpolation<T: FixedWidthInteger & UnsignedInteger>(
            hex value: T, digits: Int = 2
        ) {
            pieces.append(.hex(UInt64(value), digits: UInt8(clamping: digits)))
        }
        /// Words already: kept as they are (the generic path below asked the runtime to describe them).
        public mutating func appendInterpolation(_ value: String) { pieces.append(.text(value)) }
        public mutating func appendInterpolation<T: BinaryInteger>(_ value: T) {
            pieces.append(Int(exactly: value).map(Piece.integer) ?? .text(value.description))
        }
        public mutating func appendInterpolation<T>(_ value: T) { pieces.append(.text(String(describing: value))) }
    }

    public var description: String {
        pieces.map { piece -> String in
            switch piece {
            case .literal(let l): return l.text
            case .integer(let v): return String(v)
            case .real(let v): return v.description
            case .hex(let v, let digits):
                let text = String(v, radix: 16)
                return String(repeating: "0", count: Swift.max(0, Int(digits) - text.count)) + text
            case .text(let t): return t
            }
        }.joined()
    }

    public static func == (a: MalformedReason, b: MalformedReason) -> Bool { a.description == b.description }
}

/// What a decoder looks at first. The registry indexes decoders by these, so an advertisement
/// reaches only the decoders that can possibly want it.
public enum DecoderSelector: Hashable, Sendable {
    /// Service data for this 16-bit UUID.
    case serviceData16(UInt16)
    /// Manufacturer-specific data with this company id.
    case manufacturer(UInt16)
    /// Any manufacturer-specific data (formats that put data where the company id should be).
    case anyManufacturer
    /// Manufacturer-specific data whose whole value (company id bytes included) has this many bytes:
    /// for formats that put data where the company id should be but have fixed frame sizes, so
    /// that the phones around (most of what a radio hears) never reach them.
    case manufacturerValueLength(Int)
    /// Manufacturer-specific data with this company id whose whole value has this many bytes: for
    /// formats under a company id other formats use too (Inkbird's BBQ frames under 0x0001, as
    /// Govee's). A decoder's selectors of this kind are its companies and its lengths: it runs for
    /// a structure with one of the companies and one of the lengths, in any pairing, and checks
    /// the pairing itself. It may have no `manufacturer` or `manufacturerValueLength` selector.
    case manufacturerWithValueLength(company: UInt16, length: Int)
    /// A local name of this many bytes: for formats recognised by their name alone, so that the
    /// advertisements around with other names or none (most of what a radio hears) never reach
    /// them. The decoder still compares the name.
    case localNameLength(Int)
    /// Every advertisement (formats recognised by a 128-bit UUID, or by more than one name).
    case any
}

/// The three outcomes of a decode, after rtl_433's "not mine is not broken".
public enum DecodeOutcome: Sendable, Equatable {
    /// The advertisement is this decoder's and held these readings (possibly several, e.g. sub-devices).
    case readings([Reading])
    /// Not this decoder's format: wrong selector, frame type or length for any known frame.
    case notMine
    /// This decoder's format, but corrupt or impossible (bad check, out-of-range value).
    case malformed(String)
}
