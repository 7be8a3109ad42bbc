import SensorDecode
import Testing

@Suite struct InkbirdIAMT2Tests {
    let iamT2 = InkbirdIAMT2Decoder()

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
        Kit.truncations(iamT2, value: Hex.decode("5432006200a13e29bed6033c01c9024091")!) {
            Kit.name("Ink@IAM-T2") + Kit.ad(0xFF, $0)
        }
    }
}
