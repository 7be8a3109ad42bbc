import SensorDecode
import Testing

@Suite struct RuuviTests {
    let ruuvi = RuuviDecoder()

    /// A format-5 frame: temperature raw, humidity raw, pressure raw, then the rest as given.
    static func rawv2(
        temperature: UInt16 = 0x12FC, humidity: UInt16 = 0x5394, pressure: UInt16 = 0xC37C,
        tail: [UInt8] = Hex.decode("0004fffc040cac364200cdcbb8334c884f")!
    ) -> [UInt8] {
        [
            0x05, UInt8(temperature >> 8), UInt8(temperature & 0xFF), UInt8(humidity >> 8), UInt8(humidity & 0xFF),
            UInt8(pressure >> 8), UInt8(pressure & 0xFF),
        ] + tail
    }

    @Test func decodesHeaderSample() throws {
        let data = Hex.decode("1bff990405 12fc5394c37c0004fffc040cac364200cdcbb8334c884f")!
        let r = try #require(Kit.reading(Kit.decode(ruuvi, data, from: BDAddress("CB:B8:33:4C:88:4F")!)))
        #expect(r.frameKind == "rawv2")
        #expect(abs(r.value(.temperatureC)! - 24.3) < 1e-9)
        #expect(abs(r.value(.humidityPercent)! - 53.49) < 1e-9)
        #expect(abs(r.value(.pressureHPa)! - 1000.44) < 1e-9)
        #expect(r.value(.accelerationXG) == 0.004)
        #expect(r.value(.accelerationYG) == -0.004)
        #expect(r.value(.accelerationZG) == 1.036)
        #expect(r.value(.voltageV) == 2.977)
        #expect(r.value(.txPowerDBm) == 4)
        #expect(r.value(.movementCount) == 66)
        #expect(r.value(.packetCount) == 205)
        #expect(r.warnings.isEmpty)
    }

    @Test func payloadMACMismatchIsAWarning() throws {
        let r = try #require(Kit.reading(Kit.decode(ruuvi, Kit.manufacturer(0x0499, Self.rawv2()))))
        #expect(r.warnings.count == 1)
    }

    @Test func negativeTemperatures() throws {
        // Format 5: −10.005 °C = −2001 = 0xF82F.
        let r5 = try #require(
            Kit.reading(Kit.decode(ruuvi, Kit.manufacturer(0x0499, Self.rawv2(temperature: 0xF82F)))))
        #expect(abs(r5.value(.temperatureC)! - -10.005) < 1e-9)
        // Format 3: sign-magnitude, 0x8A = −10, fraction 0x05 = .05 → −10.05 °C.
        let df3: [UInt8] = [0x03, 0x64, 0x8A, 0x05, 0xC3, 0x50, 0, 0, 0, 0, 0x03, 0xE8, 0x0B, 0xB8]
        let r3 = try #require(Kit.reading(Kit.decode(ruuvi, Kit.manufacturer(0x0499, df3))))
        #expect(r3.value(.temperatureC) == -10.05)
        #expect(r3.value(.humidityPercent) == 50)
        #expect(r3.value(.pressureHPa) == 1000)
        #expect(r3.value(.accelerationZG) == 1)
        #expect(r3.value(.voltageV) == 3)
    }

    @Test func notAvailableFieldsAreOmitted() throws {
        let r = try #require(
            Kit.reading(
                Kit.decode(
                    ruuvi,
                    Kit.manufacturer(
                        0x0499,
                        Self.rawv2(
                            temperature: 0x8000, humidity: 0xFFFF, pressure: 0xFFFF,
                            tail: Hex.decode("000100020003ffffffffffffffffffffff")!)))))
        #expect(
            r.measurements == [
                Measurement(.accelerationXG, 0.001), Measurement(.accelerationYG, 0.002),
                Measurement(.accelerationZG, 0.003),
            ])
        #expect(r.warnings.isEmpty)  // an all-0xFF MAC is "not available", not a mismatch
    }

    @Test func allNotAvailableIsMalformed() {
        let frame: [UInt8] =
            [0x05, 0x80, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0x00, 0x80, 0x00, 0x80, 0x00]
            + Array(repeating: 0xFF, count: 11)
        #expect(Kit.isMalformed(Kit.decode(ruuvi, Kit.manufacturer(0x0499, frame))))
    }

    @Test func wrongSelectorOrFormatIsNotMine() {
        #expect(Kit.decode(ruuvi, Kit.manufacturer(0x0498, Self.rawv2())) == .notMine)
        #expect(Kit.decode(ruuvi, Kit.serviceData(0x0499, Self.rawv2())) == .notMine)
        var e1 = Self.rawv2()
        e1[0] = 0xE1  // Ruuvi Air's extended format: not decoded
        #expect(Kit.decode(ruuvi, Kit.manufacturer(0x0499, e1)) == .notMine)
    }

    @Test func wrongLengthOrRangeIsMalformed() {
        #expect(Kit.isMalformed(Kit.decode(ruuvi, Kit.manufacturer(0x0499, Array(Self.rawv2().dropLast())))))
        #expect(Kit.isMalformed(Kit.decode(ruuvi, Kit.manufacturer(0x0499, Self.rawv2(humidity: 40001)))))
        #expect(
            Kit.isMalformed(
                Kit.decode(ruuvi, Kit.manufacturer(0x0499, [0x03, 201] + Array(repeating: 0, count: 12)))))
        #expect(
            Kit.isMalformed(
                Kit.decode(ruuvi, Kit.manufacturer(0x0499, [0x03, 100, 1, 100] + Array(repeating: 0, count: 10))))
        )
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(ruuvi, value: Self.rawv2()) { Kit.manufacturer(0x0499, $0) }
        Kit.truncations(ruuvi, value: Hex.decode("03b28145ca20007a002603d0088f")!) {
            Kit.manufacturer(0x0499, $0)
        }
    }

    /// Where we differ from a peer, per vector. Also ignored for every vector: `battery_pct`, which
    /// ble_monitor derives from the voltage by its own formula (we report the voltage).
    static let excluded: [String: String] = [
        "test_mfgdata[24]": "theengs' RAWv1 maximum-values frame: humidity 127.5 % is out of range → malformed",
        "test_mac_mfgdata[16]": "theengs' RAWv2 maximum-values frame: humidity 163.835 % is out of range → malformed",
        "max_data": "ruuvi.endpoints.c's RAWv2 maximum-values frame: humidity 163.835 % → malformed",
    ]

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(
            PeerVector.all.filter { $0.format.hasPrefix("ruuvi_") },
            ignoring: ["rssi_dbm", "battery_pct"], excluded: Self.excluded)
    }
}
