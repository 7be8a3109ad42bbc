import SensorDecode
import Testing

/// Mirrors Decoders/INode.swift.
@Suite struct INodeTests {
    let decoder = INodeDecoder()
    /// The header's sample (Care Sensor HT), AD structure included.
    let sample = Kit.bytes("19ff909b01a0000000007f14b9298e61af6cde99ef797870ee41")

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, sample)))
        #expect(r.model == "iNode Care Sensor HT")
        #expect(r.value(.batteryPercent) == 90)
        Kit.expectClose(r.value(.voltageV), 2.76, tolerance: 1e-9, "voltage")
        Kit.expectClose(r.value(.temperatureC), 9.4246, tolerance: 0.0001, "temperature")
        Kit.expectClose(r.value(.humidityPercent), 75.4896, tolerance: 0.0001, "humidity")
    }

    @Test func belowZeroAndAFullBattery() throws {
        // raw 0x0E00 = 3584: 175.72 · 4 · 3584 / 65536 − 46.85 = −8.41 °C; battery step 1 = 100 %.
        let r = try #require(Kit.reading(Kit.decode(decoder, Kit.bytes("19ff909b01100000" + "0000000e" + "b9298e61af6cde99ef797870ee41"))))
        Kit.expectClose(r.value(.temperatureC), 175.72 * 4 * 3584 / 65536 - 46.85, "temperature")
        #expect(r.value(.temperatureC)! < 0)
        #expect(r.value(.batteryPercent) == 100)
    }

    @Test func barometerModels() throws {
        // PT: pressure 0x3F70 / 16 = 1015.0 hPa, temperature 42.5 + (−9600) / 480 = 22.5 °C.
        let r = try #require(Kit.reading(Kit.decode(decoder, Kit.bytes("19ff909c" + "0160" + "0000" + "703f" + "80da" + "b9298e61af6cde99ef797870ee41"))))
        #expect(r.model == "iNode Care Sensor PT")
        #expect(r.value(.temperatureC) == 22.5)
        #expect(r.value(.pressureHPa) == 1015.0)
        #expect(r.value(.humidityPercent) == nil)
        #expect(r.value(.batteryPercent) == 50)
        Kit.expectClose(r.value(.voltageV), 2.28, "voltage")
    }

    @Test func otherTypesAndLengthsAreNotMine() {
        var other = sample
        other[3] = 0x91  // a motion Care Sensor
        #expect(Kit.decode(decoder, other) == .notMine)
        #expect(Kit.decode(decoder, [0x1A] + sample.dropFirst() + [0]) == .notMine)
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: Array(sample.dropFirst(2))) { [UInt8($0.count + 1), 0xFF] + $0 }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device.hasPrefix("iNode / ") })
    }
}
