import SensorDecode
import Testing

/// Newer Inkbird models that send the ITH frame's layout under another device kind.
@Suite struct InkbirdITHStrictnessTests {
    let ith = InkbirdITHDecoder()
    /// The advertisement of inkbird-ble's test_ith_21_b: 21.6 °C, 53.1 %, battery 100 %.
    static let ith21 = Kit.bytes("07 11 00 98 d8 00 13 02 64 01 90 04 00 00 00 00")

    @Test func ith21BIsAThermoHygrometerByNameOrKind() throws {
        for named in [true, false] {
            let data = (named ? Kit.name("ITH-21-B") : []) + Kit.manufacturer(0x2449, Self.ith21)
            let r = try #require(Kit.reading(Kit.decode(ith, data)))
            #expect(r.model == "ITH-21-B")
            #expect(r.value(.temperatureC) == 21.6)
            #expect(r.value(.humidityPercent) == 53.1)
            #expect(r.value(.batteryPercent) == 100)
        }
        // Kind 0x07 under another model's name: that name wins.
        let asPool = try #require(Kit.reading(Kit.decode(ith, Kit.name("IBS-P02B") + Kit.manufacturer(0x2449, Self.ith21))))
        #expect(asPool.value(.humidityPercent) == nil)
    }

    @Test func noTruncatedITH21FrameYieldsAMeasurement() {
        Kit.truncations(ith, value: Self.ith21) { Kit.name("ITH-21-B") + Kit.manufacturer(0x2449, $0) }
    }
}

/// Values no Inkbird sensor can measure are not stored: a garbage field is a corrupt frame.
@Suite struct InkbirdCeilingTests {
    /// The ITH-21-B frame with its temperature field set to `raw` (s16 LE, tenths of °C).
    static func ith21(temperature raw: Int16) -> [UInt8] {
        var v = InkbirdITHStrictnessTests.ith21
        let t = UInt16(bitPattern: raw)
        v[4] = UInt8(t & 0xFF)
        v[5] = UInt8(t >> 8)
        return Kit.name("ITH-21-B") + Kit.manufacturer(0x2449, v)
    }

    @Test func anITHTemperatureBeyond200IsMalformed() {
        let ith = InkbirdITHDecoder()
        #expect(Kit.reading(Kit.decode(ith, Self.ith21(temperature: -2000)))?.value(.temperatureC) == -200)
        #expect(Kit.reading(Kit.decode(ith, Self.ith21(temperature: 2000)))?.value(.temperatureC) == 200)
        #expect(Kit.isMalformed(Kit.decode(ith, Self.ith21(temperature: 2001))))
        #expect(Kit.isMalformed(Kit.decode(ith, Self.ith21(temperature: Int16.min))))
    }

    /// The IAM-T2 header sample's value (°C mode) with its temperature and CO₂ fields set.
    static func iamT2(temperature: Int16, co2: UInt16) -> [UInt8] {
        let t = UInt16(bitPattern: temperature)
        let value: [UInt8] = [0x00, 0x62, 0x00, 0xA1, 0x3E, 0x29, 0xBE, 0xD4, UInt8(t >> 8), UInt8(t & 0xFF), 0x01, 0xC9,
                              UInt8(co2 >> 8), UInt8(co2 & 0xFF), 0x91]
        return Kit.name("Ink@IAM-T2") + Kit.manufacturer(0x3254, value)
    }

    @Test func anIAMT2TemperatureBeyond200OrCO2Above40000IsMalformed() throws {
        let iam = InkbirdIAMT2Decoder()
        let r = try #require(Kit.reading(Kit.decode(iam, Self.iamT2(temperature: -123, co2: 40_000))))
        #expect(r.value(.temperatureC) == -12.3)
        #expect(r.value(.co2PPM) == 40_000)
        #expect(r.value(.humidityPercent) == 45.7)
        #expect(Kit.isMalformed(Kit.decode(iam, Self.iamT2(temperature: -123, co2: 40_001))))
        #expect(Kit.isMalformed(Kit.decode(iam, Self.iamT2(temperature: -123, co2: 0xFFFF))))
        #expect(Kit.isMalformed(Kit.decode(iam, Self.iamT2(temperature: 2001, co2: 500))))
        #expect(Kit.isMalformed(Kit.decode(iam, Self.iamT2(temperature: Int16.max, co2: 500))))
    }
}
