import SensorDecode
import Testing

@Suite struct SwitchBotMeterTests {
    let decoder = SwitchBotMeterDecoder()

    @Test func decodesHeaderSample() throws {
        let data = Hex.decode("0201060eff6909c4f92675df22dc030096a909163dfd6900ba031938")!
        let r = try #require(GroupB.reading(GroupB.decode(decoder, data)))
        #expect(r.model == "Meter Plus")
        #expect(r.value(.temperatureC) == -25.3)
        #expect(r.value(.humidityPercent) == 56)
        #expect(r.value(.batteryPercent) == 58)
    }

    @Test func signBitAndDecimalNibble() throws {
        // Old UUID 0x0D00, type 'T': 0x05 tenths, 0x80|3 → +3.5 °C; 0x03 → −3.5 °C.
        let warm = try #require(
            GroupB.reading(GroupB.decode(decoder, GroupB.serviceData(0x0D00, [0x54, 0x00, 0x64, 0x05, 0x83, 0x28]))))
        #expect(warm.value(.temperatureC) == 3.5)
        #expect(warm.model == "Meter")
        let cold = try #require(
            GroupB.reading(GroupB.decode(decoder, GroupB.serviceData(0x0D00, [0x54, 0x00, 0x64, 0x05, 0x03, 0x28]))))
        #expect(cold.value(.temperatureC) == -3.5)
        #expect(cold.value(.humidityPercent) == 40)
    }

    @Test func outdoorMeterUsesManufacturerCopy() throws {
        // 'w' service data has no measurements; 0x0969 bytes 8–10: 0x09 tenths, 0x0A (negative) 10, 0x3C 60 %.
        let data =
            GroupB.manufacturer(0x0969, [0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x8b, 0x03, 0x09, 0x0A, 0x3C, 0x00])
            + GroupB.serviceData(0xFD3D, [0x77, 0x00, 0x5A])
        let r = try #require(GroupB.reading(GroupB.decode(decoder, data)))
        #expect(r.model == "Outdoor Meter")
        #expect(r.value(.temperatureC) == -10.9)
        #expect(r.value(.humidityPercent) == 60)
        #expect(r.value(.batteryPercent) == 90)
        // Without service data the name identifies it; no battery then.
        let named =
            GroupB.name("WoIOSensorTH")
            + GroupB.manufacturer(0x0969, [0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x8b, 0x03, 0x09, 0x0A, 0x3C, 0x00])
        let n = try #require(GroupB.reading(GroupB.decode(decoder, named)))
        #expect(n.value(.temperatureC) == -10.9)
        #expect(n.value(.batteryPercent) == nil)
        #expect(GroupB.isMalformed(GroupB.decode(decoder, GroupB.serviceData(0xFD3D, [0x77, 0x00, 0x5A]))))
    }

    @Test func wrongSelectorIsNotMine() {
        // A SwitchBot Bot ('H'), another UUID, and 0x0969 data without a meter's name.
        #expect(GroupB.decode(decoder, GroupB.serviceData(0xFD3D, [0x48, 0x00, 0x64, 0x05, 0x83, 0x28])) == .notMine)
        #expect(GroupB.decode(decoder, GroupB.serviceData(0xFD3E, [0x54, 0x00, 0x64, 0x05, 0x83, 0x28])) == .notMine)
        #expect(GroupB.decode(decoder, GroupB.manufacturer(0x0969, Array(repeating: 0x10, count: 12))) == .notMine)
    }

    @Test func outOfRangeIsMalformed() {
        #expect(
            GroupB.isMalformed(
                GroupB.decode(decoder, GroupB.serviceData(0xFD3D, [0x54, 0x00, 0x64, 0x0A, 0x83, 0x28]))))
        #expect(
            GroupB.isMalformed(
                GroupB.decode(decoder, GroupB.serviceData(0xFD3D, [0x54, 0x00, 0x64, 0x05, 0x83, 0x65]))))
        #expect(
            GroupB.isMalformed(
                GroupB.decode(decoder, GroupB.serviceData(0xFD3D, [0x54, 0x00, 0x65, 0x05, 0x83, 0x28]))))
    }

    @Test func truncationNeverCrashes() {
        GroupB.truncations(decoder, value: [0x69, 0x00, 0xba, 0x03, 0x19, 0x38]) { GroupB.serviceData(0xFD3D, $0) }
        GroupB.truncations(decoder, value: [0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x8b, 0x03, 0x09, 0x0A, 0x3C, 0x00]) {
            GroupB.serviceData(0xFD3D, [0x77, 0x00, 0x5A]) + GroupB.manufacturer(0x0969, $0)
        }
    }

    /// SwitchBot vectors are filed under format `other`; they are picked by device name.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let devices: Set<String> = ["Switchbot / Meter TH plus", "THX1/W230150X", "W340001X"]
        GroupB.checkVectors(PeerVector.all.filter { $0.format == "other" && devices.contains($0.device) })
    }
}
