import SensorDecode
import Testing

@Suite struct BDAddressTests {
    @Test(arguments: [("11:22:33:44:55:66", true), ("11-22-33-44-55-66", true), ("112233445566", true),
                      ("11:22:33:44:55", false), ("11:22:33:44:55:6G", false), ("1122:33:44:55:66:", false),
                      ("", false), ("11:22:33:44:55:66:77", false)])
    func addressParsing(text: String, valid: Bool) {
        #expect((BDAddress(text) != nil) == valid, "\(text)")
    }

    @Test func addressByteOrders() {
        let a = BDAddress("11:22:33:44:55:66")!
        #expect(a.description == "11:22:33:44:55:66")
        #expect(a.littleEndianBytes == [0x66, 0x55, 0x44, 0x33, 0x22, 0x11])
        #expect(BDAddress(littleEndian: a.littleEndianBytes) == a)
        #expect(BDAddress(bigEndian: a.bigEndianBytes) == a)
        #expect(BDAddress(littleEndian: [1, 2, 3]) == nil)
    }
}
