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
