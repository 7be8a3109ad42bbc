import SensorDecode
import Testing

/// Group A decoders inside the standard registry, over every peer record (not only their own).
@Suite struct GroupARegistryTests {
    static let groupA: Set<String> = [
        "bthome", "xiaomi_181a", "xiaomi_mibeacon", "qingping", "eddystone_tlm", "ibeacon",
    ]

    @Test func standardRegistryListsGroupADecodersOnce() {
        let ids = Registry.standard().decoders.map { $0.id.description }
        for id in Self.groupA { #expect(ids.filter { $0 == id }.count == 1, "\(id)") }
    }

    /// No record of the 362 — most of them other vendors' devices — makes a group A decoder report
    /// `malformed`: a stranger's frame is "not mine", never an error.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func noPeerRecordIsMalformedForGroupA() {
        let registry = Registry.standard()
        for v in PeerVector.all {
            let result = registry.decode(Advertisement(address: v.address, data: v.adBytes))
            for m in result.malformed where Self.groupA.contains(m.decoder) {
                Issue.record("\(v): \(m.decoder) says malformed: \(m.reason)")
            }
        }
    }

    /// The family vectors give the same values through the whole registry as through the decoder
    /// alone (no other decoder claims their data with different numbers).
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func familyVectorsThroughTheRegistry() {
        let formats: Set<String> = [
            "bthome_v1", "bthome_v2_fcd2", "xiaomi_181a_atc1441", "xiaomi_181a_pvvx", "xiaomi_mibeacon_fe95",
            "qingping_fdcd",
        ]
        for v in PeerVector.forFormats(formats) {
            var decoded = v.decodedValues(.standard())
            if let hpa = decoded["pressure_hpa"] { decoded["pressure_pa"] = hpa * 100 }
            let excluded = XiaomiMiBeaconTests.notInFrame.first { v.locator.hasPrefix($0.key) }?.value.keys ?? []
            expectMatches(v, decoded, ignoring: excluded.union(["rssi_dbm"]))
        }
    }
}
