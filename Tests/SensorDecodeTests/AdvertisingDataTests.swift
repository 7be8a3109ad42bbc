import SensorDecode
import Testing

@Suite struct AdvertisingDataTests {
    @Test func parsesEveryInterpretedField() throws {
        let hex = "020106" + "0303e1ff" + "050312341828" + "0509504c5553" + "020af4" + "03194003"
            + "1016e1ffa10164ff803200665544332211" + "07ff4c0002150102" + "06206745230189"
            + "1221" + "00112233445566778899aabbccddeeff" + "ab" + "0505" + "78563412"
            + "11" + "07" + "fb349b5f800000800010000095fe0000"
        let ad = AdvertisingData(parsing: Hex.decode(hex)!)
        #expect(ad.flags == 0x06)
        #expect(ad.displayName == "PLUS")
        #expect(ad.localNameIsComplete)
        #expect(ad.txPower == -12)
        #expect(ad.appearance == 0x0340)
        #expect(ad.serviceUUIDs.contains(.uuid16(0xFFE1)))
        #expect(ad.serviceUUIDs.contains(.uuid16(0x3412)))
        #expect(ad.serviceUUIDs.contains(.uuid16(0x2818)))
        #expect(ad.serviceUUIDs.contains(.uuid32(0x1234_5678)))
        #expect(ad.serviceUUIDs.contains { "\($0)" == "0000fe95-0000-1000-8000-00805f9b34fb" })
        #expect(ad.serviceData(uuid16: 0xFFE1)?.array == Hex.decode("a10164ff803200665544332211"))
        #expect(ad.manufacturerData(company: 0x004C)?.array == [0x02, 0x15, 0x01, 0x02])
        let md = try #require(ad.manufacturerData.first { $0.companyID == 0x004C })
        #expect(Array(md.data) == [0x02, 0x15, 0x01, 0x02])
        #expect(Array(md.value) == [0x4C, 0x00, 0x02, 0x15, 0x01, 0x02])
        #expect(ad.serviceData.contains { $0.uuid == .uuid32(0x0123_4567) && Array($0.data) == [0x89] })
        #expect(ad.serviceData.contains { "\($0.uuid)" == "ffeeddcc-bbaa-9988-7766-554433221100" && Array($0.data) == [0xAB] })
        #expect(!ad.truncated)
        #expect(ad.malformedFields == 0)
    }

    /// Decoders find a frame by its UUID or company and read it through a `Frame`, whose offsets
    /// count from the frame's start, in a packet whose AD bytes are a slice not starting at 0.
    @Test func framesCountFromTheirStartInsideAPacket() throws {
        let packet = Hex.decode("3e2b" + "0409414243" + "1016e1ffa10164ff803200665544332211" + "07ff4c0002150102" + "ffff")!
        let bytes = packet[2..<(packet.count - 2)]  // the AD bytes inside an HCI packet
        let ad = AdvertisingData(parsing: bytes)

        let frame = try #require(ad.serviceData(uuid16: 0xFFE1))
        #expect(frame.count == 13)
        #expect(frame.array == Array(packet[11..<24]))
        #expect(frame.u8(0) == 0xA1)
        #expect(frame.be16s(3) == -128)  // FF 80: -0.5 °C in 8.8
        #expect(frame.macLE(7) == BDAddress(rawValue: 0x1122_3344_5566))
        #expect(frame.u8(13) == nil)  // the packet goes on; the frame does not
        #expect(ad.serviceData(uuid16: 0xFE95) == nil)

        let apple = try #require(ad.manufacturerData(company: 0x004C))
        #expect(apple.array == [0x02, 0x15, 0x01, 0x02])
        #expect(apple.be32(0) == 0x0215_0102)
        #expect(ad.manufacturerData.first?.value.count == 6)
        #expect(ad.manufacturerData(company: 0x0499) == nil)
        #expect(ad.localName.map(Array.init) == Array("ABC".utf8))
    }

    @Test func uuid128IsListedMostSignificantByteFirst() {
        let canonical: [UInt8] = (0..<16).map { UInt8($0 * 17) }  // most-significant first
        // On air a 128-bit UUID is least-significant first.
        let ad = AdvertisingData(parsing: [17, 0x07] + canonical.reversed() + [3, 0x03, 0x0F, 0x18])
        #expect(ad.serviceUUIDs == [.uuid128(canonical), .uuid16(0x180F)])
    }

    @Test func moreThanFourStructuresOfAKindAreAllKeptInOrder() {
        // Manufacturer values and service UUIDs in a slice that does not start at 0, more of each
        // than a small fixed table would hold.
        var bytes: [UInt8] = [0xEE, 0xEE]
        for k in 0..<6 { bytes += [5, 0xFF, UInt8(k), 0x01, 0xAA, UInt8(k)] }
        bytes += [5, 0x05, 0x78, 0x56, 0x34, 0x12] + [3, 0x03, 0x51, 0x83]
        bytes += [17, 0x07] + (0..<16).map { UInt8($0) } + [5, 0x03, 0x0F, 0x18, 0x0A, 0x18]
        let ad = AdvertisingData(parsing: bytes[2...])
        #expect(ad.manufacturerData.map(\.companyID) == (0..<6).map { 0x0100 | UInt16($0) })
        #expect(ad.manufacturerData.map { Array($0.data) } == (0..<6).map { [0xAA, UInt8($0)] })
        let uuid16s = ad.serviceUUIDs.map { uuid -> UInt16? in if case .uuid16(let v) = uuid { v } else { nil } }
        #expect(uuid16s == [nil, 0x8351, nil, 0x180F, 0x180A])
    }

    @Test func slicesOfASliceStayInBounds() {
        // Parsing a slice that does not start at index 0 must read only inside it.
        let bytes = Hex.decode("ff ff 020106 0303e1ff ff")!
        let ad = AdvertisingData(parsing: bytes[2..<9])
        #expect(ad.flags == 6)
        #expect(Array(ad.serviceUUIDs) == [.uuid16(0xFFE1)])
    }
}

@Suite struct SupportTypesTests {
    @Test(arguments: [("11:22:33:44:55:66", true), ("11-22-33-44-55-66", true), ("112233445566", true),
                      ("11:22:33:44:55", false), ("11:22:33:44:55:6G", false), ("1122:33:44:55:66:", false),
                      ("", false), ("11:22:33:44:55:66:77", false)])
    func addressParsing(text: String, valid: Bool) {
        #expect((BDAddress(text) != nil) == valid, "\(text)")
    }

    /// An advertisement keeps its small fields packed in two words: every value of each field,
    /// `nil` among them, reads back as it was given, and setting one leaves the others alone.
    @Test func advertisementFieldsReadBackAsGivenAndStayApart() {
        let bytes: ArraySlice<UInt8> = [0x02, 0x01, 0x06]
        let rssis: [Int8?] = [nil, -128, -1, 0, 127]
        let bytesOrNil: [UInt8?] = [nil, 0, 1, 0x7F, 0xFF]
        for (n, rssi) in rssis.enumerated() {
            let phy1 = bytesOrNil[n]
            let phy2 = bytesOrNil[(n + 1) % 5]
            let sid = bytesOrNil[(n + 2) % 5]
            let address = BDAddress(rawValue: n.isMultiple(of: 2) ? 0xFFFF_FFFF_FFFF : 0x1122_3344_5566 + UInt64(n))
            let type = AddressType(rawValue: n == 0 ? 0xFF : UInt8(n))
            let event: UInt16 = n == 1 ? 0xFFFF : UInt16(n * 0x1111)
            var ad = Advertisement(
                address: address, addressType: type, eventType: event, rssi: rssi, primaryPHY: phy1,
                secondaryPHY: phy2, sid: sid, data: bytes, timeMicros: Int64(n) - 2)
            #expect(ad.address == address)
            #expect(ad.addressType == type)
            #expect(ad.eventType == event)
            #expect(ad.rssi == rssi)
            #expect(ad.primaryPHY == phy1)
            #expect(ad.secondaryPHY == phy2)
            #expect(ad.sid == sid)
            #expect(ad.timeMicros == Int64(n) - 2)
            #expect(Array(ad.data) == [0x02, 0x01, 0x06])

            let original = ad
            ad.rssi = rssi == nil ? -42 : nil
            #expect(ad.rssi == (rssi == nil ? -42 : nil))
            #expect(ad != original)
            ad.sid = 0x0E
            ad.primaryPHY = nil
            ad.address = BDAddress(rawValue: 0xA4C1_3800_0001)
            #expect(ad.addressType == type)  // the address's neighbour in its word
            #expect(ad.eventType == event)
            #expect(ad.secondaryPHY == phy2)
            #expect(ad.sid == 0x0E)
            #expect(ad.primaryPHY == nil)
            ad.rssi = rssi
            ad.sid = sid
            ad.primaryPHY = phy1
            ad.address = address
            #expect(ad == original)
        }
    }

    @Test func addressByteOrders() {
        let a = BDAddress("11:22:33:44:55:66")!
        #expect(a.description == "11:22:33:44:55:66")
        #expect(a.littleEndianBytes == [0x66, 0x55, 0x44, 0x33, 0x22, 0x11])
        #expect(BDAddress(littleEndian: a.littleEndianBytes) == a)
        #expect(BDAddress(bigEndian: a.bigEndianBytes) == a)
        #expect(BDAddress(littleEndian: [1, 2, 3]) == nil)
    }

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

    @Test func displayTextEscapesControlAndBidiCharacters() {
        #expect(DisplayText.escape(Array("ok".utf8)) == "ok")
        #expect(DisplayText.escape([0x41, 0x0A, 0x1B, 0x7F]) == "A\\x0a\\x1b\\x7f")
        #expect(DisplayText.escape(Array("a\u{202E}b".utf8)) == "a\\u{202e}b")
        #expect(DisplayText.escape([0xFF, 0x41]) == "\u{FFFD}A")
        #expect(DisplayText.escape(Array("\\x41".utf8)) == "\\\\x41")
    }

}

@Suite struct LocalNameMatchingTests {
    let ad = Advertisement(address: BDAddress(rawValue: 1), data: [0x0B, 0x09] + Array("GVH5075_AB".utf8))

    @Test func equalsPrefixAndContainsWorkOnBytes() {
        #expect(ad.localNameIs("GVH5075_AB"))
        #expect(!ad.localNameIs("GVH5075_A"))
        #expect(ad.localNameIs("gvh5075_ab", ignoringCase: true))
        #expect(ad.localNameHasPrefix("GVH"))
        #expect(!ad.localNameHasPrefix("gvh"))
        #expect(ad.localNameHasPrefix("gvh", ignoringCase: true))
        #expect(ad.localNameContains("5075"))
        #expect(ad.localNameContains("_AB"))
        #expect(!ad.localNameContains("_ABC"))
        #expect(ad.localNameContains("h5075_ab", ignoringCase: true))
        #expect(!Advertisement(address: BDAddress(rawValue: 1), data: []).localNameContains(""))  // no name at all
    }
}
