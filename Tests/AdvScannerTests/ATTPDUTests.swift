import AdvScanner
import Testing

@Suite struct ATTPDUTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    /// Valid PDUs and what they are (the RFduino remote's answers as Bumble gives them, and the
    /// 128-bit forms). Made on each use: LeakSanitizer counted a lazily made static's arrays as
    /// leaked at exit.
    static var valid: [(String, ATTPDU)] {
        [
            ("01100100" + "0a", .error(request: 0x10, handle: 1, code: 0x0A)),
            ("0501" + "0300" + "0229" + "0400" + "0129", .findInformationResponse([(UInt16(3), GATTUUID.uuid16(0x2902)), (UInt16(4), GATTUUID.uuid16(0x2901))])),
            ("0502" + "0300" + "9ecadc240ee5a9e093f3a3b50100406e",
             .findInformationResponse([(UInt16(3), GATTUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")!)])),
            ("0907" + "0200" + "12" + "0300" + "2122", .readByTypeResponse([(UInt16(2), [0x12, 0x03, 0x00, 0x21, 0x22])])),
            ("0903" + "0100ff" + "0500ee", .readByTypeResponse([(UInt16(1), [0xFF] as [UInt8]), (UInt16(5), [0xEE] as [UInt8])])),
            ("1106" + "0100" + "0500" + "2022", .readByGroupTypeResponse([(UInt16(1), UInt16(5), [0x20, 0x22] as [UInt8])])),
            ("13", .writeResponse),
            ("1b" + "0300" + "00", .notification(handle: 3, value: [0x00])),
            ("1b" + "0300", .notification(handle: 3, value: [])),
            ("1d" + "0300" + "0102", .indication(handle: 3, value: [1, 2])),
            ("0a" + "0300", .request(opcode: 0x0A)),
            ("02" + "1700", .request(opcode: 0x02)),
            ("52" + "030001", .other(opcode: 0x52)),
            ("1e", .other(opcode: 0x1E)),
        ]
    }

    @Test func validPDUsParse() throws {
        for (hex, pdu) in Self.valid {
            #expect(try ATTPDU.parse(Self.bytes(hex)) == pdu, "\(hex)")
        }
    }

    /// Every prefix of every valid PDU either parses to something or is refused with a reason:
    /// never a crash, never a read past the end. Those that must be refused are listed by length.
    @Test func everyTruncationIsCheckedByLength() {
        let mustRefuse: [String: Set<Int>] = [
            "01": [0, 1, 2, 3, 4], "05": [0, 1, 2, 3, 4, 5], "09": [0, 1, 2, 3, 4], "11": [0, 1, 2, 3, 4, 5, 6, 7],
            "1b": [0, 1, 2], "1d": [0, 1, 2],
        ]
        for (hex, _) in Self.valid {
            let full = Self.bytes(hex)
            let refuse = mustRefuse[String(hex.prefix(2))] ?? [0]
            for n in 0..<full.count {
                let outcome = Result { () throws(ATTPDU.Malformed) in try ATTPDU.parse(Array(full.prefix(n))) }
                if refuse.contains(n) {
                    guard case .failure(let e) = outcome else {
                        Issue.record("\(hex) cut to \(n) bytes parsed")
                        continue
                    }
                    #expect(!e.reason.isEmpty)
                }
            }
        }
    }

    @Test(arguments: [
        ("0503" + "0300" + "0229", "format 3"),
        ("0501" + "030002", "not a multiple of 4"),
        ("0502" + "0300" + "0229", "not a multiple of 18"),
        ("0907" + "0200120300212200", "entries of 7 bytes in a list of 8"),
        ("0901" + "02", "entries of 1 bytes"),
        ("1103" + "010005", "entries of 3 bytes"),
        ("0906", "entries of 6 bytes in a list of 0"),
    ])
    func badListsAreRefused(_ hex: String, _ reason: String) {
        #expect {
            _ = try ATTPDU.parse(Self.bytes(hex))
        } throws: { error in
            (error as? ATTPDU.Malformed)?.reason.contains(reason) ?? false
        }
    }

    @Test func requestsAreBuiltAsTheSpecLaysThemOut() {
        #expect(ATTPDU.readByGroupType(start: 1) == Self.bytes("100100ffff0028"))
        #expect(ATTPDU.readByType(start: 0x10, end: 0x20) == Self.bytes("0810002000" + "0328"))
        #expect(ATTPDU.readByType(start: 1, end: 2, type: GATTUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")!)
            == Self.bytes("0801000200" + "9ecadc240ee5a9e093f3a3b50100406e"))
        #expect(ATTPDU.findInformation(start: 4, end: 5) == Self.bytes("0404000500"))
        #expect(ATTPDU.write(handle: 0x0104, value: [1, 0]) == Self.bytes("1204010100"))
        #expect(ATTPDU.notSupported(0x0A) == Self.bytes("010a000006"))
    }

    @Test(arguments: [
        ([0x12, 0x03, 0x00, 0x21, 0x22] as [UInt8], CharacteristicDeclaration?.some(.init(handle: 2, value: [0x12, 3, 0, 0x21, 0x22])!)),
        ([0x12, 0x03, 0x00, 0x21], nil), ([0x12, 0x03, 0x00, 0x21, 0x22, 0x00], nil), ([], nil),
    ])
    func declarationsNeedTheirWholeValue(_ value: [UInt8], _ expected: CharacteristicDeclaration?) {
        let d = CharacteristicDeclaration(handle: 2, value: value)
        #expect(d == expected)
        if let d {
            #expect(d.valueHandle == 3 && d.uuid == .uuid16(0x2221) && d.properties == 0x12)
        }
    }
}
