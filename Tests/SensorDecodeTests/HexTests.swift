import SensorDecode
import Testing

@Suite struct HexTests {
    @Test(arguments: [("0a 0B:ff", [0x0A, 0x0B, 0xFF] as [UInt8]?), ("0x1234", [0x12, 0x34]), ("", []),
                      ("abc", nil), ("zz", nil), ("1 2", nil), ("0x", [])])
    func hexDecoding(text: String, bytes: [UInt8]?) {
        #expect(Hex.decode(text) == bytes, "\(text)")
    }

    @Test func hexRoundTrip() {
        let bytes = (0...255).map { UInt8($0) }
        #expect(Hex.decode(Hex.encode(bytes)) == bytes)
    }

    /// UUID text: the canonical form for 16 bytes, and shorter lists keep the dashes that fall
    /// inside them.
    @Test func uuidText() {
        let bytes: [UInt8] = [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]
        #expect(ServiceUUID.uuid128(bytes).description == "e2c56db5-dffb-48d2-b060-d0f5a71096e0")
        for n in 0...16 {
            let expected = Hex.encode(bytes.prefix(n)).enumerated().map { k, c in
                (k == 8 || k == 12 || k == 16 || k == 20 ? "-" : "") + String(c)
            }.joined()
            #expect(ServiceUUID.uuid128(Array(bytes.prefix(n))).description == expected, "\(n) bytes")
        }
        #expect(Hex.number(0x0F) == "0f" && Hex.number(0x1A2, digits: 1) == "1a2" && Hex.number(7, digits: 4) == "0007")
    }
}
