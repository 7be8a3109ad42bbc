import SensorDecode
import Testing

/// Models and frame kinds are literals, except where a decoder makes one at run time (an unknown
/// type or model number): those are given after `begin` (`setModel`,
/// `setFrameKind`). They must reach the reading, whether it is read in place or taken, and must
/// not show through into the next reading written in the same place.
@Suite struct RuntimeNamesTests {
    static let qingpingKnown = "080cbf6552342d580104f100ad01020125"  // CGD1 (QingpingTests)
    static let qingpingUnknown = "087fbf6552342d580104f100ad01020125"  // type 0x7f

    static func serviceData(_ uuid: UInt16, _ hex: String) -> [UInt8] {
        let payload = Hex.decode(hex)!
        return [UInt8(payload.count + 3), 0x16, UInt8(uuid & 0xFF), UInt8(uuid >> 8)] + payload
    }

    /// Model and frame kind of each reading of `data`, read in place and taken, which must agree.
    static func names(_ data: [UInt8], into result: inout Registry.Result) -> [String] {
        let registry = Registry.standard()
        let ad = Advertisement(address: BDAddress("58:2D:34:52:65:BF")!, rssi: -50, data: data)
        registry.decode(ad, into: &result)
        let read = result.readings.map { "\($0.model) \($0.frameKind ?? "-")" }
        var taken: [String] = []
        registry.decode(ad, into: &result)
        result.readings.takeEach { taken.append("\($0.model) \($0.frameKind ?? "-")") }
        #expect(read == taken)
        return read
    }

    @Test func modelsMadeAtRunTimeReachTheReading() {
        var result = Registry.Result()
        #expect(Self.names(Self.serviceData(0xFDCD, Self.qingpingUnknown), into: &result) == ["Qingping type 0x7f -"])
        // MiBeacon with product id 0x1234, which has no model name.
        #expect(Self.names(Self.serviceData(0xFE95, "50203412da219335342d580d1004fe004802"), into: &result)
            == ["MiBeacon 0x1234 v2"])
        // Govee with a model number its name gives but no literal names.
        let govee = Array("GVH5999_CB9B".utf8)
        let data = [UInt8(govee.count + 1), 0x09] + govee + [0x09, 0xff, 0x88, 0xec, 0x00, 0x81, 0xc2, 0x89, 0x64, 0x00]
        #expect(Self.names(data, into: &result) == ["H5999 ec88-6"])
    }

    @Test func aNameMadeAtRunTimeDoesNotShowThroughIntoTheNextReading() {
        var result = Registry.Result()
        // Read in place: the next decode writes the same head.
        let unknown = Self.serviceData(0xFDCD, Self.qingpingUnknown)
        let known = Self.serviceData(0xFDCD, Self.qingpingKnown)
        let ad = { (data: [UInt8]) in Advertisement(address: BDAddress(rawValue: 1), data: data) }
        Registry.standard().decode(ad(unknown), into: &result)
        #expect(result.readings.first?.model == "Qingping type 0x7f")
        Registry.standard().decode(ad(known), into: &result)
        #expect(result.readings.first?.model == "CGD1")
        // An identity a frame carries (iBeacon) gives way the same way to a frame kind literal, and
        // a name given in the frame (Minew a1-08) to the next advertisement's local name.
        let beacon = Hex.decode("1aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5")!
        #expect(Self.names(beacon, into: &result) == ["iBeacon e2c56db5-dffb-48d2-b060-d0f5a71096e0/1/2"])
        let minew = Hex.decode("0303e1ff 1016e1ff a10164ff803200 665544332211")!
        #expect(Self.names(minew, into: &result) == ["MM-BLEBC7 a1-01"])
        let named = Hex.decode("1316e1ffa10850665544332211" + "4b69746368656e")!
        Registry.standard().decode(ad(named), into: &result)
        #expect(result.readings.first?.name == "Kitchen")
        Registry.standard().decode(ad(Hex.decode("0e16e1ffa113320a80665544332211" + "0509506f7263")!), into: &result)
        #expect(result.readings.first?.name == "Porc")
        Registry.standard().decode(ad(minew), into: &result)
        #expect(result.readings.first?.name == nil)
    }
}
