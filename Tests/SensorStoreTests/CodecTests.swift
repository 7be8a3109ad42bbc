import Testing

@testable import SensorStore

@Suite struct MeasurementCodecTests {
    @Test func headerSampleEncodesAsDocumented() {
        var out: [UInt8] = []
        MeasurementCodec.encode([(1, 21.37), (3, 87)], into: &out)
        #expect(out == [0x01, 0x02, 0xB2, 0x21, 0x03, 0x00, 0xAE, 0x01])
    }
}
