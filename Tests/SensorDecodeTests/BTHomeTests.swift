import SensorDecode
import Testing

@Suite struct BTHomeTests {
    let decoder = BTHomeDecoder()
    /// bthome.io "Encryption" example key, also used by the ble_monitor test below.
    static let specKey = Kit.bytes("231d39c1d7cc1ab1aee224cd096db932")
    static let specMAC = BDAddress("54:48:E6:8F:80:A5")!

    @Test func headerSampleDecodes() {
        let v = Kit.values(Kit.decode(decoder, Kit.bytes("0a16d2fc4002ca0903bf13")))
        #expect(v == ["temperature_c": 25.06, "humidity_pct": 50.55])
    }

    /// Repeats are numbered per quantity, in frame order, whichever object id carries them
    /// (0x02 and 0x45 are both temperatures, 0x2E and 0x03 both humidities), beyond the numbered
    /// keys the object table makes ahead (2 to 4).
    @Test func repeatedQuantitiesAreNumbered() {
        let frame = "40" + "3a01" + "02ca09" + "3a02" + "3a03" + "451400" + "3a04" + "3a05" + "2e32" + "03bf13"
        let r = Kit.readings(Kit.decode(decoder, uuid: 0xFCD2, frame))
        let keys = r.first?.measurements.map(\.quantity.key)
        #expect(
            keys == [
                "button_event", "temperature_c", "button_event2", "button_event3", "temperature2_c", "button_event4",
                "button_event5", "humidity_pct", "humidity2_pct",
            ])
        #expect(r.first?.measurements.map(\.value) == [1, 25.06, 2, 3, 2, 4, 5, 50, 50.55])
    }

    @Test func v1SampleDecodes() {
        // v1: header 0x23 = signed, 3 bytes (id + s16); 0x03 = unsigned, 3 bytes.
        let r = Kit.readings(Kit.decode(decoder, uuid: 0x181C, "2302ca090303bf13"))
        #expect(r.first?.frameKind == "v1")
        #expect(Kit.values(.readings(r)) == ["temperature_c": 25.06, "humidity_pct": 50.55])
    }

    /// Published example: bthome.io/encryption (key, MAC 5448E68F80A5, counter 00112233, plaintext
    /// 02CA09 03BF13), as an HCI event in custom-components/ble_monitor
    /// `custom_components/ble_monitor/test/test_bthome.py`
    /// `test_bthome_v2_temperature_and_humidity_encrypted`: AD `020106 1216d2fc41a47266c95f730011223378237214`.
    @Test func decryptsThePublishedSpecExample() {
        let keyed = BTHomeDecoder(keys: DeviceKeys([Self.specMAC: Self.specKey]))
        let ad = Kit.bytes("0201061216d2fc41a47266c95f730011223378237214")
        let outcome = Kit.decode(keyed, ad, from: Self.specMAC)
        #expect(Kit.readings(outcome).first?.frameKind == "v2-encrypted")
        #expect(Kit.values(outcome) == ["temperature_c": 25.06, "humidity_pct": 50.55])
    }

    @Test func wrongKeyIsMalformedWithOneLineReason() {
        var key = Self.specKey
        key[5] ^= 0x40
        let keyed = BTHomeDecoder(keys: DeviceKeys([Self.specMAC: key]))
        let outcome = Kit.decode(
            keyed, Kit.bytes("0201061216d2fc41a47266c95f730011223378237214"), from: Self.specMAC)
        guard case .malformed(let why) = outcome else {
            Issue.record("expected malformed, got \(outcome)")
            return
        }
        #expect(why.contains("MIC") && why.contains("54:48:E6:8F:80:A5") && !why.contains("\n"))
    }

    @Test func corruptedCiphertextWithTheRightKeyIsMalformed() {
        let keyed = BTHomeDecoder(keys: DeviceKeys([Self.specMAC: Self.specKey]))
        // one ciphertext bit flipped: a4 → a5
        let outcome = Kit.decode(
            keyed, Kit.bytes("0201061216d2fc41a57266c95f730011223378237214"), from: Self.specMAC)
        #expect(Kit.isMalformed(outcome))
    }

    @Test func encryptedWithoutKeyNamesTheDeviceQuietly() {
        let outcome = Kit.decode(
            decoder, Kit.bytes("0201061216d2fc41a47266c95f730011223378237214"), from: Self.specMAC)
        let r = Kit.readings(outcome)
        #expect(r.count == 1)
        #expect(r.first?.measurements.isEmpty == true)
        #expect(r.first?.frameKind == "v2-encrypted-no-key")
        #expect(r.first?.warnings.isEmpty == true)
    }

    /// Frame built here from the spec (MAC in payload, info 0x43, counter 01000000, the spec key),
    /// encrypted with pyca/cryptography's AESCCM: plaintext `02 2efb 45 c9ff` = −12.34 °C, −5.5 °C.
    @Test func encryptedWithMACInPayloadAndNegativeTemperatures() {
        let mac = BDAddress("A4:C1:38:8D:18:B2")!
        let keyed = BTHomeDecoder(keys: DeviceKeys([mac: Self.specKey]))
        let v = Kit.values(
            Kit.decode(keyed, uuid: 0xFCD2, "43b2188d38c1a4bd12597c4e7e010000006f1dcbfd", from: mac))
        #expect(v == ["temperature_c": -12.34, "temperature2_c": -5.5])
    }

    @Test(arguments: [
        ("4002f6fe", -2.66),  // 0x02 s16 / 100
        ("4045c9ff", -5.5),  // 0x45 s16 / 10
        ("4057ea", -22.0),  // 0x57 s8
        ("4058ea", -7.7),  // 0x58 s8 × 0.35
        ("4008b0fe", -3.36),  // 0x08 dew point s16 / 100 (key dewpoint_c)
    ])
    func negativeTemperatures(hex: String, want: Double) {
        let v = Kit.values(Kit.decode(decoder, uuid: 0xFCD2, hex))
        Kit.expectClose(v["temperature_c"] ?? v["dewpoint_c"], want, hex)
    }

    @Test func v1UnknownIdIsSkippedByItsLengthAndFloatsDecode() {
        // v1 lengths are explicit: unknown id 0x7f (2 bytes) is skipped with a warning; then a float
        // (format 2, length 5) temperature −1.5 (0xbfc00000 little-endian), then battery.
        let r = Kit.readings(Kit.decode(decoder, uuid: 0x181C, "027f0045020000c0bf020161"))
        #expect(Kit.values(.readings(r)) == ["temperature_c": -1.5, "battery_pct": 97])
        #expect(r.first?.warnings.count == 1)
    }

    /// Found by fuzz/targets/decode_registry: a v1 float object whose bits are NaN or an infinity
    /// gave a reading of that value. It is skipped with a warning; the objects around it still count.
    @Test func v1NonFiniteFloatsAreSkipped() {
        for bits in ["0000c07f", "0000807f", "000080ff", "e0ffff7f"] {  // NaN, +inf, −inf, another NaN
            let r = Kit.readings(Kit.decode(decoder, uuid: 0x181C, "4502" + bits + "020161"))
            #expect(Kit.values(.readings(r)) == ["battery_pct": 97], "\(bits)")
            #expect(r.first?.warnings.map(\.description) == ["v1 float object 0x02 is not a finite number, skipped"])
        }
    }

    @Test func v1SignedFormatGivesNegativeTemperature() {
        // header 0x23: format 1 (signed), length 3; 0xfef6 = −266 → −2.66 °C
        Kit.expectClose(Kit.values(Kit.decode(decoder, uuid: 0x181C, "2302f6fe"))["temperature_c"], -2.66)
    }

    @Test func repeatedQuantitiesGetNumberedKeys() {
        // two temperatures, two humidities, two voltages (0x0C mV, 0x4A 0.1 V), two PM2.5
        let v = Kit.values(Kit.decode(decoder, uuid: 0xFCD2, "4002ca0902c4092e232e240c020c4a020c0d0a000d0b00"))
        #expect(v["temperature_c"] == 25.06 && v["temperature2_c"] == 25.0)
        #expect(v["humidity_pct"] == 35 && v["humidity2_pct"] == 36)
        #expect(v["voltage_v"] == 3.074 && v["voltage2_v"] == 307.4)
        #expect(v["pm2_5_ug_m3"] == 10 && v["pm2_5_2_ug_m3"] == 11)
    }

    @Test func everyObjectOfTheSpecHasAKnownSize() {
        // The spec's example of each sensor object (bthome.io/format), decoded one by one.
        let cases: [(String, String, Double)] = [
            ("0161", "battery_pct", 97), ("04138a01", "pressure_hpa", 1008.83),
            ("05138a14", "illuminance_lux", 13460.67),
            ("065e1f", "mass_kg", 80.3), ("073e1d", "mass_lb", 74.86), ("08ca06", "dewpoint_c", 17.38),
            ("0960", "count", 96), ("0a138a14", "energy_kwh", 1346.067), ("0b021b00", "power_w", 69.14),
            ("0c020c", "voltage_v", 3.074), ("0d120c", "pm2_5_ug_m3", 3090), ("0e021c", "pm10_ug_m3", 7170),
            ("12e204", "co2_ppm", 1250), ("133301", "tvoc_ug_m3", 307), ("14020c", "moisture_pct", 30.74),
            ("2e23", "humidity_pct", 35), ("2f23", "moisture_pct", 35), ("3d0960", "count", 24585),
            ("3e2a2c0960", "count", 1_611_213_866), ("3f020c", "rotation_deg", 307.4), ("400c00", "distance_mm", 12),
            ("414e00", "distance_m", 7.8), ("424e3400", "duration_s", 13.39), ("434e34", "current_a", 13.39),
            ("444e34", "speed_m_s", 133.9), ("4632", "uv_index", 5), ("478756", "volume_l", 2215.1),
            ("48dc87", "volume_ml", 34780), ("49dc87", "volume_flow_m3_h", 34.78), ("4b138a14", "gas_m3", 1346.067),
            ("4c41018a01", "gas_m3", 25821.505), ("4d12138a14", "energy_kwh", 344593.17),
            ("4e87562a01", "volume_l", 19551.879), ("4f87562a01", "water_l", 19551.879),
            ("505d396164", "device_time_s", 1_684_093_277), ("518756", "acceleration_m_s2", 22.151),
            ("528756", "gyroscope_deg_s", 22.151), ("5587562a01", "volume_storage_l", 19551.879),
            ("56e803", "conductivity_us_cm", 1000), ("5dea02", "current_a", 0.746), ("5e13c0", "direction_deg", 491.71),
            ("5f4e04", "precipitation_mm", 110.2), ("6001", "channel", 1), ("61dc87", "rotational_speed_rpm", 34780),
            ("59ea", "count", -22), ("5aeaea", "count", -5398), ("5bea0234ea", "count", -365_690_134),
            ("5c02ea3400", "power_w", 34677.78), ("1a01", "door", 1), ("2100", "motion", 0),
            ("3a01", "button_event", 1),
            ("3c0103", "dimmer_steps", -3),
        ]
        for (hex, key, want) in cases {
            let v = Kit.values(Kit.decode(decoder, uuid: 0xFCD2, "40" + hex))
            Kit.expectClose(v[key], want, tolerance: 1e-6, "object \(hex.prefix(2)) → \(key)")
        }
    }

    @Test func lengthPrefixedAndDeviceInfoObjectsAreSkipped() {
        // text "ab" (0x53), raw 1 byte (0x54), firmware (0xF2), then battery
        let v = Kit.values(Kit.decode(decoder, uuid: 0xFCD2, "40530261625401fff20100010161"))
        #expect(v == ["battery_pct": 97])
    }

    @Test func unknownObjectStopsTheWalkKeepingWhatCameBefore() {
        // bthome-ble test_bthome_battery_wrong_object_id_humidity: battery, then unknown id 0xFE
        let r = Kit.readings(Kit.decode(decoder, uuid: 0xFCD2, "40015dfe5d0903b718"))
        #expect(Kit.values(.readings(r)) == ["battery_pct": 93])
        #expect(r.first?.warnings.first?.description.contains("0xfe") == true)
    }

    @Test func unknownObjectFirstIsMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, uuid: 0xFCD2, "40fe5d0903b718")))
    }

    @Test func aTruncatedFrameKeepsWholeObjectsOnly() {
        let payload = Kit.bytes("4002ca0903bf13")
        for outcome in Kit.everyTruncation(decoder, uuid: 0xFCD2, payload, layout: .objects) {
            if case .readings(let r) = outcome {
                for m in r.flatMap(\.measurements) {
                    #expect(
                        [("temperature_c", 25.06), ("humidity_pct", 50.55)].contains { $0 == (m.quantity.key, m.value) }
                    )
                }
            }
        }
        Kit.everyTruncation(decoder, uuid: 0x181C, Kit.bytes("2302ca090303bf13"), layout: .objects)
        let keyed = BTHomeDecoder(keys: DeviceKeys([Kit.address: Self.specKey]))
        for outcome in Kit.everyTruncation(keyed, uuid: 0xFCD2, Kit.bytes("41a47266c95f730011223378237214")) {
            if case .readings(let r) = outcome { #expect(r.allSatisfy { $0.measurements.isEmpty }) }
        }
    }

    /// An advertisement with both a v2 and a v1 frame: readings of both (v2 first), and a corrupt
    /// frame does not hide the other's readings; with both corrupt, the v2 problem is reported.
    @Test func bothFramesInOneAdvertisement() {
        let v2 = Kit.serviceDataAD(0xFCD2, Kit.bytes("4002ca0903bf13"))
        let v1 = Kit.serviceDataAD(0x181C, Kit.bytes("2302f6fe"))
        let both = Kit.readings(Kit.decode(decoder, v2 + v1))
        #expect(both.map(\.frameKind) == ["v2", "v1"])
        #expect(both.first?.measurements.map(\.quantity.key) == ["temperature_c", "humidity_pct"])
        #expect(both.last?.measurements.map(\.quantity.key) == ["temperature_c"])
        // v2 object 0xFF is unknown with nothing before it: malformed; v1 declares 3 bytes, has 1.
        let badV2 = Kit.serviceDataAD(0xFCD2, Kit.bytes("40ff"))
        let badV1 = Kit.serviceDataAD(0x181C, Kit.bytes("2302"))
        #expect(Kit.readings(Kit.decode(decoder, badV2 + v1)).map(\.frameKind) == ["v1"])
        #expect(Kit.readings(Kit.decode(decoder, v2 + badV1)).map(\.frameKind) == ["v2"])
        let bothBad = Kit.decode(decoder, badV2 + badV1)
        #expect(bothBad == Kit.decode(decoder, badV2))
        #expect(Kit.isMalformed(bothBad))
    }

    @Test func otherSelectorsAndVersionsAreNotMine() {
        #expect(Kit.decode(decoder, uuid: 0xFCD3, "4002ca0903bf13") == .notMine)
        #expect(Kit.decode(decoder, uuid: 0x181A, "4002ca0903bf13") == .notMine)
        // version bits 5–7 = 3: an unknown layout
        #expect(Kit.decode(decoder, uuid: 0xFCD2, "6002ca0903bf13") == .notMine)
    }

    static let vectors = PeerVector.forFormats(["bthome_v1", "bthome_v2_fcd2"])

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsArePresent() {
        #expect(Self.vectors.count >= 34, "expected the 7 + 27 BTHome vectors, found \(Self.vectors.count)")
    }

    // MARK: events

    /// The events of one v2 frame of `objects` (hex, after the info byte 0x40 or 0x44).
    func events(_ objects: String, info: String = "44") -> [DeviceEvent] {
        Kit.readings(Kit.decode(decoder, uuid: 0xFCD2, info + objects)).first?.events ?? []
    }

    @Test(arguments: [
        ("01", "press"), ("02", "double_press"), ("03", "triple_press"), ("04", "long_press"),
        ("05", "long_double_press"), ("06", "long_triple_press"), ("80", "hold_press"),
    ])
    func buttonObjectIsAnEvent(_ byte: String, _ name: String) {
        // packet id 0x2A, battery 100 %, button
        let e = events("002a" + "0164" + "3a" + byte)
        #expect(e == [DeviceEvent(.button, name, packetID: 0x2A)])
    }

    @Test func noneIsNoEventAndUnknownValuesWarn() {
        #expect(events("0007" + "3a00").isEmpty)
        let r = Kit.readings(Kit.decode(decoder, uuid: 0xFCD2, "44" + "3a07"))
        #expect(r.first?.events == [])
        #expect(r.first?.warnings.map(\.description) == ["BTHome button event 0x07 unknown, no event"])
        // The measurement stays as it was.
        #expect(r.first?.value(.buttonEvent) == 7)
    }

    /// A four-button remote sends a 0x3A per button, "none" for those not pressed: the event names
    /// which one.
    @Test func laterButtonsAreNumbered() {
        #expect(events("0009" + "3a00" + "3a02" + "3a00" + "3a04") == [
            DeviceEvent(.button, "double_press:2", packetID: 9), DeviceEvent(.button, "long_press:4", packetID: 9),
        ])
        #expect(events("3a01" + "3a01") == [DeviceEvent(.button, "press"), DeviceEvent(.button, "press:2")])
    }

    @Test func dimmerTurnsAreEvents() {
        #expect(events("0001" + "3c0103") == [DeviceEvent(.dimmer, "rotate_left:3", packetID: 1)])
        #expect(events("3c02ff") == [DeviceEvent(.dimmer, "rotate_right:255")])
        #expect(events("3c0005").isEmpty)
        #expect(events("3c0305").isEmpty)
    }

    @Test func v1ButtonIsAnEventToo() {
        // v1 objects: header 0x02 = unsigned, 2 bytes (id + value): packet id 5, then button press.
        let r = Kit.readings(Kit.decode(decoder, uuid: 0x181C, "020005" + "023a01"))
        #expect(r.first?.events == [DeviceEvent(.button, "press", packetID: 5)])
    }

    /// The frame's event stays off a truncated object: a button object without its byte is none.
    @Test func aTruncatedButtonObjectFiresNothing() {
        let r = Kit.readings(Kit.decode(decoder, uuid: 0xFCD2, "44" + "0164" + "3a"))
        #expect(r.first?.events == [])
        #expect(r.first?.value(.batteryPercent) == 100)
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage), arguments: vectors)
    func peerVector(_ v: PeerVector) {
        expectMatches(v, Kit.vectorValues(v, decoder))
    }
}
