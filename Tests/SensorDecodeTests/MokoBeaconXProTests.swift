import SensorDecode
import Testing

/// Mirrors Decoders/MokoBeaconXPro.swift.
@Suite struct MokoBeaconXProTests {
    let decoder = MokoBeaconXProDecoder()
    let accelerometer = Kit.bytes("60000a010007154039c0fa000bf901f40c93fe3487")

    func decode(_ payload: [UInt8]) -> DecodeOutcome { Kit.decode(decoder, Kit.serviceData(0xFEAB, payload)) }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(decode(accelerometer)))
        #expect(r.frameKind == "accelerometer")
        let v = Kit.values(.reading(r))
        #expect(Set(v.keys) == ["acceleration_x_g", "acceleration_y_g", "acceleration_z_g", "voltage_v"])
        Kit.expectClose(v["acceleration_x_g"], 0.340, "x")
        Kit.expectClose(v["acceleration_y_g"], 0.924, "y")
        Kit.expectClose(v["acceleration_z_g"], -0.096, "z")
        #expect(v["voltage_v"] == 3.065)
    }

    @Test func axesScaleWithTheFullScaleAndAnUnknownOneLeavesThemOut() {
        // ±4 g (index 1): 2 mg per step; x 0x0100 >> 4 = 16 steps, y −12, z 0x3EC0 >> 4 = 1004.
        let fourG = Kit.bytes("60000a010107" + "0100ff403ec0" + "0bf901f40c93fe3487")
        let v = Kit.values(decode(fourG))
        Kit.expectClose(v["acceleration_x_g"], 0.032, "x")
        Kit.expectClose(v["acceleration_y_g"], -0.024, "y")
        Kit.expectClose(v["acceleration_z_g"], 2.008, "z")
        var unknownScale = fourG
        unknownScale[4] = 4
        #expect(Kit.values(decode(unknownScale)) == ["voltage_v": 3.065])
    }

    /// A tag lying still measures 1 g: MOKO's reading of both peer captures does, theengs' does not.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerCapturesAtRestMeasureOneG() {
        for vector in PeerVector.all.filter({ $0.device == "MBXPRO" }) {
            let magnitude = Kit.accelerationMagnitude(vector.decodedValues())
            #expect(abs(magnitude - 1) < 0.02, "\(vector): |a| = \(magnitude) g")
        }
    }

    @Test func temperatureHumidityFrameBelowZero() throws {
        // −5.5 °C = −55 = 0xFFC9, 40.5 %, 2.95 V.
        let r = try #require(Kit.reading(decode(Kit.bytes("700064ffc901950b86"))))
        #expect(Kit.values(.reading(r)) == ["temperature_c": -5.5, "humidity_pct": 40.5, "voltage_v": 2.95])
    }

    @Test func infoFrame() {
        #expect(Kit.values(decode(Kit.bytes("4000000c1c"))) == ["voltage_v": 3.1])
    }

    @Test func otherFramesAreNotMineAndImpossibleHumidityMalformed() {
        #expect(decode(Kit.bytes("50000102030405")) == .notMine)
        #expect(Kit.isMalformed(decode(Kit.bytes("700064ffc903ed0b86"))))  // 100.5 %
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.everyTruncation(decoder, uuid: 0xFEAB, accelerometer)
        Kit.everyTruncation(decoder, uuid: 0xFEAB, Kit.bytes("700064ffc901950b86"))
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device == "MBXPRO" })
    }
}
