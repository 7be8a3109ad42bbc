import SensorDecode
import Testing

/// Mirrors Decoders/MinewFFE1.swift.
@Suite struct MinewFFE1Tests {
    let decoder = MinewFFE1Decoder()
    let address = BDAddress("11:22:33:44:55:66")!

    /// AD bytes carrying `frame` as service data for 0xFFE1, after a flags structure.
    func ad(_ frame: [UInt8]) -> [UInt8] {
        [0x02, 0x01, 0x06, UInt8(frame.count + 3), 0x16, 0xE1, 0xFF] + frame
    }

    func outcome(_ frameHex: String, from addr: BDAddress? = nil) -> DecodeOutcome {
        let data = ad(Hex.decode(frameHex)!)
        return decoder.decode(Advertisement(address: addr ?? address, data: data))
    }

    func reading(_ frameHex: String, from addr: BDAddress? = nil) -> Reading? {
        if case .readings(let r) = outcome(frameHex, from: addr) { return r.first }
        return nil
    }

    @Test func decodesTheHeaderSample() throws {
        let r = try #require(reading("a10164ff803200665544332211"))
        #expect(r.model == "MM-BLEBC7")
        #expect(r.value(.temperatureC) == -0.5)
        #expect(r.value(.humidityPercent) == 50.0)
        #expect(r.value(.batteryPercent) == 100)
        #expect(r.warnings.isEmpty)
        #expect(r.frameKind == "a1-01")
    }

    @Test(arguments: [
        ("ff80", -0.5), ("f600", -10.0), ("8000", -128.0), ("7fff", 127.99609375),
        ("0000", 0.0), ("0080", 0.5), ("1780", 23.5), ("ffff", -0.00390625), ("fe00", -2.0),
    ])
    func temperatureIsSigned88BigEndian(bytes: String, celsius: Double) throws {
        let r = try #require(reading("a10164" + bytes + "3200665544332211"))
        #expect(r.value(.temperatureC) == celsius)
    }

    @Test func theUnsignedFormulaOfTheIOSSampleWouldBeWrong() throws {
        // Float(b3) + Float(b4)/256 on unsigned bytes turns FF 80 into 255.5; we must not.
        let r = try #require(reading("a10164ff803200665544332211"))
        #expect(r.value(.temperatureC) != 255.5)
    }

    @Test func humidityIsUnsigned88() throws {
        #expect(try #require(reading("a1016417806380665544332211")).value(.humidityPercent) == 99.5)
        #expect(try #require(reading("a1016417800000665544332211")).value(.humidityPercent) == 0)
    }

    @Test func humidityAbove100IsMalformed() {
        guard case .malformed = outcome("a1016417806500665544332211") else {
            Issue.record("humidity 101 % accepted")
            return
        }
    }

    @Test func batteryAbove100IsMalformed() {
        guard case .malformed = outcome("a101ff17803200665544332211") else {
            Issue.record("battery 255 % accepted")
            return
        }
    }

    @Test func infoFrameGivesBatteryAndName() throws {
        let r = try #require(reading("a10801665544332211504c5553"))
        #expect(r.value(.batteryPercent) == 1)
        #expect(r.name == "PLUS")
        #expect(r.measurements.count == 1)
        #expect(r.warnings.isEmpty)
    }

    @Test func infoFrameNameIsEscaped() throws {
        let r = try #require(reading("a108016655443322110a1b5b326a"))
        #expect(r.name == "\\x0a\\x1b[2j")
    }

    @Test func temperatureOnlyFrame() throws {
        let r = try #require(reading("a11363ff80665544332211"))
        #expect(r.value(.temperatureC) == -0.5)
        #expect(r.value(.batteryPercent) == 99)
        #expect(r.value(.humidityPercent) == nil)
    }

    @Test func visibleLightFrame() throws {
        let r = try #require(reading("a1025a01665544332211"))
        #expect(r.value(.light) == 1)
        #expect(r.value(.batteryPercent) == 90)
    }

    @Test func accelerationFrame() throws {
        let r = try #require(reading("a10364ff0001008000665544332211"))
        #expect(r.value(.accelerationXG) == -1)
        #expect(r.value(.accelerationYG) == 1)
        #expect(r.value(.accelerationZG) == -128)
    }

    @Test(arguments: ["a101", "a10164ff8032006655443322", "a10164ff80320066554433221100", "a113631973aabbccddee",
                      "a113631973aabbccddeeff00", "a1025a016655443322", "a10801665544332211"[...].dropLast(2).description,
                      "a10364ff00010080006655443322"])
    func wrongLengthIsRejectedNeverGuessed(frame: String) {
        switch outcome(frame) {
        case .readings(let r): Issue.record("frame \(frame) of the wrong length decoded as \(r)")
        case .notMine, .malformed: break
        }
    }

    @Test func wrongLengthOfAKnownVersionIsMalformed() {
        guard case .malformed(let why) = outcome("a10164ff803200665544332211aa") else {
            Issue.record("overlong a1-01 not malformed")
            return
        }
        #expect(why.contains("13"))
    }

    @Test(arguments: ["a20164ff803200665544332211", "a1ff64ff803200665544332211", "", "a1"])
    func wrongFrameTypeOrUnknownVersionIsNotMine(frame: String) {
        #expect(outcome(frame) == .notMine)
    }

    @Test func otherServiceUUIDIsNotMine() {
        let data: [UInt8] = [0x10, 0x16, 0xE2, 0xFF] + Hex.decode("a10164ff803200665544332211")!
        #expect(decoder.decode(Advertisement(address: address, data: data)) == .notMine)
    }

    @Test func payloadMACMismatchIsReported() throws {
        let r = try #require(reading("a10164ff803200665544332211", from: BDAddress("A4:C1:38:BC:07:01")!))
        #expect(r.warnings.count == 1)
        #expect(r.warnings[0].description.contains("11:22:33:44:55:66"))
        #expect(r.value(.temperatureC) == -0.5)  // still decoded: a warning, not a rejection
    }

    @Test func noTruncatedFrameYieldsAReading() {
        for frame in ["a10164ff803200665544332211", "a1026401665544332211", "a1136400f0665544332211"] {
            Kit.truncations(decoder, value: Hex.decode(frame)!, from: address) { ad($0) }
        }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsPass() {
        let vectors = PeerVector.forFormats(["minew_ffe1_a1"])
        #expect(vectors.count >= 4)
        for v in vectors { expectMatches(v, v.decodedValues()) }
    }

    @Test func registryDispatchesToMinew() {
        let data = ad(Hex.decode("a10164ff803200665544332211")!)
        let result = Registry.standard().decode(Advertisement(address: address, data: data, timeMicros: 42))
        #expect(result.readings.count == 1)
        #expect(result.readings.first?.decoderID == "minew_ffe1")
        #expect(result.readings.first?.timeMicros == 42)
    }
}
