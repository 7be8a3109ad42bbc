/// Apple iBeacon — any beacon in iBeacon mode (MM-BLEBC7 slots, Tilt, Jaalee, Teltonika, …).
/// It carries an identity, not a measurement: the reading names the device ("iBeacon") with no
/// measurements, and the frame kind holds `uuid/major/minor`, so a scan can list it.
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
    public let selectors: [DecoderSelector] = [.manufacturer(0x004C)]

    public init() {}

    public func decode(_ advertisement: Advertisement, _ ad: AdvertisingData) -> DecodeOutcome {
        guard let md = ad.manufacturerData(company: 0x004C), md.data.count >= 2, md.data.u8(0) == 0x02,
            md.data.u8(1) == 0x15
        else { return .notMine }
        let d = md.data
        guard d.count >= 23 else { return .malformed("iBeacon of \(d.count) bytes, expected 23") }
        return .readings([
            Reading(
                address: advertisement.address, addressType: advertisement.addressType, decoderID: id,
                model: "iBeacon", frameKind: Self.frameKind(d), measurements: [])
        ])
    }

    /// `uuid/major/minor`, written in place: appending five pieces to a String cost more than
    /// the rest of the decode (callgrind). The UUID's digits are made four bytes at a time
    /// (`hexDigits`) and stored as words: byte by byte, they were most of the decode.
    static func frameKind(_ d: ArraySlice<UInt8>) -> String {
        let major = Int(d.be16(18))
        let minor = Int(d.be16(20))
        let count = Hex.uuidTextCount(16) + 2 + Hex.decimalCount(major) + Hex.decimalCount(minor)
        return d.withUnsafeBufferPointer { bytes in
            Hex.ascii(count: count) { out in
                // Bytes 2..<18 of the frame are the UUID: 8-4-4-4-12 digits.
                let text = UnsafeMutableRawPointer(out.baseAddress!)
                func store8(_ digits: UInt64, at offset: Int) {
                    text.storeBytes(of: digits.littleEndian, toByteOffset: offset, as: UInt64.self)
                }
                func store4(_ digits: UInt64, at offset: Int) {
                    let first4 = UInt32(truncatingIfNeeded: digits)
                    text.storeBytes(of: first4.littleEndian, toByteOffset: offset, as: UInt32.self)
                }
                store8(hexDigits(bytes, 2), at: 0)
                store4(hexDigits(bytes, 6), at: 9)
                store4(hexDigits(bytes, 8), at: 14)
                store4(hexDigits(bytes, 10), at: 19)
                store8(hexDigits(bytes, 12), at: 24)
                store4(hexDigits(bytes, 16), at: 32)
                out[8] = UInt8(ascii: "-")
                out[13] = UInt8(ascii: "-")
                out[18] = UInt8(ascii: "-")
                out[23] = UInt8(ascii: "-")
                out[36] = UInt8(ascii: "/")
                // Then major and minor, each from its last digit back: the end is known, and this
                // counts no digits a second time (the in-place writer did, at ~100 instructions).
                var end = count
                func writeBackwards(_ value: Int) {
                    var rest = value
                    repeat {
                        end -= 1
                        out[end] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                        rest /= 10
                    } while rest > 0
                }
                writeBackwards(minor)
                end -= 1
                out[end] = UInt8(ascii: "/")
                writeBackwards(major)
            }
        }
    }

    /// The lower-case hex digits of bytes `k..<k+4` (which must exist), first byte first: byte j
    /// of the result is digit j of the text.
    static func hexDigits(_ bytes: UnsafeBufferPointer<UInt8>, _ k: Int) -> UInt64 {
        func byte(_ j: Int) -> UInt64 { UInt64(bytes[k + j]) }
        // Each byte in its own 16-bit lane, then its high nibble to the lane's low byte and its
        // low nibble to the lane's high byte: one nibble per byte, in text order.
        let lanes = byte(0) | byte(1) << 16 | byte(2) << 32 | byte(3) << 48
        let nibbles = (lanes >> 4) & 0x000F_000F_000F_000F | (lanes & 0x000F_000F_000F_000F) << 8
        // '0' + n, and 39 more ('a' − '0' − 10) where n ≥ 10, which is where n + 6 reaches bit 4.
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 39
    }
}
