import SensorDecode
import Testing

/// Mirrors Decoders/RuuviEddystoneURL.swift.
@Suite struct RuuviEddystoneURLTests {
    let decoder = RuuviEddystoneURLDecoder()

    /// An Eddystone-URL frame for `https://ruu.vi/#` + `code`.
    func frame(_ code: String) -> [UInt8] { [0x10, 0xF6, 0x03] + Array("ruu.vi/#".utf8) + Array(code.utf8) }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, Kit.serviceData(0xFEAA, frame("BGQYAMq8w")))))
        #expect(r.frameKind == "url-v4")
        #expect(Kit.values(.reading(r)) == ["humidity_pct": 50, "temperature_c": 24, "pressure_hpa": 1019])
    }

    @Test func formatTwoAndANegativeTemperature() throws {
        // 02 50 8a 32 c3 50: 40 %, −10.50 °C, 1000 hPa; URL-safe base64 "AlCKMsNQ".
        let r = try #require(Kit.reading(Kit.decode(decoder, Kit.serviceData(0xFEAA, frame("AlCKMsNQ")))))
        #expect(r.frameKind == "url-v2")
        #expect(Kit.values(.reading(r)) == ["humidity_pct": 40, "temperature_c": -10.5, "pressure_hpa": 1000])
    }

    @Test func otherURLsAreNotMineAndBadCodesMalformed() {
        #expect(Kit.decode(decoder, Kit.serviceData(0xFEAA, [0x10, 0xF6, 0x03] + Array("example.com/abcd".utf8))) == .notMine)
        #expect(Kit.decode(decoder, Kit.serviceData(0xFEAA, Kit.bytes("21010f0e5befbb42d1ffc200000407"))) == .notMine)
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0xFEAA, frame("BGQYAM!8w")))))
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0xFEAA, frame("BWQYAMq8w")))))  // format 5
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        // Cut to 19 bytes, a format-4 URL is a whole format-2 one.
        Kit.truncations(decoder, value: frame("BGQYAMq8w"), layout: .frames(lengths: [19])) {
            Kit.serviceData(0xFEAA, $0)
        }
    }

    /// 1 vector (ble_monitor's v4), passing.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let vectors = PeerVector.all.filter { $0.device.hasPrefix("Ruuvitag V4") }
        #expect(vectors.count == 1)
        Kit.checkVectors(vectors)
    }
}
