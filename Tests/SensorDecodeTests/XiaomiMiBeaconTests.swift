import SensorDecode
import Testing

@Suite struct XiaomiMiBeaconTests {
    let decoder = XiaomiMiBeaconDecoder()

    @Test func headerSampleDecodes() {
        let mac = BDAddress("58:2D:34:35:93:21")!
        let outcome = Kit.decode(decoder, uuid: 0xFE95, "5020aa01da219335342d580d1004fe004802", from: mac)
        let r = Kit.readings(outcome)
        #expect(r.first?.model == "LYWSDCGQ")
        #expect(r.first?.frameKind == "v2")
        #expect(r.first?.warnings.isEmpty == true)
        #expect(Kit.values(outcome) == ["temperature_c": 25.4, "humidity_pct": 58.4])
    }

    /// Published vector: Bluetooth-Devices/xiaomi-ble `tests/test_parser.py`
    /// `test_Xiaomi_LYWSD03MMC_encrypted` (bindkey e9ea895fac7cca6d30532432a516f3a8, A4:C1:38:02:83:F4).
    /// The frame carries object 0x1006 = 467 → 46.7 %; xiaomi-ble reports 46 (whole percent for
    /// this model), we keep the tenth the device sent.
    @Test func decryptsPublishedLYWSD03MMCFrame() {
        let mac = BDAddress("A4:C1:38:02:83:F4")!
        let keyed = XiaomiMiBeaconDecoder(keys: DeviceKeys([mac: Kit.bytes("e9ea895fac7cca6d30532432a516f3a8")]))
        let outcome = Kit.decode(keyed, uuid: 0xFE95, "58585b0550f4830238c1a495ef58763c26000097e2abb5", from: mac)
        #expect(Kit.readings(outcome).first?.model == "LYWSD03MMC")
        #expect(Kit.readings(outcome).first?.frameKind == "v5-encrypted")
        #expect(Kit.values(outcome) == ["humidity_pct": 46.7])
    }

    /// Published vector without a MAC in the payload (nonce uses the advertiser address):
    /// xiaomi-ble `test_Xiaomi_XMWSDJ04MMC` (bindkey b2cf9a553d53571b5657defd582d676e), humidity 45.0
    /// as a float32 object 0x4C08.
    @Test func decryptsPublishedXMWSDJ04MMCFrameWithoutPayloadMAC() {
        let mac = BDAddress("2C:11:65:25:70:04")!
        let keyed = XiaomiMiBeaconDecoder(keys: DeviceKeys([mac: Kit.bytes("b2cf9a553d53571b5657defd582d676e")]))
        let outcome = Kit.decode(keyed, uuid: 0xFE95, "48590312a41b776e7c96add7000000f2bf545b", from: mac)
        #expect(Kit.readings(outcome).first?.model == "XMWSDJ04MMC")
        #expect(Kit.values(outcome) == ["humidity_pct": 45.0])
    }

    /// As BTHome v1's (found by fuzz/targets/decode_registry): a float32 object (0x4C01
    /// temperature, 0x4C08 humidity) whose bits are NaN or an infinity gave a reading of that value
    /// or made the frame malformed. It is skipped with a warning; the battery beside it counts.
    @Test func nonFiniteFloatObjectsAreSkipped() {
        let mac = BDAddress("58:2D:34:35:93:21")!
        for (object, id) in [("014c04", "4c01"), ("084c04", "4c08")] {
            for bits in ["0000c07f", "0000807f", "000080ff"] {  // NaN, +inf, −inf
                let outcome = Kit.decode(decoder, uuid: 0xFE95, "5020aa01da219335342d58" + object + bits + "0a100150", from: mac)
                #expect(Kit.values(outcome) == ["battery_pct": 80], "\(object) \(bits)")
                let warnings = Kit.readings(outcome).first?.warnings.map(\.description)
                #expect(warnings == ["object 0x\(id) is not a finite number, skipped"], "\(object) \(bits)")
            }
        }
    }

    @Test func wrongBindkeyIsMalformed() {
        let mac = BDAddress("A4:C1:38:02:83:F4")!
        let keyed = XiaomiMiBeaconDecoder(keys: DeviceKeys([mac: Kit.bytes("e9ea895fac7cca6d30532432a516f3a9")]))
        let outcome = Kit.decode(keyed, uuid: 0xFE95, "58585b0550f4830238c1a495ef58763c26000097e2abb5", from: mac)
        guard case .malformed(let why) = outcome else {
            Issue.record("expected malformed, got \(outcome)")
            return
        }
        #expect(why.contains("MIC"))
    }

    @Test func encryptedWithoutKeyNamesTheDeviceQuietly() {
        let outcome = Kit.decode(
            decoder, uuid: 0xFE95, "58585b0550f4830238c1a495ef58763c26000097e2abb5",
            from: BDAddress("A4:C1:38:02:83:F4")!)
        let r = Kit.readings(outcome)
        #expect(r.first?.model == "LYWSD03MMC")
        #expect(r.first?.measurements.isEmpty == true)
        #expect(r.first?.frameKind == "v5-encrypted-no-key")
    }

    @Test func negativeTemperatureBuiltFromTheLayout() {
        // v2 LYWSDCGQ frame, object 0x1004 = 0xff9c = −100 → −10.0 °C; then 0x100D −0.5 °C / 40.0 %
        let mac = BDAddress("58:2D:34:35:93:21")!
        let a = Kit.values(Kit.decode(decoder, uuid: 0xFE95, "5020aa01da219335342d580410029cff", from: mac))
        #expect(a == ["temperature_c": -10.0])
        let b = Kit.values(Kit.decode(decoder, uuid: 0xFE95, "5020aa01da219335342d580d1004fbff9001", from: mac))
        #expect(b == ["temperature_c": -0.5, "humidity_pct": 40.0])
    }

    /// A v3 frame with the object bit, product 0x0153 (YLYK01YL remote), frame counter `counter`, no
    /// MAC, and one 0x1001 object.
    static func buttonFrame(counter: String, _ index: String, _ value: String, _ type: String) -> String {
        "4030" + "5301" + counter + "011003" + index + value + type
    }

    @Test(arguments: [
        ("00", "00", "00", DeviceEvent.Kind.button, "press"), ("00", "00", "01", .button, "double_press"),
        ("00", "00", "02", .button, "long_press"), ("02", "00", "05", .button, "press:3"),
        ("01", "00", "06", .button, "long_press:2"), ("00", "04", "03", .button, "press"),
        ("01", "02", "03", .button, "long_press"), ("00", "02", "04", .dimmer, "rotate_right:2"),
        ("00", "fe", "04", .dimmer, "rotate_left:2"), ("fd", "00", "04", .dimmer, "rotate_left:3"),
    ])
    func buttonObjectIsAnEvent(_ index: String, _ value: String, _ type: String, _ kind: DeviceEvent.Kind, _ name: String) {
        let r = Kit.readings(Kit.decode(decoder, uuid: 0xFE95, Self.buttonFrame(counter: "17", index, value, type)))
        #expect(r.first?.events == [DeviceEvent(kind, name, packetID: 0x17)])
    }

    @Test func unknownPressTypesAndShortObjectsFireNothing() {
        #expect(Kit.readings(Kit.decode(decoder, uuid: 0xFE95, Self.buttonFrame(counter: "01", "00", "00", "09"))).first?.events == [])
        // A 2-byte 0x1001 is skipped like any known id of another length.
        let short = Kit.readings(Kit.decode(decoder, uuid: 0xFE95, "4030" + "5301" + "01" + "0110020000"))
        #expect(short.first?.events == [])
    }

    @Test func plantSensorObjects() {
        // MiFlora HHCCJCY01 (product 0x0098): illuminance u24, moisture u8, conductivity u16; the frame
        // shape of xiaomi-ble test_Xiaomi_HHCCJCY01_all_values, values of our own.
        let mac = BDAddress("C4:7C:8D:6A:3E:7A")!
        let ill = Kit.values(Kit.decode(decoder, uuid: 0xFE95, "71209800667a3e6a8d7cc40d0710030a0100", from: mac))
        #expect(ill == ["illuminance_lux": 266])
        let moist = Kit.values(Kit.decode(decoder, uuid: 0xFE95, "71209800477a3e6a8d7cc40d08100140", from: mac))
        #expect(moist == ["moisture_pct": 64])
        let cond = Kit.values(Kit.decode(decoder, uuid: 0xFE95, "71209800687a3e6a8d7cc40d0910025702", from: mac))
        #expect(cond == ["conductivity_us_cm": 599])
    }

    @Test func frameWithoutObjectNamesTheDevice() {
        // bthome-ble test_bthome_multiple_uuids carries this capability-only LYWSD03MMC frame.
        let r = Kit.readings(
            Kit.decode(decoder, uuid: 0xFE95, "30585b0501c4248138c1a4280100", from: BDAddress("A4:C1:38:81:24:C4")!))
        #expect(r.first?.model == "LYWSD03MMC")
        #expect(r.first?.measurements.isEmpty == true)
    }

    @Test func capabilityWithIOByteIsSkipped() {
        // frame control 0x2070 (v2, MAC, capability, object); capability 0x28 has bit 5, so one I/O
        // byte (0x01) follows before the object 0x1004 = 256 → 25.6 °C
        let v = Kit.values(
            Kit.decode(decoder, uuid: 0xFE95, "70205b0475ffeeddccbbaa280104100200 01".filter { $0 != " " }))
        #expect(v == ["temperature_c": 25.6])
    }

    @Test func objectRunningPastTheFrameIsMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, uuid: 0xFE95, "5020aa01da219335342d580d1004fe00")))
    }

    @Test func aTruncatedFrameKeepsWholeObjectsOnly() {
        for payload in [
            "5020aa01a3bf2e3b342d580d1004b40095020a10013b", "58585b0550f4830238c1a495ef58763c26000097e2abb5",
        ] {
            for outcome in Kit.everyTruncation(decoder, uuid: 0xFE95, Kit.bytes(payload), layout: .objects) {
                if case .readings(let r) = outcome {
                    // a cut frame may keep whole objects only
                    for m in r.flatMap(\.measurements) {
                        #expect([18.0, 66.1, 59].contains(m.value), "\(m)")
                    }
                }
            }
        }
    }

    @Test func otherSelectorsAreNotMine() {
        #expect(Kit.decode(decoder, uuid: 0xFE96, "5020aa01da219335342d580d1004fe004802") == .notMine)
        #expect(Kit.decode(decoder, uuid: 0x181A, "5020aa01da219335342d580d1004fe004802") == .notMine)
    }

    static let vectors = PeerVector.forFormats(["xiaomi_mibeacon_fe95"])

    /// Values a peer asserts that the frame does not carry, by vector locator; the reason for each.
    static let notInFrame: [String: (keys: Set<String>, reason: String)] = [
        "test_Xiaomi_LYWSDCGQ (line 411)": (
            ["voltage_v"],
            "xiaomi-ble reports a voltage the frame does not carry (it holds objects 0x100D and 0x100A only)"
        )
    ]

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsArePresent() {
        #expect(Self.vectors.count >= 24, "expected 24 vectors, found \(Self.vectors.count)")
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage), arguments: vectors)
    func peerVector(_ v: PeerVector) {
        let excluded = Self.notInFrame.first { v.locator.hasPrefix($0.key) }?.value.keys ?? []
        expectMatches(v, Kit.vectorValues(v, decoder), ignoring: excluded.union(["rssi_dbm"]))
        // The model we name is the one the peer names (its label may hold several, e.g. "CGC1/CGD1").
        let model = Kit.readings(Kit.decode(decoder, v.adBytes, from: v.address)).first?.model ?? "-"
        #expect(v.device.contains(model), "\(v): model \(model)")
    }
}
