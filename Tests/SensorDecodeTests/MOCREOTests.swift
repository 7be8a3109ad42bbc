import SensorDecode
import Testing

/// Mirrors Decoders/MOCREO.swift.
@Suite struct MOCREOTests {
    let decoder = MOCREODecoder()
    let st10 = Kit.bytes("0187890181b092f70000000000da73000000")

    func ad(_ value: [UInt8], name: String = "MOCREO") -> [UInt8] { Kit.name(name) + Kit.ad(0xFF, value) }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(st10))))
        #expect(r.model == "ST10")
        #expect(Kit.values(.reading(r)) == ["temperature_c": -21.58, "battery_pct": 1])
    }

    @Test func humidityModelsAndTheLeakSensor() {
        // ST6: 21.5 °C (0x0866), 45.5 % (0x11C6), battery 90 %.
        #expect(Kit.values(Kit.decode(decoder, ad(Kit.bytes("01835a005ab06608c6110000000000000000")))) == [
            "temperature_c": 21.5, "humidity_pct": 45.5, "battery_pct": 90,
        ])
        #expect(Kit.values(Kit.decode(decoder, ad(Kit.bytes("0182000064b0000000000100000000000000")))) == [
            "moisture_detected": 1, "battery_pct": 100,
        ])
    }

    @Test func otherNamesAndTypesAreNotMine() {
        #expect(Kit.decode(decoder, ad(st10, name: "MOCREO2")) == .notMine)
        var unknown = st10
        unknown[1] = 0x97
        #expect(Kit.decode(decoder, ad(unknown)) == .notMine)
        var st7TypeInTheCommonFrame = st10
        st7TypeInTheCommonFrame[1] = 0x10  // the ST7 type only in the ST7's own frame
        #expect(Kit.decode(decoder, ad(st7TypeInTheCommonFrame)) == .notMine)
        var otherTypeInTheST7Frame = st7
        otherTypeInTheST7Frame[8] = 0x81
        #expect(Kit.decode(decoder, ad(otherTypeInTheST7Frame)) == .notMine)
    }

    /// The ST7's 16-byte frame (0x4A, six bytes, then the fields): battery 85 %, −5.25 °C at 5–6.
    let st7 = Kit.bytes("4a000000000000" + "00100000" + "55f3fd0000")
    /// ST7-CL: −0.5 °C one byte earlier than the others, battery 100 %.
    let st7CL = Kit.bytes("01850000" + "64ceff" + "0000000000000000000000")
    /// SD1: 4.25 °C, probe 2 −18.5 °C, humidity 55.5 % (0x22B in 12 bits), door open, battery 80 %.
    let sd1 = Kit.bytes("01950000" + "5000" + "a901" + "c6f8" + "242b" + "000000000000")

    @Test func theST7sOwnFrameAndTheST7CL() throws {
        let st7Reading = try #require(Kit.reading(Kit.decode(decoder, ad(st7))))
        #expect(st7Reading.model == "ST7")
        #expect(Kit.values(.reading(st7Reading)) == ["temperature_c": -5.25, "battery_pct": 85])
        let clReading = try #require(Kit.reading(Kit.decode(decoder, ad(st7CL))))
        #expect(clReading.model == "ST7-CL")
        #expect(Kit.values(.reading(clReading)) == ["temperature_c": -0.5, "battery_pct": 100])
    }

    @Test func theSD1sTwoProbesHumidityAndDoor() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(sd1))))
        #expect(r.model == "SD1")
        #expect(Kit.values(.reading(r)) == [
            "temperature_c": 4.25, "temperature2_c": -18.5, "humidity_pct": 55.5, "door": 1, "battery_pct": 80,
        ])
        var closedDry = sd1
        closedDry[10] = 0x00  // door closed, humidity 0x02B = 4.3 %
        #expect(Kit.values(Kit.decode(decoder, ad(closedDry)))["door"] == 0)
        #expect(Kit.values(Kit.decode(decoder, ad(closedDry)))["humidity_pct"] == 4.3)
        var impossible = sd1
        impossible[10] = 0x44  // humidity 0x42B = 106.7 %
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(impossible))))
    }

    @Test func impossibleValuesAreMalformed() {
        var battery = st10
        battery[4] = 0xE5  // 101 %
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(battery))))
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(Kit.bytes("01835a005ab06608ffff0000000000000000")))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        for frame in [st10, st7, st7CL, sd1] { Kit.truncations(decoder, value: frame) { ad($0) } }
    }

    /// 6 vectors (ST5, ST8, ST10, MS1, MS2, MS3), all passing.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let vectors = PeerVector.all.filter { $0.device.hasPrefix("MOCREO") }
        #expect(vectors.count == 6)
        Kit.checkVectors(vectors)
    }
}
