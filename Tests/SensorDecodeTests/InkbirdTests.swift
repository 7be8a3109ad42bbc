import SensorDecode
import Testing

@Suite struct InkbirdTests {
    let ibsTH = InkbirdIBSTHDecoder()
    let ith = InkbirdITHDecoder()
    let bbq = InkbirdBBQDecoder()
    let iamT2 = InkbirdIAMT2Decoder()

    /// A 9-byte IBS-TH value as an AD structure (the "company id" is the temperature).
    static func ibsTHFrame(_ value: [UInt8]) -> [UInt8] { Kit.ad(0xFF, value) }

    // MARK: IBS-TH

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

    // MARK: ITH-11-B / ITH-13-B / IBS-P02B

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

    // MARK: iBBQ / xBBQ

    @Test func bbqHeaderSampleAndNegative() throws {
        let address = BDAddress("34:14:B5:AB:F4:7B")!
        let sample = Hex.decode("0fff000000003414b5abf47bc800d200")!
        let r = try #require(Kit.reading(Kit.decode(bbq, sample, from: address)))
        #expect(r.model == "iBBQ-2")
        #expect(r.value(.temperatureProbeC(1)) == 20.0)
        #expect(r.value(.temperatureProbeC(2)) == 21.0)
        // −4.5 °C = −45 = 0xFFD3 LE "d3 ff"; probe 2 unplugged (0xFFF6).
        let cold = Hex.decode("0fff000000003414b5abf47bd3fff6ff")!
        let c = try #require(Kit.reading(Kit.decode(bbq, cold, from: address)))
        #expect(c.value(.temperatureProbeC(1)) == -4.5)
        #expect(c.value(.temperatureProbeC(2)) == nil)
    }

    @Test func bbqNeedsNameOrMatchingMAC() {
        let sample = Hex.decode("0fff000000003414b5abf47bc800d200")!
        #expect(Kit.decode(bbq, sample, from: BDAddress("11:22:33:44:55:66")!) == .notMine)
        #expect(Kit.decode(bbq, Kit.name("iBBQ") + sample, from: BDAddress("11:22:33:44:55:66")!) != .notMine)
        // Company 0x0003 is not an iBBQ tag.
        #expect(
            Kit.decode(
                bbq, Hex.decode("0fff030000003414b5abf47bc800d200")!, from: BDAddress("34:14:B5:AB:F4:7B")!)
                == .notMine)
    }

    // MARK: IAM-T2

    @Test func iamT2HeaderSampleAndCelsius() throws {
        let sample = Hex.decode("0b09496e6b4049414d2d5432 12ff5432006200a13e29bed6033c01c9024091")!
        let r = try #require(Kit.reading(Kit.decode(iamT2, sample)))
        #expect(abs(r.value(.temperatureC)! - 28.2222) < 0.001)
        #expect(r.value(.humidityPercent) == 45.7)
        #expect(r.value(.co2PPM) == 576)
        let cold = Hex.decode("0b09496e6b4049414d2d5432 12ff5432006200a13e29bed4ffce01ee025391")!
        #expect(try #require(Kit.reading(Kit.decode(iamT2, cold))).value(.temperatureC) == -5.0)
        // Without the name: not claimed.
        #expect(Kit.decode(iamT2, Hex.decode("12ff5432006200a13e29bed6033c01c9024091")!) == .notMine)
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(ibsTH, value: Hex.decode("3b09d01300ce906406")!) { Kit.name("sps") + Kit.ad(0xFF, $0) }
        Kit.truncations(ith, value: Hex.decode("1223052f0e0110026400000000000000")!) {
            Kit.name("ITH-13-B") + Kit.manufacturer(0x2449, $0)
        }
        Kit.truncations(
            bbq, value: Hex.decode("000000003414b5abf47bc800d200f6fff6fff6fff6ff")!, layout: .frames(lengths: [12, 14, 18])
        ) {  // the 1-, 2- and 4-probe models
            Kit.name("iBBQ") + Kit.ad(0xFF, $0)
        }
        Kit.truncations(iamT2, value: Hex.decode("5432006200a13e29bed6033c01c9024091")!) {
            Kit.name("Ink@IAM-T2") + Kit.ad(0xFF, $0)
        }
    }

    // MARK: peer vectors

    /// Where we differ from a peer, per vector.
    static let excluded: [String: String] = [
        "test_mfgdata[12]": "theengs' hand-edited tps frame: its CRC (0x8010) does not match → malformed",
        "test_mfgdata[13]": "theengs' hand-edited tps frame: its CRC (0x8010) does not match → malformed",
        "test_mfgdata[1] ":
            "probe byte 1 (external probe): theengs calls it temperature_c, ble_monitor "
            + "temperature_probe_1_c; we follow ble_monitor",
        "test_iam_t2_fahrenheit_mode":
            "82.8 °F is 28.22 °C; inkbird-ble rounds the conversion to 28.2 °C, we keep the exact value",
        "TestInkbird.test_inkbird_iBBQ_6_probes":
            "ble_monitor reports unplugged probes (0xFFF6) as 0 °C; we omit them",
    ]

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        // theengs names grill-thermometer probes temperature_c, temperature2_c …: our probe keys.
        Kit.checkVectors(
            PeerVector.all.filter { $0.format.hasPrefix("inkbird_") },
            probes: { $0.device.hasPrefix("IBT-") }, excluded: Self.excluded)
    }
}
