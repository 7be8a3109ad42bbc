import SensorDecode
import Testing

@Suite struct AdvertisementTests {
    /// Every value of each header field, `nil` among them, reads back as it was given, and setting
    /// one leaves the others alone.
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
            #expect(ad.addressType == type)
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
