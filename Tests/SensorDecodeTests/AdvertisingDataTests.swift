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
        #expect(ad.serviceData(uuid16: 0xFFE1).map(Array.init) == Hex.decode("a10164ff803200665544332211"))
        let md = try #require(ad.manufacturerData(company: 0x004C))
        #expect(Array(md.data) == [0x02, 0x15, 0x01, 0x02])
        #expect(Array(md.value) == [0x4C, 0x00, 0x02, 0x15, 0x01, 0x02])
        #expect(ad.serviceData.contains { $0.uuid == .uuid32(0x0123_4567) && Array($0.data) == [0x89] })
        #expect(ad.serviceData.contains { "\($0.uuid)" == "ffeeddcc-bbaa-9988-7766-554433221100" && Array($0.data) == [0xAB] })
        #expect(!ad.truncated)
        #expect(ad.malformedFields == 0)
    }

    /// Decoders find a frame by its range and read it as a span; the range counts from the start
    /// of the parsed bytes, which in a packet are a slice that does not start at index 0.
    @Test func rangesCountFromTheBytesStartAndReadTheSameBytesAsSlices() throws {
        let packet = Hex.decode("3e2b" + "0409414243" + "1016e1ffa10164ff803200665544332211" + "07ff4c0002150102" + "ffff")!
        let bytes = packet[2..<(packet.count - 2)]  // the AD bytes inside an HCI packet
        let ad = AdvertisingData(parsing: bytes)

        // Read off the view first: `#require` cannot take a value that borrows (`ADView`).
        let frameRange = ad.view.serviceDataRange(uuid16: 0xFFE1)
        let frame = try #require(frameRange)
        #expect(frame == 9..<22)
        #expect(Array(ad.bytes.slice(frame)) == Array(try #require(ad.serviceData(uuid16: 0xFFE1))))
        let span = ad.bytes.span.extracting(frame)
        #expect(span.count == 13)
        #expect(span.u8(0) == 0xA1)
        #expect(span.be16s(3) == -128)  // FF 80: -0.5 °C in 8.8
        #expect(span.macLE(7) == BDAddress(rawValue: 0x1122_3344_5566))
        #expect(ad.view.serviceDataRange(uuid16: 0xFE95) == nil)

        let appleRange = ad.view.manufacturerPayloadRange(company: 0x004C)
        let apple = try #require(appleRange)
        #expect(Array(ad.bytes.slice(apple)) == [0x02, 0x15, 0x01, 0x02])
        #expect(ad.view.manufacturerValueRange(at: 0) == apple.lowerBound - 2..<apple.upperBound)
        #expect(ad.view.manufacturerPayloadRange(at: 0) == apple)
        #expect(ad.view.manufacturerPayloadRange(company: 0x0499) == nil)
        #expect(ad.bytes.span.extracting(apple).be32(0) == 0x0215_0102)

        let nameRange = ad.view.localNameRange
        let name = try #require(nameRange)
        #expect(String(decoding: ad.bytes.slice(name), as: UTF8.self) == "ABC")
        #expect(ad.localName.map(Array.init) == Array(ad.bytes.slice(name)))
    }

    @Test func shortenedNameIsReplacedByACompleteOne() {
        let ad = AdvertisingData(parsing: Hex.decode("03084142" + "0409414243")!)
        #expect(ad.displayName == "ABC")
        #expect(ad.localNameIsComplete)
    }

    @Test func stopsCleanlyAtAZeroLength() {
        let ad = AdvertisingData(parsing: Hex.decode("020106" + "00" + "0303e1ff")!)
        #expect(ad.flags == 6)
        #expect(ad.serviceUUIDs.isEmpty)  // after the terminator: padding, not data
        #expect(!ad.truncated)
    }

    @Test func anOverlongStructureKeepsWhatCameBefore() {
        let ad = AdvertisingData(parsing: Hex.decode("020106" + "0a09414243")!)
        #expect(ad.flags == 6)
        #expect(ad.localName == nil)
        #expect(ad.truncated)
    }

    @Test func aLengthByteAloneAtTheEndIsTruncated() {
        let ad = AdvertisingData(parsing: Hex.decode("02010603")!)
        #expect(ad.flags == 6)
        #expect(ad.truncated)
    }

    @Test(arguments: ["0101", "030a0102", "0419010203", "020320", "0404010203", "0207000102030405",
                      "021600", "0420010203", "0221000102", "02ff00"])
    func impossibleFieldSizesAreSkippedAndCounted(hex: String) {
        let ad = AdvertisingData(parsing: Hex.decode(hex)!)
        #expect(ad.malformedFields == 1, "\(hex)")
        #expect(ad.flags == nil && ad.txPower == nil && ad.appearance == nil && ad.serviceUUIDs.isEmpty
            && ad.serviceData.isEmpty && ad.manufacturerData.isEmpty)
    }

    @Test func unknownTypesAreKept() {
        let ad = AdvertisingData(parsing: Hex.decode("03 2a 01 02")!)
        #expect(ad.other.count == 1)
        #expect(ad.other.first?.type == 0x2A)
    }

    @Test func emptyDataIsEmpty() {
        let ad = AdvertisingData(parsing: [UInt8]())
        #expect(ad == AdvertisingData())
    }

    @Test func moreStructuresOfAKindThanAreHeldInlineAreAllKept() {
        // Extended advertising data can carry many structures of one kind (a stranger's, hundreds);
        // the index holds four and the overflow the rest: all must read back, in order.
        for n in [1, 4, 5, 9, 40, 250] {
            var bytes: [UInt8] = []
            for k in 0..<n { bytes += [5, 0xFF, UInt8(k), 0x01, 0xAA, UInt8(k)] }  // company 0x01kk
            for k in 0..<n { bytes += [3, 0x03, UInt8(k), 0xFE] }  // 16-bit UUID 0xFEkk
            for k in 0..<n { bytes += [4, 0x16, UInt8(k), 0xFD, UInt8(k)] }  // service data 0xFDkk
            let ad = AdvertisingData(parsing: bytes)
            #expect(ad.manufacturerData.map(\.companyID) == (0..<n).map { 0x0100 | UInt16($0) }, "n = \(n)")
            #expect(ad.manufacturerData.map { Array($0.data) } == (0..<n).map { [0xAA, UInt8($0)] })
            #expect(Array(ad.serviceUUIDs) == (0..<n).map { .uuid16(0xFE00 | UInt16($0)) })
            #expect(ad.serviceData.map(\.uuid) == (0..<n).map { .uuid16(0xFD00 | UInt16($0)) })
            #expect(ad.serviceData(uuid16: 0xFD00 | UInt16(n - 1)).map(Array.init) == [UInt8(n - 1)])
            #expect(ad.manufacturerData(company: 0x0100 | UInt16(n - 1))?.data.last == UInt8(n - 1))
        }
    }

    @Test func buffersBeyondSixtyFourKiBAreWalkedToThereAndCalledTruncated() {
        // No advertisement is longer than 1,650 bytes; a longer buffer (a hand-made `decode` line)
        // is read up to 65,535 bytes: every whole structure before that point, nothing after.
        let bytes = Array([[UInt8]](repeating: [3, 0x2A, 0x01, 0x02], count: 17_500).joined())
        let ad = AdvertisingData(parsing: bytes)
        #expect(ad.truncated)
        #expect(ad.other.count == 65_535 / 4)
        #expect(ad.other.last.map { Array($0.value) } == [0x01, 0x02])
        #expect(!AdvertisingData(parsing: Array(bytes.prefix(65_532))).truncated)
    }

    @Test func uuid128TestInPlaceAgreesWithTheList() {
        let canonical: [UInt8] = (0..<16).map { UInt8($0 * 17) }  // most-significant first
        let other = canonical.map { $0 ^ 1 }
        // On air a 128-bit UUID is least-significant first.
        let ad = AdvertisingData(parsing: [17, 0x07] + canonical.reversed() + [3, 0x03, 0x0F, 0x18])
        #expect(ask(ad) { $0.hasServiceUUID128(canonical) })
        #expect(ad.serviceUUIDs.contains(.uuid128(canonical)))
        #expect(!ask(ad) { $0.hasServiceUUID128(other) } && !ad.serviceUUIDs.contains(.uuid128(other)))
        #expect(!ask(ad) { $0.hasServiceUUID128(Array(canonical.prefix(15))) })  // not a 128-bit UUID at all
        #expect(!ask(AdvertisingData(parsing: [3, 0x03, 0x0F, 0x18])) { $0.hasServiceUUID128(canonical) })
    }

    @Test func indexedAccessorsAgreeWithTheLists() {
        // Manufacturer values and 16-bit service UUIDs read by position, in a slice that does not
        // start at 0 and with more of each than are held inline.
        var bytes: [UInt8] = [0xEE, 0xEE]
        for k in 0..<6 { bytes += [5, 0xFF, UInt8(k), 0x01, 0xAA, UInt8(k)] }
        bytes += [5, 0x05, 0x78, 0x56, 0x34, 0x12] + [3, 0x03, 0x51, 0x83]
        bytes += [17, 0x07] + (0..<16).map { UInt8($0) } + [5, 0x03, 0x0F, 0x18, 0x0A, 0x18]
        let ad = AdvertisingData(parsing: bytes[2...])
        #expect(ad.view.manufacturerDataCount == ad.manufacturerData.count)
        let fields = 0..<ad.view.manufacturerDataCount
        #expect(fields.map { ad.bytes.slice(ad.view.manufacturerValueRange(at: $0)) } == ad.manufacturerData.map(\.value))
        #expect(fields.map { ad.view.manufacturerValueLength(at: $0) } == ad.manufacturerData.map(\.value.count))
        #expect(ad.view.serviceUUIDCount == ad.serviceUUIDs.count)
        let uuid16s = ad.serviceUUIDs.map { uuid -> UInt16? in if case .uuid16(let v) = uuid { v } else { nil } }
        #expect((0..<ad.view.serviceUUIDCount).map { ad.view.serviceUUID16(at: $0) } == uuid16s)
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

    /// The in-place writers against `String(_:)` and the canonical UUID text.
    @Test func decimalsAndUUIDTextWrittenInPlace() {
        for v in [0, 7, 9, 10, 99, 100, 254, 999, 1_000, 65_535, 1_000_000] {
            let text = Hex.ascii(count: Hex.decimalCount(v)) { out in
                #expect(Hex.writeDecimal(v, to: out, endingAt: out.count) == 0)
            }
            #expect(text == String(v))
        }
        let bytes: [UInt8] = [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]
        #expect(ServiceUUID.uuid128(bytes).description == "e2c56db5-dffb-48d2-b060-d0f5a71096e0")
        // Shorter lists keep the dashes that fall inside them.
        for n in 0...16 {
            let expected = Hex.encode(bytes.prefix(n)).enumerated().map { k, c in
                (k == 8 || k == 12 || k == 16 || k == 20 ? "-" : "") + String(c)
            }.joined()
            #expect(ServiceUUID.uuid128(Array(bytes.prefix(n))).description == expected, "\(n) bytes")
        }
        // Sixteen bytes go four at a time through words: every byte value at every position.
        for first in stride(from: 0, to: 256, by: 16) {
            for shift in 0..<16 {
                let uuid = (0..<16).map { UInt8((first + ($0 + shift) % 16) & 0xFF) }
                let hex = Array(Hex.encode(uuid))
                let expected = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
                #expect(ServiceUUID.uuid128(uuid).description == expected)
            }
        }
    }

    @Test func displayTextEscapesControlAndBidiCharacters() {
        #expect(DisplayText.escape(Array("ok".utf8)) == "ok")
        #expect(DisplayText.escape([0x41, 0x0A, 0x1B, 0x7F]) == "A\\x0a\\x1b\\x7f")
        #expect(DisplayText.escape(Array("a\u{202E}b".utf8)) == "a\\u{202e}b")
        #expect(DisplayText.escape([0xFF, 0x41]) == "\u{FFFD}A")
        #expect(DisplayText.escape(Array("\\x41".utf8)) == "\\\\x41")
    }

    @Test func byteReaderNeverReadsPastTheEnd() {
        var r = ByteReader([0x01, 0x02, 0x03])
        #expect(r.readLE16() == 0x0201)
        #expect(r.readLE16() == nil)
        #expect(r.remaining == 1)
        #expect(r.readBytes(2) == nil)
        #expect(r.readUInt8() == 3)
        #expect(r.readUInt8() == nil)
        #expect(r.isAtEnd)
    }
}

@Suite struct LocalNameMatchingTests {
    let ad = AdvertisingData(parsing: Hex.decode("0b09" + Array("GVH5075_AB".utf8).map { String(format: "%02x", $0) }.joined())!)

    @Test func equalsPrefixAndContainsWorkOnBytes() {
        #expect(ask(ad) { $0.localNameEquals("GVH5075_AB") })
        #expect(!ask(ad) { $0.localNameEquals("GVH5075_A") })
        #expect(ask(ad) { $0.localNameHasPrefix("GVH") })
        #expect(!ask(ad) { $0.localNameHasPrefix("gvh") })
        #expect(ask(ad) { $0.localNameHasPrefix("gvh", ignoringCase: true) })
        #expect(ask(ad) { $0.localNameContains("5075") })
        #expect(ask(ad) { $0.localNameContains("_AB") })
        #expect(!ask(ad) { $0.localNameContains("_ABC") })
        #expect(ask(ad) { $0.localNameContains("h5075_ab", ignoringCase: true) })
        #expect(!ask(AdvertisingData()) { $0.localNameContains("") })  // no name at all
    }
}

/// `#expect` takes a method call apart to show its operands, and cannot hold an `ADView` (which
/// borrows its bytes): the question is asked here, and `#expect` sees the answer.
private func ask(_ ad: AdvertisingData, _ question: (ADView) -> Bool) -> Bool { question(ad.view) }
