import SensorDecode
import Testing

@Suite struct AESCCMTests {
    /// RFC 3610 section 8, Packet Vector #1 (8-byte tag, 8 bytes of associated data).
    @Test func rfc3610PacketVector1() throws {
        let out = Kit.bytes("588C979A61C663D2F066D0C2C0F989806D5F6B61DAC38417E8D12CFDF926E0")
        let plain = try AESCCM.decrypt(
            key: Kit.bytes("C0C1C2C3C4C5C6C7C8C9CACBCCCDCECF"), nonce: Kit.bytes("00000003020100A0A1A2A3A4A5"),
            ciphertext: out.dropLast(8), tag: out.suffix(8), associatedData: Kit.bytes("0001020304050607"))
        #expect(plain == Kit.bytes("08090A0B0C0D0E0F101112131415161718191A1B1C1D1E"))
    }

    @Test func alteredTagFailsAuthentication() {
        var out = Kit.bytes("588C979A61C663D2F066D0C2C0F989806D5F6B61DAC38417E8D12CFDF926E0")
        out[out.count - 1] ^= 1
        #expect(throws: AESCCM.Failure.authenticationFailed) {
            try AESCCM.decrypt(
                key: Kit.bytes("C0C1C2C3C4C5C6C7C8C9CACBCCCDCECF"),
                nonce: Kit.bytes("00000003020100A0A1A2A3A4A5"),
                ciphertext: out.dropLast(8), tag: out.suffix(8), associatedData: Kit.bytes("0001020304050607"))
        }
    }

    @Test func badSizesAreTypedErrors() {
        let key = [UInt8](repeating: 0, count: 16)
        let nonce = [UInt8](repeating: 0, count: 13)
        let ct: [UInt8] = [1, 2, 3]
        let tag: [UInt8] = [0, 0, 0, 0]
        #expect(throws: AESCCM.Failure.keyLength(15)) {
            try AESCCM.decrypt(key: Array(key.prefix(15)), nonce: nonce, ciphertext: ct[...], tag: tag[...])
        }
        #expect(throws: AESCCM.Failure.nonceLength(14)) {
            try AESCCM.decrypt(key: key, nonce: nonce + [0], ciphertext: ct[...], tag: tag[...])
        }
        #expect(throws: AESCCM.Failure.tagLength(3)) {
            try AESCCM.decrypt(key: key, nonce: nonce, ciphertext: ct[...], tag: tag.prefix(3))
        }
        #expect(throws: AESCCM.Failure.emptyCiphertext) {
            try AESCCM.decrypt(key: key, nonce: nonce, ciphertext: [], tag: tag[...])
        }
        #expect(AESCCM.Failure.authenticationFailed.description.contains("MIC"))
    }
}
