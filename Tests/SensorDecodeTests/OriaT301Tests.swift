import SensorDecode
import Testing

/// Mirrors Decoders/OriaT301.swift.
@Suite struct OriaT301Tests {
    let decoder = OriaT301Decoder()
    let address = BDAddress("AA:BB:CC:DD:EE:FF")!
    let sample = Kit.bytes("0105aabbccddeeff01070a0015e0630001")

    func ad(_ data: [UInt8], name: String = "T301") -> [UInt8] { Kit.name(name) + Kit.manufacturer(0xAA55, data) }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(sample), from: address)))
        #expect(r.model == "T301")
        #expect(r.warnings.isEmpty)
        #expect(Kit.values(.reading(r)) == ["temperature_c": 25.6, "humidity_pct": 56, "battery_pct": 99])
    }

    @Test func negativeTemperature() {
        var cold = sample
        (cold[10], cold[11]) = (0xFE, 0x0C)  // −5.00 °C
        #expect(Kit.values(Kit.decode(decoder, ad(cold, name: "T201"), from: address))["temperature_c"] == -5.0)
    }

    @Test func otherNamesAreNotMineAndBadValuesMalformed() {
        #expect(Kit.decode(decoder, ad(sample, name: "T302"), from: address) == .notMine)
        var wet = sample
        wet[12] = 0x30  // 0x30E0 = 125.12 %
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(wet), from: address)))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: [0x55, 0xAA] + sample, from: address) { Kit.name("T301") + Kit.ad(0xFF, $0) }
    }

    /// 4 vectors (theengs' T301 ×3, T201), all passing.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let vectors = PeerVector.all.filter { $0.device == "T301" || $0.device == "T201" }
        #expect(vectors.count == 4)
        Kit.checkVectors(vectors)
    }
}
