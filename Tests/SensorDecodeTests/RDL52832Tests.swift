import SensorDecode
import Testing

/// Mirrors Decoders/RDL52832.swift.
@Suite struct RDL52832Tests {
    let decoder = RDL52832Decoder()
    let sample = Kit.bytes("183a2f33010000020000000100000907")

    @Test func headerSampleDecodes() {
        #expect(Kit.values(Kit.decode(decoder, Kit.serviceData(0x1803, sample)))
            == ["temperature_c": 24.2265625, "humidity_pct": 47.19921875])
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
