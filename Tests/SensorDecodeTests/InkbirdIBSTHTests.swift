import SensorDecode
import Testing

@Suite struct InkbirdIBSTHTests {
    let ibsTH = InkbirdIBSTHDecoder()

    /// A 9-byte IBS-TH value as an AD structure (the "company id" is the temperature).
    static func ibsTHFrame(_ value: [UInt8]) -> [UInt8] { Kit.ad(0xFF, value) }

    @Test func ibsTHHeaderSample() throws {
        let r = try #require(Kit.reading(Kit.decode(ibsTH, Hex.decode("0409737073 0aff3b09d01300ce906406")!)))
        #expect(r.model == "IBS-TH")
        #expect(r.value(.temperatureC) == 23.63)
        #expect(r.value(.humidityPercent) == 50.72)
        #expect(r.value(.batteryPercent) == 100)
    }

    @Test func crc16ModbusCheckValue() {
        // The catalogue check value of CRC-16/MODBUS: "123456789" → 0x4B37.
        let check = Array("123456789".utf8)
        let crc = InkbirdIBSTHDecoder.crc16Modbus(check)
        #expect(crc == 0x4B37)
    }

    @Test func ibsTHNegativeTemperature() throws {
        // −5.25 °C = −525 = 0xFDF3 LE, 45.00 % = 0x1194 LE, probe 0, CRC 0x055C, battery 80 %.
        let value = Hex.decode("f3fd9411005c055008")!
        let r = try #require(Kit.reading(Kit.decode(ibsTH, Kit.name("sps") + Self.ibsTHFrame(value))))
        #expect(r.value(.temperatureC) == -5.25)
        #expect(r.value(.humidityPercent) == 45)
        // Nameless: claimed on the CRC alone.
        let nameless = try #require(Kit.reading(Kit.decode(ibsTH, Self.ibsTHFrame(value))))
        #expect(nameless.value(.temperatureC) == -5.25)
    }

    @Test func ibsTHCorruptCRC() {
        var value = Hex.decode("f3fd9411005c055008")!
        value[0] ^= 0x01
        #expect(Kit.isMalformed(Kit.decode(ibsTH, Kit.name("tps") + Self.ibsTHFrame(value))))
        #expect(Kit.decode(ibsTH, Self.ibsTHFrame(value)) == .notMine)  // no name: not claimed
    }

    @Test func ibsTHExternalProbeAndTPS() throws {
        let probe = try #require(Kit.reading(Kit.decode(ibsTH, Hex.decode("0409737073 0aff3b0af815018cbc6408")!)))
        #expect(probe.value(.temperatureProbeC(1)) == 26.19)
        #expect(probe.value(.temperatureC) == nil)
        let tps = try #require(Kit.reading(Kit.decode(ibsTH, Hex.decode("0409747073 0aff4808000000c66e0d06")!)))
        #expect(tps.model == "IBS-TH2/P01B")
        #expect(tps.value(.humidityPercent) == nil)
        #expect(tps.value(.temperatureC) == 21.2)
    }

    @Test func ibsTHWrongSelectorIsNotMine() {
        // Right name, but an 8- or 10-byte value; or the frame as service data.
        #expect(Kit.decode(ibsTH, Kit.name("sps") + Self.ibsTHFrame(Hex.decode("3b09d01300ce9064")!)) == .notMine)
        #expect(
            Kit.decode(ibsTH, Kit.name("sps") + Self.ibsTHFrame(Hex.decode("3b09d01300ce90640600")!)) == .notMine)
        #expect(
            Kit.decode(ibsTH, Kit.name("sps") + Kit.ad(0x16, Hex.decode("3b09d01300ce906406")!)) == .notMine)
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(ibsTH, value: Hex.decode("3b09d01300ce906406")!) { Kit.name("sps") + Kit.ad(0xFF, $0) }
    }
}
