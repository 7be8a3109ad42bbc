import SensorDecode
import Testing

@Suite struct SwitchBotMeterTests {
    let decoder = SwitchBotMeterDecoder()

    @Test func decodesHeaderSample() throws {
        let data = Hex.decode("0201060eff6909c4f92675df22dc030096a909163dfd6900ba031938")!
        let r = try #require(Kit.reading(Kit.decode(decoder, data)))
        #expect(r.model == "Meter Plus")
        #expect(r.value(.temperatureC) == -25.3)
        #expect(r.value(.humidityPercent) == 56)
        #expect(r.value(.batteryPercent) == 58)
    }

    @Test func signBitAndDecimalNibble() throws {
        // Old UUID 0x0D00, type 'T': 0x05 tenths, 0x80|3 → +3.5 °C; 0x03 → −3.5 °C.
        let warm = try #require(
            Kit.reading(Kit.decode(decoder, Kit.serviceData(0x0D00, [0x54, 0x00, 0x64, 0x05, 0x83, 0x28]))))
        #expect(warm.value(.temperatureC) == 3.5)
        #expect(warm.model == "Meter")
        let cold = try #require(
            Kit.reading(Kit.decode(decoder, Kit.serviceData(0x0D00, [0x54, 0x00, 0x64, 0x05, 0x03, 0x28]))))
        #expect(cold.value(.temperatureC) == -3.5)
        #expect(cold.value(.humidityPercent) == 40)
    }

    @Test func outdoorMeterUsesManufacturerCopy() throws {
        // 'w' service data has no measurements; 0x0969 bytes 8–10: 0x09 tenths, 0x0A (negative) 10, 0x3C 60 %.
        let data =
            Kit.manufacturer(0x0969, [0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x8b, 0x03, 0x09, 0x0A, 0x3C, 0x00])
            + Kit.serviceData(0xFD3D, [0x77, 0x00, 0x5A])
        let r = try #require(Kit.reading(Kit.decode(decoder, data)))
        #expect(r.model == "Outdoor Meter")
        #expect(r.value(.temperatureC) == -10.9)
        #expect(r.value(.humidityPercent) == 60)
        #expect(r.value(.batteryPercent) == 90)
        // Without service data the name identifies it; no battery then.
        let named =
            Kit.name("WoIOSensorTH")
            + Kit.manufacturer(0x0969, [0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x8b, 0x03, 0x09, 0x0A, 0x3C, 0x00])
        let n = try #require(Kit.reading(Kit.decode(decoder, named)))
        #expect(n.value(.temperatureC) == -10.9)
        #expect(n.value(.batteryPercent) == nil)
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0xFD3D, [0x77, 0x00, 0x5A]))))
    }

    @Test func wrongSelectorIsNotMine() {
        // A SwitchBot Bot ('H'), another UUID, and 0x0969 data without a meter's name.
        #expect(Kit.decode(decoder, Kit.serviceData(0xFD3D, [0x48, 0x00, 0x64, 0x05, 0x83, 0x28])) == .notMine)
        #expect(Kit.decode(decoder, Kit.serviceData(0xFD3E, [0x54, 0x00, 0x64, 0x05, 0x83, 0x28])) == .notMine)
        #expect(Kit.decode(decoder, Kit.manufacturer(0x0969, Array(repeating: 0x10, count: 12))) == .notMine)
    }

    @Test func outOfRangeIsMalformed() {
        #expect(
            Kit.isMalformed(
                Kit.decode(decoder, Kit.serviceData(0xFD3D, [0x54, 0x00, 0x64, 0x0A, 0x83, 0x28]))))
        #expect(
            Kit.isMalformed(
                Kit.decode(decoder, Kit.serviceData(0xFD3D, [0x54, 0x00, 0x64, 0x05, 0x83, 0x65]))))
        #expect(
            Kit.isMalformed(
                Kit.decode(decoder, Kit.serviceData(0xFD3D, [0x54, 0x00, 0x65, 0x05, 0x83, 0x28]))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: [0x69, 0x00, 0xba, 0x03, 0x19, 0x38]) { Kit.serviceData(0xFD3D, $0) }
        Kit.truncations(decoder, value: [0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x8b, 0x03, 0x09, 0x0A, 0x3C, 0x00], layout: .frames(lengths: [11])) {
            Kit.serviceData(0xFD3D, [0x77, 0x00, 0x5A]) + Kit.manufacturer(0x0969, $0)
        }
    }

    /// SwitchBot vectors are filed under format `other`; they are picked by device name.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let devices: Set<String> = ["Switchbot / Meter TH plus", "THX1/W230150X", "W340001X"]
        Kit.checkVectors(PeerVector.all.filter { $0.format == "other" && devices.contains($0.device) })
    }
}
