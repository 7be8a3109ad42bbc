import SensorDecode
import Testing

@Suite struct InkbirdBBQTests {
    let bbq = InkbirdBBQDecoder()

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

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(
            bbq, value: Hex.decode("000000003414b5abf47bc800d200f6fff6fff6fff6ff")!, layout: .frames(lengths: [12, 14, 18])
        ) {  // the 1-, 2- and 4-probe models
            Kit.name("iBBQ") + Kit.ad(0xFF, $0)
        }
    }
}
