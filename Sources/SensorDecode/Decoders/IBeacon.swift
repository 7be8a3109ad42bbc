/// Apple iBeacon — any beacon in iBeacon mode (MM-BLEBC7 slots, Tilt, Jaalee, Teltonika, …).
/// It carries an identity, not a measurement: the reading names the device ("iBeacon") with no
/// measurements, and the frame kind holds `uuid/major/minor`, so a scan can list it.
/// Models: any beacon in iBeacon mode (MM-BLEBC7 slots, Tilt, Jaalee, …)
///
/// Where: manufacturer-specific data, company 0x004C (Apple), type 0x02, length 0x15.
/// | offset (after company id) | size | field                                  |
/// |---------------------------|------|----------------------------------------|
/// | 0                         | 1    | type 0x02                              |
/// | 1                         | 1    | length 0x15 (21)                       |
/// | 2                         | 16   | proximity UUID                         |
/// | 18                        | 2    | major, big-endian                      |
/// | 20                        | 2    | minor, big-endian                      |
/// | 22                        | 1    | measured power at 1 m, signed dBm      |
/// Other Apple types (Find My, Continuity) are not ours. `02 15` with the wrong length is
/// `malformed`; bytes after the 23 (vendors append a battery byte, e.g. Jaalee) are ignored.
///
/// Integrity check: none.
///
/// Sample: `1a ff 4c 00 02 15 e2c56db5dffb48d2b060d0f5a71096e0 0001 0002 c5` → iBeacon,
/// frame kind `e2c56db5-dffb-48d2-b060-d0f5a71096e0/1/2`.
///
/// Source: Apple, "Proximity Beacon Specification" R1 (2015), "iBeacon advertising packet".
public struct IBeaconDecoder: SensorDecoder {
    public let id = "ibeacon"
    public let selectors: [Selector] = [.manufacturer(company: 0x004C)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.manufacturerData(company: 0x004C), d.u8(0) == 0x02, d.u8(1) == 0x15 else { return .notMine }
        guard let uuid = d.bytes(2..<18), let major = d.be16(18), let minor = d.be16(20), d.count >= 23 else {
            return .malformed("iBeacon of \(d.count) bytes, expected 23")
        }
        // An identity, not a measurement: the reading has none, and its frame kind is the identity.
        return .reading(ad.reading(decoder: id, model: "iBeacon", frameKind: Self.identity(uuid, major, minor)))
    }

    /// `uuid/major/minor`: the UUID as text (8-4-4-4-12), the numbers in decimal, written in one
    /// buffer (every iBeacon advertisement makes one).
    static func identity(_ uuid: Frame, _ major: UInt16, _ minor: UInt16) -> String {
        var text = Hex.uuidUTF8(uuid.bytes, extra: 12)
        text.append(UInt8(ascii: "/"))
        appendDecimal(major, to: &text)
        text.append(UInt8(ascii: "/"))
        appendDecimal(minor, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    private static func appendDecimal(_ n: UInt16, to text: inout [UInt8]) {
        if n >= 10 { appendDecimal(n / 10, to: &text) }
        text.append(UInt8(ascii: "0") + UInt8(n % 10))
    }
}
