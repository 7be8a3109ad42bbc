/// Advertising Data (AD structures), Core Specification Supplement Part A, and the assigned numbers
/// for AD types. The payload is a sequence of `length | type | value[length-1]`; a zero length ends
/// the significant part (the rest is padding).
///
/// The walk is exhaustive about lengths, in the manner of btmon's `print_eir`:
///  - it stops at a zero length (clean end) or at a structure whose length runs past the buffer
///    (`truncated`), keeping every structure before it;
///  - a field whose value has the wrong size for its type (flags without a byte, a TX power of two
///    bytes, a UUID list that is not a whole number of UUIDs) is skipped and counted in
///    `malformedFields`; it is never half-read;
///  - unknown types are kept in `other`, so `--all` can show them.

/// A service UUID of any of the three sizes.
public enum ServiceUUID: Hashable, Sendable, CustomStringConvertible {
    case uuid16(UInt16)
    case uuid32(UInt32)
    /// 16 bytes, most-significant first (the order of the canonical text form).
    case uuid128([UInt8])

    public var description: String {
        switch self {
        case .uuid16(let v): return Hex.encode([UInt8(v >> 8), UInt8(v & 0xFF)])
        case .uuid32(let v): return Hex.encode([UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)])
        case .uuid128(let b):
            // 8-4-4-4-12 hex digits, built as bytes (iBeacon frames print one per advertisement).
            let digits: [UInt8] = Array("0123456789abcdef".utf8)
            var out: [UInt8] = []
            out.reserveCapacity(36)
            for (i, byte) in b.enumerated() {
                if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}

public struct ServiceData: Sendable, Equatable {
    public var uuid: ServiceUUID
    public var data: ArraySlice<UInt8>
}

public struct ManufacturerData: Sendable, Equatable {
    /// Company identifier (little-endian on air).
    public var companyID: UInt16
    /// The bytes after the company identifier.
    public var data: ArraySlice<UInt8>
    /// The whole value including the two company-id bytes: some vendors (Inkbird, ThermoBeacon, Govee)
    /// put measurements where the company id should be.
    public var value: ArraySlice<UInt8>
}

/// The AD types we interpret, by their assigned numbers.
public enum ADType {
    public static let flags: UInt8 = 0x01
    public static let incompleteUUID16: UInt8 = 0x02
    public static let completeUUID16: UInt8 = 0x03
    public static let incompleteUUID32: UInt8 = 0x04
    public static let completeUUID32: UInt8 = 0x05
    public static let incompleteUUID128: UInt8 = 0x06
    public static let completeUUID128: UInt8 = 0x07
    public static let shortenedLocalName: UInt8 = 0x08
    public static let completeLocalName: UInt8 = 0x09
    public static let txPowerLevel: UInt8 = 0x0A
    public static let serviceData16: UInt8 = 0x16
    public static let appearance: UInt8 = 0x19
    public static let serviceData32: UInt8 = 0x20
    public static let serviceData128: UInt8 = 0x21
    public static let manufacturerSpecific: UInt8 = 0xFF
}

/// The parsed AD structures of one advertisement.
public struct AdvertisingData: Sendable, Equatable {
    public var flags: UInt8?
    /// Raw name bytes as broadcast (untrusted: any bytes, not necessarily UTF-8).
    public var localName: ArraySlice<UInt8>?
    public var localNameIsComplete = false
    public var serviceUUIDs: [ServiceUUID] = []
    public var serviceData: [ServiceData] = []
    public var manufacturerData: [ManufacturerData] = []
    public var txPower: Int8?
    public var appearance: UInt16?
    /// Structures of types not interpreted above: (type, value).
    public var other: [(type: UInt8, value: ArraySlice<UInt8>)] = []
    /// A structure's length ran past the end of the data; everything before it was kept.
    public var truncated = false
    /// Structures of a known type whose value had an impossible size; skipped.
    public var malformedFields = 0

    public init() {}

    /// Walks the AD structures of `bytes`. Never fails: problems are recorded in `truncated` and
    /// `malformedFields`. Slices share `bytes`' storage (no copies).
    public init(parsing bytes: ArraySlice<UInt8>) {
        var i = bytes.startIndex
        let end = bytes.endIndex
        while i < end {
            let length = Int(bytes[i])
            if length == 0 { break }  // zero length: end of significant part
            guard length <= end - i - 1 else {  // runs past the buffer
                truncated = true
                break
            }
            let type = bytes[i + 1]
            let value = bytes[(i + 2)..<(i + 1 + length)]
            i += 1 + length
            interpret(type: type, value: value)
        }
    }

    public init(parsing bytes: [UInt8]) { self.init(parsing: bytes[...]) }

    /// The service data for a 16-bit UUID, if present (the first one).
    @inlinable public func serviceData(uuid16: UInt16) -> ArraySlice<UInt8>? {
        for sd in serviceData { if case .uuid16(uuid16) = sd.uuid { return sd.data } }
        return nil
    }

    /// The manufacturer data of a company, if present (the first one).
    @inlinable public func manufacturerData(company: UInt16) -> ManufacturerData? {
        manufacturerData.first { $0.companyID == company }
    }

    /// The local name with control characters and invalid UTF-8 made harmless, for display.
    public var displayName: String? {
        localName.map { DisplayText.escape($0) }
    }

    private mutating func interpret(type: UInt8, value: ArraySlice<UInt8>) {
        switch type {
        case ADType.flags:
            guard let f = value.first else { malformedFields += 1; return }
            flags = f
        case ADType.incompleteUUID16, ADType.completeUUID16:
            guard value.count % 2 == 0 else { malformedFields += 1; return }
            var j = value.startIndex
            while j < value.endIndex {
                serviceUUIDs.append(.uuid16(value[j...].le16(0)))
                j += 2
            }
        case ADType.incompleteUUID32, ADType.completeUUID32:
            guard value.count % 4 == 0 else { malformedFields += 1; return }
            var j = value.startIndex
            while j < value.endIndex {
                serviceUUIDs.append(.uuid32(value[j...].le32(0)))
                j += 4
            }
        case ADType.incompleteUUID128, ADType.completeUUID128:
            guard value.count % 16 == 0 else { malformedFields += 1; return }
            var j = value.startIndex
            while j < value.endIndex {
                serviceUUIDs.append(.uuid128(value[j..<j + 16].reversed()))
                j += 16
            }
        case ADType.shortenedLocalName, ADType.completeLocalName:
            // A complete name wins over a shortened one, whichever comes first.
            if localName == nil || type == ADType.completeLocalName {
                localName = value
                localNameIsComplete = type == ADType.completeLocalName
            }
        case ADType.txPowerLevel:
            guard value.count == 1 else { malformedFields += 1; return }
            txPower = value.i8(0)
        case ADType.appearance:
            guard value.count == 2 else { malformedFields += 1; return }
            appearance = value.le16(0)
        case ADType.serviceData16:
            guard value.count >= 2 else { malformedFields += 1; return }
            serviceData.append(ServiceData(uuid: .uuid16(value.le16(0)), data: value.dropFirst(2)))
        case ADType.serviceData32:
            guard value.count >= 4 else { malformedFields += 1; return }
            serviceData.append(ServiceData(uuid: .uuid32(value.le32(0)), data: value.dropFirst(4)))
        case ADType.serviceData128:
            guard value.count >= 16 else { malformedFields += 1; return }
            serviceData.append(
                ServiceData(uuid: .uuid128(value.prefix(16).reversed()), data: value.dropFirst(16)))
        case ADType.manufacturerSpecific:
            guard value.count >= 2 else { malformedFields += 1; return }
            manufacturerData.append(
                ManufacturerData(companyID: value.le16(0), data: value.dropFirst(2), value: value))
        default:
            other.append((type, value))
        }
    }

    public static func == (a: AdvertisingData, b: AdvertisingData) -> Bool {
        a.flags == b.flags && a.localName == b.localName && a.localNameIsComplete == b.localNameIsComplete
            && a.serviceUUIDs == b.serviceUUIDs && a.serviceData == b.serviceData
            && a.manufacturerData == b.manufacturerData && a.txPower == b.txPower && a.appearance == b.appearance
            && a.other.elementsEqual(b.other, by: { $0.type == $1.type && $0.value == $1.value })
            && a.truncated == b.truncated && a.malformedFields == b.malformedFields
    }
}

/// Text that came from the radio, made safe to print: a stranger's device can broadcast any bytes.
public enum DisplayText {
    /// Decodes UTF-8 (invalid sequences become U+FFFD) and escapes control characters
    /// (C0, DEL, C1, and the bidi overrides) as `\u{XX}`-style `\xNN` / `\u{NNNN}` text.
    public static func escape<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        // Fast path, the common case: printable ASCII without a backslash needs no escaping.
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        let decoded = String(decoding: bytes, as: UTF8.self)
        var out = ""
        out.reserveCapacity(decoded.utf8.count)
        for scalar in decoded.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) {
                out += "\\x" + Hex.encode([UInt8(v)])
            } else if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E
                || v == 0x200F
            {
                out += "\\u{" + String(v, radix: 16) + "}"
            } else if v == 0x5C {  // backslash: escaped so the escapes above are unambiguous
                out += "\\\\"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// Byte-level tests on the local name, building no `String`: decoders under a broad selector look
/// at the name of nearly every advertisement, and decoding it to text each time dominated the
/// cost of the whole registry (callgrind, BENCHMARKS.md). ASCII case folding only: the names
/// compared against are ASCII model names.
extension AdvertisingData {
    @inline(__always) static func fold(_ b: UInt8, _ ignoringCase: Bool) -> UInt8 {
        ignoringCase && b >= 0x41 && b <= 0x5A ? b | 0x20 : b
    }

    static func matches(_ name: ArraySlice<UInt8>, at start: Int, _ needle: String, _ ignoringCase: Bool) -> Bool {
        var i = start
        for n in needle.utf8 {
            guard i < name.endIndex, fold(name[i], ignoringCase) == fold(n, ignoringCase) else { return false }
            i += 1
        }
        return true
    }

    public func localNameEquals(_ text: String, ignoringCase: Bool = false) -> Bool {
        guard let name = localName, name.count == text.utf8.count else { return false }
        return Self.matches(name, at: name.startIndex, text, ignoringCase)
    }

    public func localNameHasPrefix(_ prefix: String, ignoringCase: Bool = false) -> Bool {
        guard let name = localName, name.count >= prefix.utf8.count else { return false }
        return Self.matches(name, at: name.startIndex, prefix, ignoringCase)
    }

    public func localNameContains(_ needle: String, ignoringCase: Bool = false) -> Bool {
        guard let name = localName, name.count >= needle.utf8.count else { return false }
        let last = name.endIndex - needle.utf8.count
        var i = name.startIndex
        while i <= last {
            if Self.matches(name, at: i, needle, ignoringCase) { return true }
            i += 1
        }
        return false
    }
}
