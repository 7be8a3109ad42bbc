import SensorDecode
import Testing

@Suite struct InkbirdIAMT2Tests {
    let iamT2 = InkbirdIAMT2Decoder()

    @Test func iamT2HeaderSampleAndCelsius() throws {
        let sample = Hex.decode("0b09496e6b4049414d2d5432 12ff5432006200a13e29bed6033c01c9024091")!
        let r = try #require(Kit.reading(Kit.decode(iamT2, sample)))
        #expect(r.value(.temperatureC) == 28.2)  // 82.8 °F, to the 0.1 °C the device sends in °C mode
        #expect(r.value(.humidityPercent) == 45.7)
        #expect(r.value(.co2PPM) == 576)
        let cold = Hex.decode("0b09496e6b4049414d2d5432 12ff5432006200a13e29bed4ffce01ee025391")!
        #expect(try #require(Kit.reading(Kit.decode(iamT2, cold))).value(.temperatureC) == -5.0)
        // Without the name: not claimed.
        #expect(Kit.decode(iamT2, Hex.decode("12ff5432006200a13e29bed6033c01c9024091")!) == .notMine)
    }

    /// Every °C tenth the device can send in °C mode, sent as its °F tenth instead, comes back as itself.
    @Test func fahrenheitTenthsRoundBackToTheCelsiusTenthsTheyShow() {
        for tenths in stride(from: -400, through: 600, by: 1) {
            let fahrenheit = Int16((Double(tenths) * 9 / 5 + 320).rounded())
            let data: [UInt8] = [0x00, 0x62, 0x00, 0xa1, 0x3e, 0x29, 0xbe, 0xd6] + [UInt8(truncatingIfNeeded: fahrenheit >> 8),
                UInt8(truncatingIfNeeded: fahrenheit)] + [0x01, 0xc9, 0x02, 0x40, 0x91]
            let r = Kit.reading(Kit.decode(iamT2, Kit.name("Ink@IAM-T2") + Kit.manufacturer(0x3254, data)))
            #expect(r?.value(.temperatureC) == Double(tenths) / 10, "\(Double(fahrenheit) / 10) °F")
        }
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(iamT2, value: Hex.decode("5432006200a13e29bed6033c01c9024091")!) {
            Kit.name("Ink@IAM-T2") + Kit.ad(0xFF, $0)
        }
    }
}
