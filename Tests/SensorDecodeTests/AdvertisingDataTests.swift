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
