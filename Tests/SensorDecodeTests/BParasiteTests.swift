import SensorDecode
import Testing

/// Mirrors Decoders/BParasite.swift.
@Suite struct BParasiteTests {
    let decoder = BParasiteDecoder()
    let address = BDAddress("AA:BB:CC:DD:EE:FF")!
    /// The header's sample: protocol 2, no light sensor.
    let v2 = Kit.bytes("20c30c1c0a00e6667fffaabbccddeeff")

    func decode(_ payload: [UInt8]) -> DecodeOutcome { Kit.decode(decoder, Kit.serviceData(0x181A, payload), from: address) }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(decode(v2)))
        #expect(r.frameKind == "v2")
        #expect(r.warnings.isEmpty)
        Kit.expectClose(r.value(.temperatureC), 25.6, "temperature")
        Kit.expectClose(r.value(.humidityPercent), 90.0, tolerance: 0.001, "humidity")
        Kit.expectClose(r.value(.moisturePercent), 50.0, tolerance: 0.001, "moisture")
        Kit.expectClose(r.value(.voltageV), 3.1, "voltage")
    }

    @Test func version1IsInThousandthsAndCarriesLight() throws {
        // −1.5 °C = −1500 = 0xFA24, light 66 lx.
        let r = try #require(Kit.reading(decode(Kit.bytes("110b0aa1fa24bca1fffff0caf0ca02010042"))))
        #expect(r.frameKind == "v1")
        #expect(r.value(.temperatureC) == -1.5)
        #expect(r.value(.illuminanceLux) == 66)
        #expect(r.warnings.count == 1)  // the payload MAC is F0:CA:F0:CA:02:01, not the sender
    }

    @Test func otherFormatsOn181AAreNotMine() {
        #expect(decode(Kit.bytes("a4c138aabbcc00e1312a0b7b08")) == .notMine)  // ATC1441, 13 bytes
        #expect(decode([0x30] + v2.dropFirst()) == .notMine)  // protocol 3
    }

    @Test func flagAndLengthThatDisagreeAreMalformed() {
        #expect(Kit.isMalformed(decode([0x21] + v2.dropFirst())))
        #expect(Kit.isMalformed(decode(v2 + [0x00, 0x10])))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: v2, from: address) { Kit.serviceData(0x181A, $0) }
        Kit.truncations(decoder, value: Kit.bytes("110b0aa1542cbca1fffff0caf0ca02010042"), from: address) {
            Kit.serviceData(0x181A, $0)
        }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device.hasPrefix("b-parasite") || $0.device == "BPv1.0-1.2" })
    }
}
