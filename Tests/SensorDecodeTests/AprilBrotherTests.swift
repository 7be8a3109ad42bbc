import SensorDecode
import Testing

/// Mirrors Decoders/AprilBrother.swift.
@Suite struct AprilBrotherTests {
    let decoder = AprilBrotherDecoder()
    let address = BDAddress("AA:BB:CC:DD:EE:FF")!
    /// The header's N03 sample.
    let n03 = Kit.bytes("ab03aabbccddeeff64ebff7f005e01")
    let abTemp = Kit.bytes("0215b5b182c7eab14988aa99b5c1517008d90001641ac5")

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, Kit.serviceData(0xFE59, n03), from: address)))
        #expect(r.model == "N03")
        #expect(r.warnings.isEmpty)
        #expect(Kit.values(.reading(r))
            == ["battery_pct": 100, "temperature_c": -2.625, "humidity_pct": 63.5, "illuminance_lux": 350])
    }

    @Test func abTempNeedsItsName() throws {
        let named = Kit.name("ABTemp") + Kit.manufacturer(0x004C, abTemp)
        #expect(Kit.values(Kit.decode(decoder, named)) == ["temperature_c": 26, "battery_pct": 100])
        #expect(Kit.decode(decoder, Kit.manufacturer(0x004C, abTemp)) == .notMine)  // a plain April beacon
        var cold = abTemp
        cold[21] = 0xF6  // −10 °C
        #expect(Kit.values(Kit.decode(decoder, Kit.name("ABTemp") + Kit.manufacturer(0x004C, cold)))["temperature_c"] == -10)
    }

    @Test func otherFramesAreNotMineAndImpossibleValuesMalformed() {
        #expect(Kit.decode(decoder, Kit.serviceData(0xFE59, [0xAB, 0x07] + n03.dropFirst(2))) == .notMine)
        var frame = n03
        frame[8] = 101
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0xFE59, frame), from: address)))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: n03, from: address) { Kit.serviceData(0xFE59, $0) }
        Kit.truncations(decoder, value: abTemp) { Kit.name("ABTemp") + Kit.manufacturer(0x004C, $0) }
    }

    static let excluded = [
        "test_servicedata[11]": "no AD bytes: theengs' test names no UUID (its payload is our header sample, on 0xFE59)",
        "test_mac_mfgsvcdata[5]": "no AD bytes: theengs' test names no UUID for its MAC frame",
    ]

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(
            PeerVector.all.filter { $0.device == "ABTemp" || $0.device == "ABN03" }, excluded: Self.excluded)
    }
}
