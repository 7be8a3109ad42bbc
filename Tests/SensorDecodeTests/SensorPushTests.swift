import SensorDecode
import Testing

@Suite struct SensorPushTests {
    let decoder = SensorPushDecoder()
    /// The service-UUID list AD structure with SensorPush's v2 UUID (little-endian on air).
    static let uuidV2 = Kit.ad(0x06, Hex.decode("b00a09ecd79db893ba42d611000009ef")!)

    /// Packs values into the mixed-radix integer, least significant first, as `counts` say.
    static func pack(_ counts: [(value: UInt64, count: UInt64)]) -> UInt64 {
        var n: UInt64 = 0
        for (value, count) in counts.reversed() { n = n * count + value }
        return n
    }

    static func value(type: UInt8, _ packed: UInt64, bytes: Int) -> [UInt8] {
        [type << 2] + (0..<bytes).map { UInt8(truncatingIfNeeded: packed >> (8 * UInt64($0))) }
    }

    @Test func decodesHeaderSample() throws {
        let data = Self.uuidV2 + Hex.decode("08ff0089e456bea6b4")!
        let r = try #require(Kit.reading(Kit.decode(decoder, data)))
        #expect(r.model == "HTP.xw")
        #expect(abs(r.value(.temperatureC)! - 22.66) < 0.005)
        #expect(abs(r.value(.humidityPercent)! - 46.07) < 0.005)
        #expect(abs(r.value(.pressureHPa)! - 989.65) < 0.005)
    }

    @Test func negativeTemperatures() throws {
        // HT.w: −12.5 °C is (−12.5 + 40)/0.0025 = 11000; 50 % is 20000; counts 66001 and 40001.
        let htw = Self.pack([(11000, 66001), (20000, 40001)])
        let r = try #require(
            Kit.reading(
                Kit.decode(
                    decoder, Kit.name("SensorPush HT.w 0CA1") + Kit.ad(0xFF, Self.value(type: 1, htw, bytes: 4))))
        )
        #expect(r.model == "HT.w")
        #expect(abs(r.value(.temperatureC)! - -12.5) < 1e-9)
        #expect(abs(r.value(.humidityPercent)! - 50) < 1e-9)
        // TC.x: −100 °C is 100/0.0625 = 1600.
        let tcx = try #require(
            Kit.reading(
                Kit.decode(
                    decoder, Kit.name("SensorPush TC.x EEFF") + Kit.ad(0xFF, Self.value(type: 2, 1600, bytes: 4)))
            ))
        #expect(tcx.value(.temperatureC) == -100)
        // HT1: raw temperature 4000 → −46.85 + 175.72·4000/16384 = −3.95 °C; humidity raw 2048 → 56.5 %.
        // byte0 = hum & 0xFF, byte1 = hum >> 8 | (t & 0x0F) << 4, byte2 = t >> 4 & 0xFF, byte3 = t >> 12 | type 1 << 2.
        let t = 4000
        let h = 2048
        let ht1: [UInt8] = [
            UInt8(h & 0xFF), UInt8(h >> 8 | (t & 0x0F) << 4), UInt8((t >> 4) & 0xFF), UInt8(t >> 12 | 1 << 2),
        ]
        let r1 = try #require(Kit.reading(Kit.decode(decoder, Kit.name("s") + Kit.ad(0xFF, ht1))))
        #expect(r1.model == "HT1")
        #expect(abs(r1.value(.temperatureC)! - (-46.85 + 175.72 * 4000 / 16384)) < 1e-9)
        #expect(r1.value(.temperatureC)! < 0)
        #expect(abs(r1.value(.humidityPercent)! - 56.5) < 1e-9)
    }

    @Test func wrongSelectorIsNotMine() {
        // No SensorPush name or UUID; a page other than 0; an unknown device type.
        #expect(Kit.decode(decoder, Hex.decode("08ff0089e456bea6b4")!) == .notMine)
        #expect(Kit.decode(decoder, Self.uuidV2 + Hex.decode("08ff0189e456bea6b4")!) == .notMine)
        #expect(Kit.decode(decoder, Self.uuidV2 + Hex.decode("08ff1089e456bea6b4")!) == .notMine)
        #expect(Kit.decode(decoder, Kit.name("s") + Kit.ad(0xFF, [0, 0, 0, 0x08])) == .notMine)
        // A SensorPush name over a phone's manufacturer value (Apple's, device type 19): not ours.
        #expect(
            Kit.decode(decoder, Kit.name("SensorPush HT.w 0CA1") + Kit.ad(0xFF, Hex.decode("4c001005011844")!))
                == .notMine)
        // A HT1 name with only a current model's value decodes nothing, as before the layout tests.
        #expect(Kit.decode(decoder, Kit.name("s") + Hex.decode("08ff0089e456bea6b4")!) == .notMine)
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: Hex.decode("0089e456bea6b4")!) { Self.uuidV2 + Kit.ad(0xFF, $0) }
        Kit.truncations(decoder, value: [0, 0, 0, 4]) { Kit.name("s") + Kit.ad(0xFF, $0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.format == "sensorpush" })
    }
}

/// A packed number at or above the product of its fields' counts holds no values: not stored.
@Suite struct SensorPushStrictnessTests {
    let decoder = SensorPushDecoder()

    @Test func aPackedNumberBeyondTheFieldsIsMalformed() throws {
        let name = Kit.name("SensorPush HT.w 0CA1")
        let largest = SensorPushTests.pack([(66000, 66001), (40000, 40001)])  // 125 °C, 100 %
        let r = try #require(Kit.reading(Kit.decode(decoder, name + Kit.ad(0xFF, SensorPushTests.value(type: 1, largest, bytes: 4)))))
        #expect(abs(r.value(.temperatureC)! - 125) < 1e-9)
        #expect(abs(r.value(.humidityPercent)! - 100) < 1e-9)
        // One more wraps the modulo round to −40 °C, 0 %: a value the device never sent.
        #expect(Kit.isMalformed(Kit.decode(decoder, name + Kit.ad(0xFF, SensorPushTests.value(type: 1, largest + 1, bytes: 4)))))
        #expect(Kit.isMalformed(Kit.decode(decoder, name + Kit.ad(0xFF, SensorPushTests.value(type: 1, UInt64(UInt32.max), bytes: 4)))))
    }
}
