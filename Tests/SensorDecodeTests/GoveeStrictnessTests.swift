import SensorDecode
import Testing

/// The hundredths layouts (H5074, H5051/H5071, H5179) carry any s16; a temperature beyond the
/// ±100 °C the packed layouts can hold is a corrupt frame, not a reading.
@Suite struct GoveeStrictnessTests {
    let decoder = GoveeDecoder()

    static func le(_ v: Int16) -> [UInt8] { [UInt8(UInt16(bitPattern: v) & 0xFF), UInt8(UInt16(bitPattern: v) >> 8)] }

    /// H5074: 00, T s16 LE /100, H u16 LE /100 (45.00 %), battery 80 %, 02.
    static func h5074(_ hundredths: Int16) -> [UInt8] {
        Kit.name("Govee_H5074_1234") + Kit.manufacturer(0xEC88, [0x00] + le(hundredths) + [0x94, 0x11, 80, 0x02])
    }

    /// H5179: EC 00 01 01, T s16 LE /100, H u16 LE /100 (45.00 %), battery 80 %.
    static func h5179(_ hundredths: Int16) -> [UInt8] {
        Kit.manufacturer(0x8801, [0xEC, 0x00, 0x01, 0x01] + le(hundredths) + [0x94, 0x11, 80])
    }

    @Test func aHundredthsTemperatureBeyond100IsMalformed() throws {
        for frame in [Self.h5074, Self.h5179] {
            let cold = try #require(Kit.reading(Kit.decode(decoder, frame(-10000))))
            #expect(cold.value(.temperatureC) == -100)
            #expect(cold.value(.humidityPercent) == 45)
            #expect(Kit.reading(Kit.decode(decoder, frame(10000)))?.value(.temperatureC) == 100)
            #expect(Kit.isMalformed(Kit.decode(decoder, frame(10001))))
            #expect(Kit.isMalformed(Kit.decode(decoder, frame(Int16.min))))
        }
    }
}
