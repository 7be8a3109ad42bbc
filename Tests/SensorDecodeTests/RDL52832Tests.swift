import SensorDecode
import Testing

/// Mirrors Decoders/RDL52832.swift.
@Suite struct RDL52832Tests {
    let decoder = RDL52832Decoder()
    let sample = Kit.bytes("183a2f33010000020000000100000907")

    @Test func headerSampleDecodes() {
        let v = Kit.values(Kit.decode(decoder, Kit.serviceData(0x1803, sample)))
        #expect(v["temperature_c"] == 24.2265625)
        #expect(v["humidity_pct"] == 47.19921875)
        Kit.expectClose(v["acceleration_x_g"], -0.02, "x")
        Kit.expectClose(v["acceleration_y_g"], 0.01, "y")
        Kit.expectClose(v["acceleration_z_g"], 0.97, "z")
    }

    @Test func axesAreDecimalDigitsAndAnythingElseIsMalformed() {
        // x −1.25 g, y 0 g, z 0.5 g.
        let frame = Array(sample.prefix(4)) + Kit.bytes("01010205" + "00000000" + "00000500")
        let v = Kit.values(Kit.decode(decoder, Kit.serviceData(0x1803, frame)))
        Kit.expectClose(v["acceleration_x_g"], -1.25, "x")
        Kit.expectClose(v["acceleration_y_g"], 0, "y")
        Kit.expectClose(v["acceleration_z_g"], 0.5, "z")
        var badSign = frame
        badSign[8] = 2
        var badDigit = frame
        badDigit[15] = 10
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0x1803, badSign))))
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0x1803, badDigit))))
    }

    /// A tag lying still measures about 1 g on every peer capture, so the digits are read right.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerCapturesAtRestMeasureOneG() {
        for vector in PeerVector.all.filter({ $0.device == "RDL52832" }) {
            let magnitude = Kit.accelerationMagnitude(vector.decodedValues())
            #expect(abs(magnitude - 1) < 0.05, "\(vector): |a| = \(magnitude) g")
        }
    }

    @Test func belowZero() {
        #expect(Kit.values(Kit.decode(decoder, Kit.serviceData(0x1803, [0xFD, 0x80] + sample.dropFirst(2))))["temperature_c"]
            == -2.5)
    }

    @Test func otherLengthsAreNotMineAndImpossibleHumidityMalformed() {
        #expect(Kit.decode(decoder, Kit.serviceData(0x1803, sample + [0])) == .notMine)
        #expect(Kit.decode(decoder, Kit.serviceData(0x1804, sample)) == .notMine)
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0x1803, [0x18, 0x3a, 0x64, 0x01] + sample.dropFirst(4)))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.everyTruncation(decoder, uuid: 0x1803, sample)
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        Kit.checkVectors(PeerVector.all.filter { $0.device == "RDL52832" })
    }
}
