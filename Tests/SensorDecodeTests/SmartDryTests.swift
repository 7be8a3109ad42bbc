import SensorDecode
import Testing

/// Mirrors Decoders/SmartDry.swift.
@Suite struct SmartDryTests {
    let decoder = SmartDryDecoder()
    let sample = Kit.bytes("9bc8af4108d7c34208016807")

    func values(_ data: [UInt8]) -> [String: Double] { Kit.values(Kit.decode(decoder, Kit.manufacturer(0x01AE, data))) }

    @Test func headerSampleDecodes() {
        let v = values(sample)
        Kit.expectClose(v["temperature_c"], 21.97295189, tolerance: 1e-6)
        Kit.expectClose(v["humidity_pct"], 97.91998291, tolerance: 1e-6)
        Kit.expectClose(v["voltage_v"], 2.951)
    }

    @Test func negativeTemperature() {
        // −4.5 as a single is 0xC0900000.
        Kit.expectClose(values(Kit.bytes("000090c0") + sample.dropFirst(4))["temperature_c"], -4.5)
    }

    @Test func impossibleFloatsAreMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.manufacturer(0x01AE, Kit.bytes("0000c07f") + sample.dropFirst(4)))))
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.manufacturer(0x01AE, sample.prefix(4) + Kit.bytes("0000ca42") + sample.dropFirst(8)))))
    }

    @Test func otherLengthsAreNotMine() {
        #expect(Kit.decode(decoder, Kit.manufacturer(0x01AE, sample + [0])) == .notMine)
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: [0xAE, 0x01] + sample) { Kit.ad(0xFF, $0) }
    }

    static let excluded = [
        "TestSmartDry.test_cloth_dryer":
            "ble_monitor reads the voltage as u16 mV (1.732 V, battery 0 %); we follow theengs (byte + 2847 mV = 3.043 V)"
    ]

    /// 5 vectors (theengs' four SDLS, ble_monitor's SmartDry): 4 pass, 1 excluded.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let vectors = PeerVector.all.filter { $0.device == "SDLS" || $0.device.hasPrefix("SmartDry") }
        #expect(vectors.count == 5)
        Kit.checkVectors(vectors, excluded: Self.excluded)
    }
}
