import SensorDecode
import Testing

/// Mirrors Decoders/Tilt.swift.
@Suite struct TiltTests {
    let decoder = TiltDecoder()

    /// An iBeacon frame of the Tilt of colour `n` with `major` (°F) and `minor` (SG × 1000).
    func frame(colour n: UInt8 = 1, major: String = "0044", minor: String = "03f8") -> [UInt8] {
        Kit.manufacturer(0x004C, Kit.bytes("0215a495bb\(n)0c5b14b44b5121370f02d74de" + major + minor + "c5"))
    }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, frame())))
        #expect(r.model == "Tilt Red")
        Kit.expectClose(r.value(.temperatureC), 20.0, "temperature")
        Kit.expectClose(r.value(.specificGravity), 1.016, "gravity")
    }

    @Test func belowFreezingAndOtherColours() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, frame(colour: 8, major: "001e", minor: "03e8"))))
        #expect(r.model == "Tilt Pink")
        Kit.expectClose(r.value(.temperatureC), (30.0 - 32) * 5 / 9, "temperature")  // 30 °F
        #expect(r.value(.specificGravity) == 1.0)
    }

    @Test func theIBeaconDecoderStillNamesTheBeacon() {
        let result = Registry.standard().decode(Kit.advertisement(frame()))
        #expect(Set(result.readings.map(\.decoderID)) == ["ibeacon", "tilt"])
    }

    @Test func otherBeaconsAreNotMine() {
        #expect(Kit.decode(decoder, frame(colour: 9)) == .notMine)
        #expect(Kit.decode(decoder, Kit.manufacturer(0x004C, Kit.bytes("0215e2c56db5dffb48d2b060d0f5a71096e000010002c5"))) == .notMine)
    }

    @Test func aTiltProSendsTenTimesFinerValues() throws {
        // 68.5 °F = 685 = 0x02AD, gravity 1.0123 = 10123 = 0x278B.
        let r = try #require(Kit.reading(Kit.decode(decoder, frame(colour: 6, major: "02ad", minor: "278b"))))
        #expect(r.model == "Tilt Pro Blue")
        Kit.expectClose(r.value(.temperatureC), (68.5 - 32) * 5 / 9, "temperature")
        Kit.expectClose(r.value(.specificGravity), 1.0123, "gravity")
    }

    @Test func impossibleGravityIsMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, frame(minor: "0fa0"))))  // 4.000 on a Tilt
        #expect(Kit.isMalformed(Kit.decode(decoder, frame(minor: "ffff"))))  // 6.5535 on a Tilt Pro
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        let value = Array(frame().dropFirst(4))
        Kit.truncations(decoder, value: value) { Kit.manufacturer(0x004C, $0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device.hasPrefix("Tilt / ") })
    }
}
