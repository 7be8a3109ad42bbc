import SensorDecode
import Testing

/// Mirrors Decoders/Jaalee.swift.
@Suite struct JaaleeTests {
    let decoder = JaaleeDecoder()
    let beacon = Kit.bytes("0215ebefd08370a247c89837e7b5634df5257420591acb64")

    @Test func headerSampleDecodes() {
        let v = Kit.values(Kit.decode(decoder, Kit.manufacturer(0x004C, beacon)))
        Kit.expectClose(v["temperature_c"], -45 + 175 * 0x7420 / 65535.0)
        Kit.expectClose(v["humidity_pct"], 100 * 0x591A / 65535.0)
        #expect(v["battery_pct"] == 100)
    }

    @Test func negativeTemperature() {
        // raw 0x2000 = 8192: −45 + 175 × 8192 / 65535 = −23.125… °C.
        var cold = beacon
        cold[18] = 0x20
        cold[19] = 0x00
        let t = Kit.values(Kit.decode(decoder, Kit.manufacturer(0x004C, cold)))["temperature_c"]
        Kit.expectClose(t, -45 + 175 * 8192 / 65535.0)
        #expect((t ?? 0) < 0)
    }

    @Test func serviceDataFrameWithItsMAC() throws {
        let address = BDAddress("D0:9F:FF:81:85:13")!
        let frame = Kit.serviceData(0xF525, Kit.bytes("60138581ff9fd04f105a3e"))
        let r = try #require(Kit.reading(Kit.decode(decoder, frame, from: address)))
        #expect(r.warnings.isEmpty)
        Kit.expectClose(r.value(.temperatureC), -45 + 175 * 0x4F10 / 65535.0)
        #expect(r.value(.batteryPercent) == 96)
        #expect(Kit.reading(Kit.decode(decoder, frame))?.warnings.count == 1)
    }

    @Test func plainIBeaconsAreNotMine() {
        #expect(Kit.decode(decoder, Kit.manufacturer(0x004C, Array(beacon.dropLast()))) == .notMine)
        var other = beacon
        other[17] = 0x26
        #expect(Kit.decode(decoder, Kit.manufacturer(0x004C, other)) == .notMine)
    }

    @Test func batteryAbove100IsMalformed() {
        var battery = beacon
        battery[23] = 0x65
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.manufacturer(0x004C, battery))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: [0x4C, 0x00] + beacon) { Kit.ad(0xFF, $0) }
        Kit.truncations(decoder, value: Kit.bytes("6465e6aa4cb0c801632e5535")) { Kit.serviceData(0xF51C, $0) }
    }

    static let excluded = [
        "TestJaalee.test_jaalee_jht (":
            "bleparser applied the SHT2x formula (7.41 °C); we use SHT3x as ble_monitor and theengs do (9.05 °C)"
    ]

    /// 7 vectors (ble_monitor's 3, bleparser's 1, theengs' 3 "F525/F51C"): 6 pass, 1 excluded.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let vectors = PeerVector.all.filter { $0.device.hasPrefix("Jaalee") || $0.device == "F525/F51C" }
        #expect(vectors.count == 7)
        Kit.checkVectors(vectors, excluded: Self.excluded)
    }
}
