import SensorDecode
import Testing

/// Mirrors Decoders/RuuviE1.swift.
@Suite struct RuuviE1Tests {
    let decoder = RuuviE1Decoder()
    /// The header's sample, after the company id (its MAC is `Kit.address`).
    let sample = Kit.bytes(
        "e1" + "f63c" + "4718" + "c87d" + "0034" + "0049" + "0050" + "005b" + "0264" + "32" + "00" + "003039" + "ffffff"
            + "00abcd" + "c0" + "ffffffffff" + "112233445566")

    func decode(_ payload: [UInt8]) -> DecodeOutcome { Kit.decode(decoder, Kit.manufacturer(0x0499, payload)) }

    @Test func headerSampleDecodesBelowZero() throws {
        let r = try #require(Kit.reading(decode(sample)))
        #expect(r.model == "Ruuvi Air")
        #expect(r.frameKind == "e1")
        #expect(r.warnings.isEmpty)
        let v = Kit.values(.reading(r))
        #expect(v.count == 12)
        Kit.expectClose(v["temperature_c"], -12.5, "temperature")
        Kit.expectClose(v["humidity_pct"], 45.5, "humidity")
        Kit.expectClose(v["pressure_hpa"], 1013.25, "pressure")
        #expect(v["pm1_0_ug_m3"] == 5.2)
        #expect(v["pm2_5_ug_m3"] == 7.3)
        #expect(v["pm4_0_ug_m3"] == 8.0)
        #expect(v["pm10_ug_m3"] == 9.1)
        #expect(v["co2_ppm"] == 612)
        #expect(v["voc_index"] == 101)
        #expect(v["nox_index"] == 1)
        #expect(v["illuminance_lux"] == 123.45)
        #expect(v["packet_count"] == 43981)
    }

    @Test func notAvailableFieldsAreLeftOutAndAllOfThemIsMalformed() {
        var frame = sample
        frame.replaceSubrange(1...2, with: [0x80, 0x00])  // temperature
        frame.replaceSubrange(7...8, with: [0xFF, 0xFF])  // PM1.0
        frame[17] = 0xFF  // VOC with its flag bit (set in the sample)
        frame.replaceSubrange(19...21, with: [0xFF, 0xFF, 0xFF])  // luminosity
        let v = Kit.values(decode(frame))
        for key in ["temperature_c", "pm1_0_ug_m3", "voc_index", "illuminance_lux"] { #expect(v[key] == nil, "\(key)") }
        #expect(v["pm2_5_ug_m3"] == 7.3)
        var none = [UInt8](repeating: 0xFF, count: 40)
        none[0] = 0xE1
        none.replaceSubrange(1...2, with: [0x80, 0x00])
        #expect(Kit.isMalformed(decode(none)))
    }

    @Test func otherFormatsAndLengthsAndImpossibleHumidity() {
        #expect(decode(Kit.bytes("0512fc5394c37c0004fffc040cac364200cdcbb8334c884f")) == .notMine)  // format 5
        #expect(Kit.isMalformed(decode(sample + [0])))
        var wet = sample
        wet.replaceSubrange(3...4, with: [0x9C, 0x44])  // 40004 × 0.0025 = 100.01 %
        #expect(Kit.isMalformed(decode(wet)))
    }

    @Test func anotherMACIsAWarning() throws {
        var frame = sample
        frame[39] = 0x67
        #expect(try #require(Kit.reading(decode(frame))).warnings.count == 1)
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: sample) { Kit.manufacturer(0x0499, $0) }
    }
}
