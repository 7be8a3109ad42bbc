import SensorDecode
import Testing

@Suite struct InkbirdITHTests {
    let ith = InkbirdITHDecoder()

    @Test func ithHeaderSampleAndNegative() throws {
        let sample = Hex.decode("09094954482d31332d42 13ff49241223052f0e0110026400000000000000")!
        let r = try #require(Kit.reading(Kit.decode(ith, sample)))
        #expect(r.model == "ITH-13-B")
        #expect(r.value(.temperatureC) == 27.0)
        #expect(r.value(.humidityPercent) == 52.8)
        #expect(r.value(.batteryPercent) == 100)
        // −12.3 °C = −123 = 0xFF85 LE "85 ff".
        let cold =
            Kit.name("ITH-11-B")
            + Kit.manufacturer(0x2449, Hex.decode("08120000" + "85ff" + "5d03" + "64" + "00640800000000")!)
        #expect(try #require(Kit.reading(Kit.decode(ith, cold))).value(.temperatureC) == -12.3)
    }

    @Test func ithSelectorAndSanity() {
        let value = Hex.decode("1223052f0e0110026400000000000000")!
        #expect(Kit.decode(ith, Kit.manufacturer(0x2448, value)) == .notMine)
        #expect(Kit.isMalformed(Kit.decode(ith, Kit.manufacturer(0x2449, Array(value.dropLast())))))
        var wet = value
        wet[6] = 0xE9
        wet[7] = 0x03  // 100.1 %
        #expect(Kit.isMalformed(Kit.decode(ith, Kit.manufacturer(0x2449, wet))))
        #expect(Kit.isMalformed(Kit.decode(ith, Kit.manufacturer(0x2449, Array(repeating: 0xFF, count: 16)))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(ith, value: Hex.decode("1223052f0e0110026400000000000000")!) {
            Kit.name("ITH-13-B") + Kit.manufacturer(0x2449, $0)
        }
    }
}
