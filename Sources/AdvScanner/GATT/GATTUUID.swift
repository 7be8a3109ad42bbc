/// A GATT attribute type: a 16-bit SIG UUID or a full 128-bit one, as ATT carries them
/// (2 or 16 bytes, little-endian).
public enum GATTUUID: Hashable, Sendable, CustomStringConvertible {
    case uuid16(UInt16)
    /// 16 bytes, in the usual big-endian text order.
    case uuid128([UInt8])

    /// The Bluetooth Base UUID, into which 16-bit UUIDs expand (Core spec Vol 3 Part B 2.5.1).
    static let base: [UInt8] = [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB,
    ]

    /// `2220`, `0x2220`, or `6e400001-b5a3-f393-e0a9-e50e24dcca9e` (dashes optional).
    public init?(_ text: String) {
        var t = Substring(text)
        if t.hasPrefix("0x") || t.hasPrefix("0X") { t = t.dropFirst(2) }
        let digits = t.filter { $0 != "-" }
        if digits.count == 4, let v = UInt16(digits, radix: 16) {
            self = .uuid16(v)
            return
        }
        guard digits.count == 32, digits.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        var i = digits.startIndex
        while i < digits.endIndex {
            let j = digits.index(i, offsetBy: 2)
            guard let b = UInt8(digits[i..<j], radix: 16) else { return nil }
            bytes.append(b)
            i = j
        }
        self = Self.normalised(bytes)
    }

    /// A 128-bit UUID on the Base UUID is its 16-bit self (so `2220` matches either form on the wire).
    static func normalised(_ bigEndian: [UInt8]) -> GATTUUID {
        if bigEndian[0] == 0, bigEndian[1] == 0, Array(bigEndian[4...]) == Array(base[4...]) {
            return .uuid16(UInt16(bigEndian[2]) << 8 | UInt16(bigEndian[3]))
        }
        return .uuid128(bigEndian)
    }

    /// From ATT's little-endian bytes (2 or 16 of them).
    init?(attBytes: ArraySlice<UInt8>) {
        switch attBytes.count {
        case 2: self = .uuid16(UInt16(attBytes[attBytes.startIndex]) | UInt16(attBytes[attBytes.startIndex + 1]) << 8)
        case 16: self = Self.normalised(attBytes.reversed())
        default: return nil
        }
    }

    /// As ATT carries it: 2 bytes for a 16-bit UUID, else 16, little-endian.
    var attBytes: [UInt8] {
        switch self {
        case .uuid16(let v): [UInt8(v & 0xFF), UInt8(v >> 8)]
        case .uuid128(let b): b.reversed()
        }
    }

    public var description: String {
        switch self {
        case .uuid16(let v):
            let h = String(v, radix: 16)
            return String(repeating: "0", count: 4 - h.count) + h
        case .uuid128(let b):
            let h = b.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { r in
                String(h.dropFirst(r.lowerBound).prefix(r.count))
            }
            return parts.joined(separator: "-")
        }
    }
}
