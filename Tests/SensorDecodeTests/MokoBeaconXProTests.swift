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
        #expect(Kit.values(.reading(r)) == ["voltage_v": 3.065])
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
