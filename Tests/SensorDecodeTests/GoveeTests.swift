import SensorDecode
import Testing

@Suite struct GoveeTests {
    let govee = GoveeDecoder()

    // MARK: header samples

    @Test func decodesHeaderSampleH5075Negative() throws {
        let data = Kit.name("GVH5075_CB9B") + [0x09, 0xff, 0x88, 0xec, 0x00, 0x81, 0xc2, 0x89, 0x64, 0x00]
        let r = try #require(Kit.reading(Kit.decode(govee, data)))
        #expect(r.model == "H5075")
        #expect(r.frameKind == "ec88-6")
        #expect(r.value(.temperatureC) == -11.5)
        #expect(r.value(.humidityPercent) == 33.7)
        #expect(r.value(.batteryPercent) == 100)
    }

    // MARK: negative temperatures, built from the formats

    @Test func packedSignBitGivesNegativeTemperatureAndTruncatedTenths() throws {
        // −0.5 °C and 50.0 %: magnitude 5·1000 + 500 = 5500 = 0x00157C, sign bit 23.
        let r = try #require(
            Kit.reading(Kit.decode(govee, Kit.manufacturer(0xEC88, [0x00, 0x80, 0x15, 0x7C, 0x50, 0x00]))))
        #expect(r.value(.temperatureC) == -0.5)
        #expect(r.value(.humidityPercent) == 50.0)
        // theengs' vector 0x811F09: 73481 → −7.3 °C and 48.1 %, not −7.3481 °C.
        let t = try #require(
            Kit.reading(Kit.decode(govee, Kit.manufacturer(0xEC88, [0x00, 0x81, 0x1F, 0x09, 0x64, 0x00]))))
        #expect(t.value(.temperatureC) == -7.3)
        #expect(t.value(.humidityPercent) == 48.1)
    }

    @Test func h5179AndH5074ReadSignedLittleEndian() throws {
        // −2.50 °C = −250 = 0xFF06 LE "06 ff"; 40.00 % = 4000 = 0x0FA0 LE "a0 0f".
        let h5179 = Kit.manufacturer(0x8801, [0xEC, 0x00, 0x01, 0x01, 0x06, 0xFF, 0xA0, 0x0F, 0x50])
        let r = try #require(Kit.reading(Kit.decode(govee, h5179)))
        #expect(r.model == "H5179")
        #expect(r.frameKind == "8801-9")
        #expect(r.value(.temperatureC) == -2.5)
        #expect(r.value(.humidityPercent) == 40.0)
        #expect(r.value(.batteryPercent) == 80)
        let h5074 = Kit.manufacturer(0xEC88, [0x00, 0x06, 0xFF, 0xA0, 0x0F, 0x50, 0x02])
        let r5074 = try #require(Kit.reading(Kit.decode(govee, h5074)))
        #expect(r5074.value(.temperatureC) == -2.5)
        #expect(r5074.frameKind == "ec88-7")
    }

    @Test func h5106SignBitAndPM25() throws {
        // −2.7 °C, 94.9 %, PM2.5 7: 27·10⁶ + 949·10³ + 7 = 27949007 = 0x01AA77CF, bit 31 set.
        let data = Kit.name("GVH5106_1234") + Kit.manufacturer(0x0001, [0x01, 0x01, 0x81, 0xAA, 0x77, 0xCF])
        let r = try #require(Kit.reading(Kit.decode(govee, data)))
        #expect(r.value(.temperatureC) == -2.7)
        #expect(r.value(.humidityPercent) == 94.9)
        #expect(r.value(.pm25UgM3) == 7)
    }

    // MARK: selectors, sanity

    @Test func wrongSelectorIsNotMine() {
        // Right bytes under another company id / a missing fixed byte / an unknown length.
        #expect(Kit.decode(govee, Kit.manufacturer(0xEC89, [0x00, 0x03, 0x21, 0x5d, 0x64, 0x00])) == .notMine)
        #expect(Kit.decode(govee, Kit.manufacturer(0xEC88, [0x01, 0x03, 0x21, 0x5d, 0x64, 0x00])) == .notMine)
        #expect(Kit.decode(govee, Kit.manufacturer(0xEC88, [0x00, 0x03, 0x21, 0x5d, 0x64])) == .notMine)
        #expect(Kit.decode(govee, Kit.serviceData(0xEC88, [0x00, 0x03, 0x21, 0x5d, 0x64, 0x00])) == .notMine)
    }

    @Test func impossibleValuesAreMalformedOrDropped() throws {
        #expect(
            Kit.isMalformed(Kit.decode(govee, Kit.manufacturer(0xEC88, [0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]))))
        // Battery 101 %.
        #expect(
            Kit.isMalformed(Kit.decode(govee, Kit.manufacturer(0xEC88, [0x00, 0x03, 0x21, 0x5d, 0x65, 0x00]))))
        // Humidity 100.01 % in the hundredths format.
        #expect(
            Kit.isMalformed(
                Kit.decode(govee, Kit.manufacturer(0xEC88, [0x00, 0x00, 0x08, 0x11, 0x27, 0x64, 0x02]))))
        // An impossible packed temperature keeps the battery and warns (govee-ble's vector 00bc00043e27).
        let r = try #require(
            Kit.reading(Kit.decode(govee, Kit.manufacturer(0xEC88, [0x00, 0xbc, 0x00, 0x04, 0x3e, 0x27]))))
        #expect(r.value(.temperatureC) == nil)
        #expect(r.value(.batteryPercent) == 62)
        #expect(r.warnings.count == 1)
    }

    @Test func gluedIBeaconIsStripped() throws {
        let beacon = Hex.decode("4c000215494e54454c4c495f524f434b535f48575075f2ff0c")!
        let data =
            Kit.name("GVH5075_2762") + Kit.manufacturer(0xEC88, [0x00, 0x03, 0x41, 0xc2, 0x64, 0x00] + beacon)
        let r = try #require(Kit.reading(Kit.decode(govee, data)))
        #expect(r.value(.temperatureC) == 21.3)
    }

    @Test func modelFromNameAndUUID() throws {
        let data = Kit.name("Govee_H5071_FD12") + Kit.manufacturer(0xEC88, Hex.decode("00210ab61218c80001")!)
        #expect(try #require(Kit.reading(Kit.decode(govee, data))).model == "H5071")
    }

    @Test func noTruncatedFrameYieldsAMeasurementButShorterModelsFrames() {
        Kit.truncations(govee, value: Hex.decode("00811f096400")!) { Kit.manufacturer(0xEC88, $0) }
        Kit.truncations(govee, value: Hex.decode("01010100002af7640003")!, layout: .frames(lengths: [6, 8, 9])) { Kit.manufacturer(0x0001, $0) }
        Kit.truncations(govee, value: Hex.decode("ec000101ee07581641")!) { Kit.manufacturer(0x8801, $0) }
    }

    // MARK: peer vectors

    /// Where we differ from a peer, per vector.
    static let excluded: [String: String] = [
        "test_mfgdata[9] / expected_mfg[9]":
            "theengs reads the packed 0x811F09 as −7.3481 °C (magnitude/10000); the number is T·1000+H, "
            + "so −7.3 °C (ble_monitor, govee-ble agree)",
        "test_mfgdata[69] / expected_mfg[69]":
            "H5055 probe byte 0x60 marks only probe 6 plugged in; theengs reports slot value 30 as probe 4 regardless",
        "test_gvh5181_variant (line 4959)":
            "probe value 0xFFFF (unplugged): govee-ble reports 0.0 °C, we omit the probe",
        "test_gvh5182 (line 5235)":
            "both probes 0xFFFF (unplugged): govee-ble reports 0.0 °C, we omit them",
    ]

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let vectors = PeerVector.all.filter { $0.format.hasPrefix("govee_") }
        Kit.checkVectors(vectors, probes: { $0.device.contains("H5055") }, excluded: Self.excluded)
    }
}
