import SensorDecode
import Testing

/// Mirrors Decoders/Relsib.swift.
@Suite struct RelsibTests {
    let decoder = RelsibDecoder()
    let aa20 = Kit.bytes("84000000b20a200a15030080f04700c2eb0b010b0300")

    @Test func headerSampleDecodes() {
        #expect(Kit.values(Kit.decode(decoder, Kit.serviceData(0xAA20, aa20))) == [
            "temperature_c": 27.38, "humidity_pct": 25.92, "co2_ppm": 789, "battery_pct": 71,
        ])
    }

    @Test func negativeTemperatureAndSensorNotReady() {
        // −5.25 °C (0xFDF3), humidity not ready (0x8000), 400 ppm; then the name.
        let frame = Kit.bytes("f3fd00809001") + Array("EclerkEco".utf8) + [UInt8](repeating: 0, count: 7)
        #expect(Kit.values(Kit.decode(decoder, Kit.serviceData(0xAA21, frame))) == [
            "temperature_c": -5.25, "co2_ppm": 400,
        ])
    }

    @Test func thePowerAdapterMeansFull() {
        var plugged = aa20
        plugged[13] = 0x80
        #expect(Kit.values(Kit.decode(decoder, Kit.serviceData(0xAA20, plugged)))["battery_pct"] == 100)
    }

    @Test func impossibleValuesAreMalformed() {
        var battery = aa20
        battery[13] = 0x65
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0xAA20, battery))))
        var humidity = aa20
        humidity[7] = 0x30  // 0x3020 = 123.2 %
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0xAA20, humidity))))
    }

    @Test func otherUUIDsAreNotMine() {
        #expect(Kit.decode(decoder, Kit.serviceData(0xAA23, aa20)) == .notMine)
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: aa20) { Kit.serviceData(0xAA20, $0) }
        Kit.truncations(decoder, value: Kit.bytes("220a75094303008045636c65726b45636f0000000000")) {
            Kit.serviceData(0xAA21, $0)
        }
    }

    @Test func wh52Temperature() throws {
        let ad = Kit.serviceData(0x1809, Kit.bytes("4dea")) + Kit.serviceData(0x181A, Kit.bytes("b14c"))
            + Kit.serviceData(0xAAA2, Array("0351".utf8))
        let r = try #require(Kit.reading(Kit.decode(decoder, ad)))
        #expect(r.model == "WH52")
        Kit.expectClose(r.value(.temperatureC), -45 + 175 * 0x4DEA / 65535.0)
        #expect(r.value(.humidityPercent) == nil)
        // Below zero: raw 0x3000 = −45 + 175 × 12288 / 65535 = −12.19 °C.
        let cold = Kit.serviceData(0x1809, Kit.bytes("3000")) + Kit.serviceData(0xAAA2, Array("0351".utf8))
        Kit.expectClose(Kit.values(Kit.decode(decoder, cold))["temperature_c"], -45 + 175 * 12288 / 65535.0)
        // Without the 0xAAA2 marker, 0x1809 data is someone else's.
        #expect(Kit.decode(decoder, Kit.serviceData(0x1809, Kit.bytes("4dea"))) == .notMine)
        Kit.truncations(decoder, value: Kit.bytes("4dea")) {
            Kit.serviceData(0x1809, $0) + Kit.serviceData(0xAAA2, Array("0351".utf8))
        }
    }

    static let excluded = [
        "TestRelsib.test_relsib_WH52":
            "WH52 humidity left out: ble_monitor applies the temperature formula (76.2 %); the scale is not established"
    ]

    /// 5 vectors: the four EClerk Eco ones pass; the WH52's temperature matches, its humidity is
    /// excluded (above).
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let vectors = PeerVector.all.filter { $0.device.hasPrefix("Relsib") }
        #expect(vectors.count == 5)
        Kit.checkVectors(vectors, excluded: Self.excluded)
    }
}
