import SensorDecode
import Testing

/// The Inkbird family (IBS-TH, ITH, iBBQ, IAM-T2 decoders) against the peers' vectors.
@Suite struct InkbirdPeerVectorTests {
    /// Where we differ from a peer, per vector.
    static let excluded: [String: String] = [
        "test_mfgdata[12]": "theengs' hand-edited tps frame: its CRC (0x8010) does not match → malformed",
        "test_mfgdata[13]": "theengs' hand-edited tps frame: its CRC (0x8010) does not match → malformed",
        "test_mfgdata[1] ":
            "probe byte 1 (external probe): theengs calls it temperature_c, ble_monitor "
            + "temperature_probe_1_c; we follow ble_monitor",
        "TestInkbird.test_inkbird_iBBQ_6_probes":
            "ble_monitor reports unplugged probes (0xFFF6) as 0 °C; we omit them",
    ]

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        // theengs names grill-thermometer probes temperature_c, temperature2_c …: our probe keys.
        Kit.checkVectors(
            PeerVector.all.filter { $0.format.hasPrefix("inkbird_") },
            probes: { $0.device.hasPrefix("IBT-") }, excluded: Self.excluded)
    }
}
