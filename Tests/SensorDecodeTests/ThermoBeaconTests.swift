import SensorDecode
import Testing

@Suite struct ThermoBeaconTests {
    let decoder = ThermoBeaconDecoder()
    static let address = BDAddress("70:F1:00:00:0E:DC")!

    /// An 18-byte frame for `address` with the given raw temperature and humidity (LE, /16).
    static func frame(temperature: Int16, humidity: UInt16 = 0x02D7, millivolts: UInt16 = 2922) -> [UInt8] {
        let t = UInt16(bitPattern: temperature)
        return [0x00, 0x00] + address.littleEndianBytes
            + [
                UInt8(millivolts & 0xFF), UInt8(millivolts >> 8), UInt8(t & 0xFF), UInt8(t >> 8),
                UInt8(humidity & 0xFF), UInt8(humidity >> 8), 0x83, 0x27, 0x05, 0x00,
            ]
    }

    @Test func decodesHeaderSample() throws {
        let data = Hex.decode("15ff10000000dc0e0000f1706a0b8101d70283270500")!
        let r = try #require(Kit.reading(Kit.decode(decoder, data, from: Self.address)))
        #expect(r.value(.temperatureC) == 24.0625)
        #expect(r.value(.humidityPercent) == 45.4375)
        #expect(r.value(.voltageV) == 2.922)
        #expect(r.value(.batteryPercent) == nil)
        #expect(r.warnings.isEmpty)
        #expect(r.model == "ThermoBeacon 0x0010")
    }

    @Test func negativeTemperature() throws {
        // −7.5 °C = −120/16.
        let r = try #require(
            Kit.reading(
                Kit.decode(
                    decoder, Kit.manufacturer(0x0011, Self.frame(temperature: -120)), from: Self.address)))
        #expect(r.value(.temperatureC) == -7.5)
    }

    @Test func payloadMACMismatchIsAWarning() throws {
        let r = try #require(
            Kit.reading(Kit.decode(decoder, Kit.manufacturer(0x0010, Self.frame(temperature: 100)))))
        #expect(r.warnings.count == 1)
    }

    @Test func wrongSelectorIsNotMine() {
        #expect(Kit.decode(decoder, Kit.manufacturer(0x0012, Self.frame(temperature: 100))) == .notMine)
        #expect(
            Kit.decode(decoder, Kit.manufacturer(0x0010, Array(Self.frame(temperature: 100).dropLast())))
                == .notMine)
        var tagged = Self.frame(temperature: 100)
        tagged[1] = 0x01  // only bit 7 (the button) may be set here
        #expect(Kit.decode(decoder, Kit.manufacturer(0x0010, tagged)) == .notMine)
    }

    @Test func buttonBitIsAccepted() throws {
        var pressed = Self.frame(temperature: 100)
        pressed[1] = 0x80
        let r = try #require(
            Kit.reading(Kit.decode(decoder, Kit.manufacturer(0x0010, pressed), from: Self.address)))
        #expect(r.value(.temperatureC) == 6.25)
    }

    @Test func outOfRangeIsMalformed() {
        #expect(
            Kit.isMalformed(
                Kit.decode(decoder, Kit.manufacturer(0x0010, Self.frame(temperature: 100, humidity: 1601)))))
        let blank = [0x00, 0x00] + Array(repeating: UInt8(0xFF), count: 16)
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.manufacturer(0x0010, blank))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: Self.frame(temperature: -120)) { Kit.manufacturer(0x0010, $0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        // battery_pct is ignored: the peers derive it from the voltage ((mV − 2000)/10, capped);
        // the device sends only the voltage, which we report and which is checked.
        Kit.checkVectors(
            PeerVector.all.filter { $0.format == "thermobeacon" }, ignoring: ["rssi_dbm", "battery_pct"])
    }
}

/// How strict the decoder is against what firmware sends: a newer device type of the same layout
/// is decoded, a temperature no model can measure is not stored.
@Suite struct ThermoBeaconStrictnessTests {
    let decoder = ThermoBeaconDecoder()

    /// thermobeacon-ble lists 0x18 ("Smart hygrometer", model 24) with the 18-byte layout.
    @Test func deviceType0x18IsDecoded() throws {
        let data = Kit.manufacturer(0x0018, ThermoBeaconTests.frame(temperature: -120, humidity: 800))
        let r = try #require(Kit.reading(Kit.decode(decoder, data, from: ThermoBeaconTests.address)))
        #expect(r.value(.temperatureC) == -7.5)
        #expect(r.value(.humidityPercent) == 50)
        #expect(r.model == "ThermoBeacon 0x0018")
        #expect(Registry.standard().decode(Kit.advertisement(data, from: ThermoBeaconTests.address)).readings.count == 1)
    }

    @Test func aTemperatureAbove100IsMalformed() {
        // 100 °C itself passes; 100.0625 °C does not.
        #expect(Kit.reading(Kit.decode(decoder, Kit.manufacturer(0x0010, ThermoBeaconTests.frame(temperature: 1600)),
                                       from: ThermoBeaconTests.address))?.value(.temperatureC) == 100)
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.manufacturer(0x0010, ThermoBeaconTests.frame(temperature: 1601)))))
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.manufacturer(0x0015, ThermoBeaconTests.frame(temperature: Int16.max)))))
    }
}
