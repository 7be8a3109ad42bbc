/// ATT protocol data units, the few a GATT client of one notifying characteristic needs: built
/// and parsed, pure, every length checked (Core spec v5.4 Vol 3 Part F 3.4).
///
/// | opcode | PDU                          | parameters (little-endian)                                    |
/// |--------|------------------------------|---------------------------------------------------------------|
/// | 0x01   | Error Response               | request opcode(1), handle(2), error code(1)                   |
/// | 0x04   | Find Information Request     | start(2), end(2)                                              |
/// | 0x05   | Find Information Response    | format(1: 1 = 16-bit, 2 = 128-bit), {handle(2), uuid(2/16)}+  |
/// | 0x08   | Read By Type Request         | start(2), end(2), type(2/16)                                  |
/// | 0x09   | Read By Type Response        | length(1), {handle(2), value(length − 2)}+                    |
/// | 0x10   | Read By Group Type Request   | start(2), end(2), group type(2/16)                            |
/// | 0x11   | Read By Group Type Response  | length(1), {handle(2), end group handle(2), value(length − 4)}+ |
/// | 0x12   | Write Request                | handle(2), value                                              |
/// | 0x13   | Write Response               | —                                                             |
/// | 0x1B   | Handle Value Notification    | handle(2), value                                              |
/// | 0x1D   | Handle Value Indication      | handle(2), value (answered with 0x1E Confirmation)            |
/// A characteristic declaration's value (type 0x2803) is properties(1), value handle(2),
/// UUID(2/16); a primary service's (0x2800) is its UUID. Requests from the peer (we run no
/// server) are answered with Error Response "Request Not Supported" (0x06); commands (bit 6 set)
/// get nothing.
public enum ATTPDU: Equatable, Sendable {
    case error(request: UInt8, handle: UInt16, code: UInt8)
    case findInformationResponse([(handle: UInt16, type: GATTUUID)])
    case readByTypeResponse([(handle: UInt16, value: [UInt8])])
    case readByGroupTypeResponse([(handle: UInt16, end: UInt16, value: [UInt8])])
    case writeResponse
    case notification(handle: UInt16, value: [UInt8])
    case indication(handle: UInt16, value: [UInt8])
    /// A request of the peer's, by opcode (answer with `notSupported`).
    case request(opcode: UInt8)
    /// A command or anything else that needs no answer.
    case other(opcode: UInt8)

    public static func == (a: ATTPDU, b: ATTPDU) -> Bool {
        switch (a, b) {
        case let (.error(r1, h1, c1), .error(r2, h2, c2)): r1 == r2 && h1 == h2 && c1 == c2
        case let (.findInformationResponse(x), .findInformationResponse(y)):
            x.map(\.handle) == y.map(\.handle) && x.map(\.type) == y.map(\.type)
        case let (.readByTypeResponse(x), .readByTypeResponse(y)): x.map(\.handle) == y.map(\.handle) && x.map(\.value) == y.map(\.value)
        case let (.readByGroupTypeResponse(x), .readByGroupTypeResponse(y)):
            x.map(\.handle) == y.map(\.handle) && x.map(\.end) == y.map(\.end) && x.map(\.value) == y.map(\.value)
        case (.writeResponse, .writeResponse): true
        case let (.notification(h1, v1), .notification(h2, v2)), let (.indication(h1, v1), .indication(h2, v2)): h1 == h2 && v1 == v2
        case let (.request(o1), .request(o2)), let (.other(o1), .other(o2)): o1 == o2
        default: false
        }
    }

    /// ATT error codes we act on.
    public static let attributeNotFound: UInt8 = 0x0A
    public static let requestNotSupported: UInt8 = 0x06

    /// Why bytes are not a PDU we accept.
    public struct Malformed: Error, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    private static func le16(_ b: ArraySlice<UInt8>, _ at: Int) -> UInt16 {
        UInt16(b[b.startIndex + at]) | UInt16(b[b.startIndex + at + 1]) << 8
    }

    /// The entries of a Read By (Group) Type Response, `p` being its parameters: a length byte,
    /// then entries of that many bytes (at least `minimumLength`, the handles), one or more.
    private static func lengthPrefixedList(_ p: ArraySlice<UInt8>, minimumLength: Int, what: String) throws(Malformed)
        -> [ArraySlice<UInt8>]
    {
        guard let lengthByte = p.first else { throw Malformed(reason: "\(what) of 1 bytes, needs at least 2") }
        let length = Int(lengthByte)
        let list = p.dropFirst()
        guard length >= minimumLength, !list.isEmpty, list.count % length == 0 else {
            throw Malformed(reason: "\(what): entries of \(length) bytes in a list of \(list.count)")
        }
        return entries(list, size: length)
    }

    /// `list` cut into entries of `size` bytes (its length a multiple of `size`).
    private static func entries(_ list: ArraySlice<UInt8>, size: Int) -> [ArraySlice<UInt8>] {
        stride(from: list.startIndex, to: list.endIndex, by: size).map { list[$0..<($0 + size)] }
    }

    /// Parses one PDU as received on the ATT channel.
    public static func parse(_ bytes: [UInt8]) throws(Malformed) -> ATTPDU {
        guard let opcode = bytes.first else { throw Malformed(reason: "empty ATT PDU") }
        let p = bytes.dropFirst()
        func need(_ n: Int, _ what: String) throws(Malformed) {
            guard p.count >= n else { throw Malformed(reason: "\(what) of \(bytes.count) bytes, needs at least \(n + 1)") }
        }
        switch opcode {
        case 0x01:
            try need(4, "Error Response")
            return .error(request: p[p.startIndex], handle: le16(p, 1), code: p[p.startIndex + 3])
        case 0x05:
            try need(1, "Find Information Response")
            let format = p[p.startIndex]
            let size: Int
            switch format {
            case 1: size = 2 + 2
            case 2: size = 2 + 16
            default: throw Malformed(reason: "Find Information Response with format \(format)")
            }
            let list = p.dropFirst()
            guard !list.isEmpty, list.count % size == 0 else {
                throw Malformed(reason: "Find Information Response list of \(list.count) bytes, not a multiple of \(size)")
            }
            // 2 or 16 bytes of UUID by `size`: always one.
            return .findInformationResponse(entries(list, size: size).map { (le16($0, 0), GATTUUID(attBytes: $0.dropFirst(2))!) })
        case 0x09:
            let found = try lengthPrefixedList(p, minimumLength: 2, what: "Read By Type Response")
            return .readByTypeResponse(found.map { (le16($0, 0), Array($0.dropFirst(2))) })
        case 0x11:
            let found = try lengthPrefixedList(p, minimumLength: 4, what: "Read By Group Type Response")
            return .readByGroupTypeResponse(found.map { (le16($0, 0), le16($0, 2), Array($0.dropFirst(4))) })
        case 0x13:
            return .writeResponse
        case 0x1B, 0x1D:
            try need(2, opcode == 0x1B ? "Handle Value Notification" : "Handle Value Indication")
            let value = Array(p.dropFirst(2))
            return opcode == 0x1B ? .notification(handle: le16(p, 0), value: value) : .indication(handle: le16(p, 0), value: value)
        default:
            // Requests have an even opcode below 0x20 here, or are among the server-bound ones;
            // a command (bit 6) never gets an answer. Responses we did not ask for are "other".
            if opcode & 0x40 != 0 { return .other(opcode: opcode) }
            switch opcode {
            case 0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20: return .request(opcode: opcode)
            default: return .other(opcode: opcode)
            }
        }
    }

    // MARK: requests

    private static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    public static func readByGroupType(start: UInt16, end: UInt16 = 0xFFFF, type: GATTUUID = .uuid16(0x2800)) -> [UInt8] {
        [0x10] + u16(start) + u16(end) + type.attBytes
    }
    public static func readByType(start: UInt16, end: UInt16, type: GATTUUID = .uuid16(0x2803)) -> [UInt8] {
        [0x08] + u16(start) + u16(end) + type.attBytes
    }
    public static func findInformation(start: UInt16, end: UInt16) -> [UInt8] { [0x04] + u16(start) + u16(end) }
    public static func write(handle: UInt16, value: [UInt8]) -> [UInt8] { [0x12] + u16(handle) + value }
    public static let confirmation: [UInt8] = [0x1E]
    /// Error Response "Request Not Supported" to the peer's request `opcode`.
    public static func notSupported(_ opcode: UInt8) -> [UInt8] { [0x01, opcode, 0x00, 0x00, requestNotSupported] }
}

/// A characteristic declaration's value: properties, value handle, UUID.
public struct CharacteristicDeclaration: Equatable, Sendable {
    public var handle: UInt16
    public var properties: UInt8
    public var valueHandle: UInt16
    public var uuid: GATTUUID

    public static let notify: UInt8 = 0x10
    public static let indicate: UInt8 = 0x20

    /// From a Read By Type (0x2803) entry; `nil` when the value is not 3 + 2 or 3 + 16 bytes.
    public init?(handle: UInt16, value: [UInt8]) {
        guard value.count == 5 || value.count == 19, let uuid = GATTUUID(attBytes: value[3...]) else { return nil }
        self.handle = handle
        properties = value[0]
        valueHandle = UInt16(value[1]) | UInt16(value[2]) << 8
        self.uuid = uuid
    }
}
