import SensorDecode
import Testing

/// Mirrors Decoders/HolyIOT.swift.
@Suite struct HolyIOTTests {
    let decoder = HolyIOTDecoder()
    let address = BDAddress("C6:B5:45:F6:F1:8E")!

    func frame(type: String, value: String) -> [UInt8] { Kit.bytes("4164c6b545f6f18e0606" + type + value) }
    func values(_ frame: [UInt8]) -> [String: Double] {
        Kit.values(Kit.decode(decoder, Kit.serviceData(0x5242, frame), from: address))
    }

    @Test func headerSampleDecodes() {
        let v = values(frame(type: "01", value: "ed25"))
        #expect(v.keys.sorted() == ["battery_pct", "temperature_c"])
        #expect(v["battery_pct"] == 100)
        Kit.expectClose(v["temperature_c"], -19.37)
    }

    @Test func temperatureSignCoversTheHundredths() {
        Kit.expectClose(values(frame(type: "01", value: "1705"))["temperature_c"], 23.05)
        Kit.expectClose(values(frame(type: "01", value: "fe32"))["temperature_c"], -2.5)
    }

    @Test func otherMeasurements() {
        #expect(values(frame(type: "02", value: "5334")) == ["battery_pct": 100, "pressure_hpa": 1013.0])
        #expect(values(frame(type: "03", value: "4c00")) == ["battery_pct": 100, "humidity_pct": 76])
        #expect(values(frame(type: "04", value: "0100")) == ["battery_pct": 100, "vibration": 1])
        #expect(values(frame(type: "06", value: "0100")) == ["battery_pct": 100])
    }

    @Test func anotherDevicesMACIsNotMine() {
        let outcome = Kit.decode(decoder, Kit.serviceData(0x5242, frame(type: "01", value: "1705")), from: Kit.address)
        #expect(outcome == .notMine)
    }

    @Test func impossibleValuesAreMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0x5242, frame(type: "01", value: "17ff")), from: address)))
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0x5242, Kit.bytes("41ffc6b545f6f18e0606011705")), from: address)))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: frame(type: "01", value: "ed25"), from: address) { Kit.serviceData(0x5242, $0) }
    }

    /// 5 vectors, all matching; ble_monitor's pressure (Pa under an hPa key) through Kit.peerUnits.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let vectors = PeerVector.all.filter { $0.device.hasPrefix("HolyIOT") }
        #expect(vectors.count == 5)
        Kit.checkVectors(vectors, unit: Kit.peerUnits["holyiot"])
    }
}
