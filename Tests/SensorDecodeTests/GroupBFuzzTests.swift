import TestSupport
import SensorDecode
import Testing

/// Random radio garbage through the standard registry: every Group B decoder must return an
/// outcome (never trap) and must not claim random bytes under selectors it shares with others.
@Suite struct GroupBFuzzTests {
    static let groupB: Set<String> = [
        "govee", "govee_meat", "ruuvi", "inkbird_ibs_th", "inkbird_ith", "inkbird_bbq", "inkbird_iam_t2",
        "thermobeacon", "sensorpush", "switchbot_meter",
    ]

    @Test func standardRegistryListsEachGroupBDecoderOnce() {
        let ids = Registry.standard().decoders.map { $0.id.description }
        #expect(Set(ids).count == ids.count, "duplicate decoder ids: \(ids)")
        #expect(Self.groupB.isSubset(of: Set(ids)))
    }

    @Test func randomManufacturerDataIsRarelyClaimed() {
        var rng = SplitMix64(state: 0x5EED)
        let registry = Registry.standard()
        var claimed: [String: Int] = [:]
        let rounds = 10_000
        for _ in 0..<rounds {
            let length = Int.random(in: 2...29, using: &rng)
            let value = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let data = GroupB.ad(0xFF, value)
            let result = registry.decode(GroupB.advertisement(data))
            for r in result.readings where Self.groupB.contains(r.decoderID) { claimed[r.decoderID, default: 0] += 1 }
        }
        // Decoders that look at any manufacturer data recognise their frames by fixed bytes, exact
        // lengths, a CRC or a name; random bytes should almost never pass (< 0.1 % each).
        for (id, count) in claimed {
            #expect(count * 1000 < rounds, "\(id) claimed \(count) of \(rounds) random manufacturer values")
        }
    }

    @Test func randomADStructuresNeverTrap() {
        var rng = SplitMix64(state: 0xF00D)
        let registry = Registry.standard()
        let types: [UInt8] = [0x09, 0x16, 0xFF, 0x03, 0x06]
        let selectors: [[UInt8]] = [
            [0x88, 0xEC], [0x01, 0x00], [0x01, 0x88], [0x99, 0x04], [0x49, 0x24], [0x3D, 0xFD],
            [0x00, 0x0D], [0x69, 0x09], [0x10, 0x00], [0x00, 0x00],
        ]
        for _ in 0..<10_000 {
            var data: [UInt8] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let type = types.randomElement(using: &rng)!
                var value = type == 0x16 || type == 0xFF ? selectors.randomElement(using: &rng)! : []
                value += (0..<Int.random(in: 0...26, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                data += GroupB.ad(type, value)
            }
            _ = registry.decode(GroupB.advertisement(data))
        }
    }
}
