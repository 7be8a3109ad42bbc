import SensorDecode
import Testing

/// Mirrors Decoders/Teltonika.swift.
@Suite struct TeltonikaTests {
    let decoder = TeltonikaDecoder()
    /// The header's sample: an EYE frame with every field but "battery low".
    let eye = Kit.bytes("01b708b4120ccb0bffc767")

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, Kit.manufacturer(0x089A, eye))))
        #expect(r.model == "EYE sensor")
        #expect(Kit.values(.reading(r)) == [
            "temperature_c": 22.28, "humidity_pct": 18, "magnet_detected": 0, "moving": 0, "movement_count": 3275,
            "pitch_deg": 11, "roll_deg": -57, "voltage_v": 3.03,
        ])
    }

    @Test func eyeFieldsFollowTheFlags() {
        // Temperature −5.59 °C and battery low only.
        #expect(Kit.values(Kit.decode(decoder, Kit.manufacturer(0x089A, Kit.bytes("0141fdd1"))))
            == ["temperature_c": -5.59, "battery_low": 1])
        // Magnet present and detected, moving with count 1.
        #expect(Kit.values(Kit.decode(decoder, Kit.manufacturer(0x089A, Kit.bytes("011c8001"))))
            == ["magnet_detected": 1, "moving": 1, "movement_count": 1])
    }

    @Test func bluePuckFrames() throws {
        let t = try #require(Kit.reading(Kit.decode(decoder, Kit.manufacturer(0x0757, Kit.bytes("1206fc")) + Kit.name("P T EN 80906F"))))
        #expect(t.model == "Blue Puck T")
        #expect(t.value(.temperatureC) == -10.18)
        let rht = try #require(Kit.reading(Kit.decode(decoder, Kit.manufacturer(0x0757, Kit.bytes("213012b80a")) + Kit.name("C T 1"))))
        #expect(rht.model == "Blue Coin T")
        #expect(Kit.values(.reading(rht)) == ["temperature_c": 27.44, "humidity_pct": 48])
    }

    @Test func otherFramesAreNotMine() {
        #expect(Kit.decode(decoder, Kit.manufacturer(0x0757, Kit.bytes("f2190c"))) == .notMine)  // battery frame
        #expect(Kit.decode(decoder, Kit.manufacturer(0x089A, [0x02] + eye.dropFirst())) == .notMine)  // EYE v2
        #expect(Kit.decode(decoder, Kit.manufacturer(0x089B, eye)) == .notMine)
    }

    @Test func impossibleHumidityIsMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.manufacturer(0x089A, Kit.bytes("0102b4")))))
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.manufacturer(0x0757, Kit.bytes("216512b80a")))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: eye) { Kit.manufacturer(0x089A, $0) }
        Kit.truncations(decoder, value: Kit.bytes("213012b80a")) { Kit.manufacturer(0x0757, $0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device.hasPrefix("Teltonika / ") })
    }
}
