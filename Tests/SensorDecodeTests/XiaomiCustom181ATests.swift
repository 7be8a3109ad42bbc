import SensorDecode
import Testing

@Suite struct XiaomiCustom181ATests {
    let decoder = XiaomiCustom181ADecoder()

    @Test func headerSamplesDecode() {
        let atc = Kit.decode(
            decoder, uuid: 0x181A, "a4c138d5d498ffd33e510b7b62", from: BDAddress("A4:C1:38:D5:D4:98")!)
        #expect(Kit.readings(atc).first?.frameKind == "atc1441")
        #expect(
            Kit.values(atc) == ["temperature_c": -4.5, "humidity_pct": 62, "battery_pct": 81, "voltage_v": 2.939])
        let pvvx = Kit.decode(
            decoder, uuid: 0x181A, "5601cf38c1a462fdbd13470c64cc0f", from: BDAddress("A4:C1:38:CF:01:56")!)
        #expect(Kit.readings(pvvx).first?.frameKind == "pvvx")
        #expect(
            Kit.values(pvvx) == [
                "temperature_c": -6.7, "humidity_pct": 50.53, "battery_pct": 100, "voltage_v": 3.143,
            ])
        #expect(Kit.readings(pvvx).first?.warnings.isEmpty == true)
    }

    @Test func negativeTemperaturesBuiltFromTheLayouts() {
        // ATC1441: 0xff38 = −200 → −20.0 °C (big-endian);
        // pvvx: 0xf830 = −2000 → −20.00 °C (little-endian)
        let atc = Kit.values(Kit.decode(decoder, uuid: 0x181A, "112233445566ff38325a0b8601"))
        #expect(atc["temperature_c"] == -20.0)
        let pvvx = Kit.values(Kit.decode(decoder, uuid: 0x181A, "66554433221130f8881364fd5a0100"))
        #expect(pvvx["temperature_c"] == -20.0)
        #expect(pvvx["humidity_pct"] == 50.0)
    }

    @Test func payloadMACDifferentFromAdvertiserIsAWarning() {
        let r = Kit.readings(Kit.decode(decoder, uuid: 0x181A, "a4c138d5d498ffd33e510b7b62"))
        #expect(r.first?.warnings.count == 1)
    }

    @Test func impossibleHumidityOrBatteryIsMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, uuid: 0x181A, "112233445566ff38655a0b8601")))  // 101 %
        #expect(Kit.isMalformed(Kit.decode(decoder, uuid: 0x181A, "66554433221130f8112764fd5a0100")))  // 100.01 %
        #expect(!Kit.isMalformed(Kit.decode(decoder, uuid: 0x181A, "112233445566ff38325f0b8601")))  // 95 %
        #expect(Kit.isMalformed(Kit.decode(decoder, uuid: 0x181A, "112233445566ff3832650b8601")))  // battery 101
    }

    @Test func otherLengthsAndSelectorsAreNotMine() {
        // b-parasite (16 bytes) and Relsib (2 bytes) use 0x181A too.
        #expect(Kit.decode(decoder, uuid: 0x181A, "100b0aa1542cbca1fffff0caf0ca0201") == .notMine)
        #expect(Kit.decode(decoder, uuid: 0x181A, "b14c") == .notMine)
        #expect(Kit.decode(decoder, uuid: 0x181B, "a4c138d5d498ffd33e510b7b62") == .notMine)
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        for payload in ["a4c138d5d498ffd33e510b7b62", "5601cf38c1a462fdbd13470c64cc0f"] {
            for (length, outcome) in Kit.everyTruncation(decoder, uuid: 0x181A, Kit.bytes(payload), layout: .frames(lengths: [13])).enumerated() {
                // Shorter frames are other devices' lengths, except 13 bytes: a cut pvvx frame then
                // reads as ATC1441 (no check to tell), where its bytes give an impossible humidity.
                #expect(outcome == .notMine || length == 13, "\(length) bytes: \(outcome)")
            }
        }
    }

    static let vectors = PeerVector.forFormats(["xiaomi_181a_atc1441", "xiaomi_181a_pvvx"])

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsArePresent() {
        #expect(Self.vectors.count >= 15, "expected 7 + 8 vectors, found \(Self.vectors.count)")
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage), arguments: vectors)
    func peerVector(_ v: PeerVector) {
        expectMatches(v, Kit.vectorValues(v, decoder))
    }

    /// Records under format `other` that carry 0x181A service data belong to other devices
    /// (b-parasite, Relsib WH52, Theengs "BPv1.0-1.2"): this decoder must leave them alone.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func otherDevicesOn181AAreNotMine() {
        let others = PeerVector.forFormats(["other"]).filter {
            AdvertisingData(parsing: $0.adBytes).serviceData(uuid16: 0x181A) != nil
        }
        #expect(others.count >= 3)
        for v in others {
            #expect(Kit.decode(decoder, v.adBytes, from: v.address) == .notMine, "\(v)")
        }
    }
}
