import SensorDecode
import Testing

@Suite struct GoveeMeatTests {
    let meat = GoveeMeatDecoder()

    // MARK: header samples

    @Test func decodesHeaderSampleH5185() throws {
        let data = Kit.ad(0x03, [0x51, 0x85]) + Hex.decode("17ff32490a01000101e4c19609c41bbcffff0a282474ffff")!
        let r = try #require(Kit.reading(Kit.decode(meat, data)))
        #expect(r.model == "H5185")
        // A service UUID that is not four BCD digits starting with 5 names no model.
        let other = Kit.ad(0x03, [0x5A, 0x85]) + Hex.decode("17ff32490a01000101e4c19609c41bbcffff0a282474ffff")!
        #expect(Kit.reading(Kit.decode(meat, other))?.model != "H5A85")
        #expect(r.value(.temperatureProbeC(1)) == 25.0)
        #expect(r.value(.temperatureProbeC(2)) == 26.0)
    }

    // MARK: negative temperatures, built from the formats

    @Test func meatProbeBelowZero() throws {
        // −5.00 °C = −500 = 0xFE0C big-endian.
        let frame: [UInt8] = [0x00, 0x01, 0x00, 0x01, 0x01, 0xE4, 0x00, 0x80, 0xFE, 0x0C, 0xFF, 0xFF, 0x00, 0x00]
        let r = try #require(Kit.reading(Kit.decode(meat, Kit.manufacturer(0x1234, frame))))
        #expect(r.value(.temperatureProbeC(1)) == -5.0)
    }

    // MARK: selectors, sanity

    @Test func wrongSelectorIsNotMine() {
        // Another company's frame of a meat length, or a frame without the fixed bytes.
        #expect(Kit.decode(meat, Kit.manufacturer(0x004C, Array(repeating: 0x01, count: 14))) == .notMine)
        #expect(
            Kit.decode(
                meat, Kit.manufacturer(0x1234, [0x00, 0x02, 0x00, 0x01, 0x01] + Array(repeating: 0, count: 9)))
                == .notMine)
    }

    @Test func unknownProbePairIsMalformed() {
        // A meat frame with an unknown probe pair.
        let frame: [UInt8] = [0x00, 0x01, 0x00, 0x01, 0x01, 0xE4, 0x07, 0x86] + Array(repeating: 0, count: 9)
        #expect(Kit.isMalformed(Kit.decode(meat, Kit.manufacturer(0x1234, frame))))
    }

    @Test func modelFromUUID() throws {
        let uuid = Kit.ad(0x03, [0x51, 0x83]) + Hex.decode("11ff5da1b401000101e400800a2813240000")!
        #expect(try #require(Kit.reading(Kit.decode(meat, uuid))).model == "H5183")
    }

    @Test func h5198SecondPairIsProbesThreeAndFour() throws {
        // UUID 0x9851 on air ("51 98"), pair byte 0x42 (low 6 bits: 2); probes 30.00 and −1.50 °C.
        let frame = Hex.decode("aa01000101e442c6" + "0bb8" + "ffff" + "ffff" + "ff6a" + "ffff" + "ffff")!
        let data = Kit.ad(0x03, [0x51, 0x98]) + Kit.manufacturer(0x4932, frame)
        let r = try #require(Kit.reading(Kit.decode(meat, data)))
        #expect(r.model == "H5198")
        #expect(r.value(.temperatureProbeC(3)) == 30.0)
        #expect(r.value(.temperatureProbeC(4)) == -1.5)
        #expect(r.value(.temperatureProbeC(1)) == nil)
    }

    @Test func noTruncatedFrameYieldsAMeasurementButShorterModelsFrames() {
        Kit.truncations(meat, value: Hex.decode("0a01000101e4c19609c41bbcffff0a282474ffff")!, layout: .frames(lengths: [14, 17])) {
            Kit.manufacturer(0x4932, $0)
        }
        Kit.truncations(meat, value: Hex.decode("55006401201a00ffffffff201900ffffffff0000")!) {
            Kit.name("GVH5055") + Kit.manufacturer(0xAF2F, $0)
        }
    }
}
