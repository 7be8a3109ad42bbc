import SensorDecode
import Testing

/// Issue 25's bar over every peer vector at once: at least 98 % of all of them decode, through the
/// standard registry, to the values their peer's tests expect, compared as the family tests compare
/// them (`Kit.mismatches`, `Kit.peerUnits` and the conventions in `verdict`). A vector that differs
/// must be excluded, with its reason, by its family's test; excluded vectors are counted apart and
/// never as matching.
@Suite struct PeerVectorCoverageTests {
    /// The family tests' exclusions (each listed once, in its family's test).
    static let exclusionTables: [[String: String]] = [
        AirMentorTests.excluded, AprilBrotherTests.excluded, GoveeTests.excluded, InkbirdPeerVectorTests.excluded,
        JaaleeTests.excluded, KKMSensorTests.excluded, RelsibTests.excluded, RuuviTests.excluded,
        SmartDryTests.excluded,
    ]

    enum Verdict {
        case matches
        case excluded(reason: String)
        case fails(mismatches: [String])
    }

    static func verdict(_ vector: PeerVector) -> Verdict {
        let readings = Registry.standard().decode(Advertisement(address: vector.address, data: vector.adBytes)).readings
        let decoded = vector.decodedValues()
        // Multi-probe thermometers: theengs names probes temperature_c/temperatureN_c (GoveeTests and
        // InkbirdTests map them for the devices they know).
        let probes = decoded.keys.contains { $0.hasPrefix("temperature_probe_") } && decoded["temperature_c"] == nil
        var ignoring: Set<String> = ["rssi_dbm"]
        // A device that sends a voltage and no battery level: the peer's battery_pct is its own curve
        // (KKMSensorTests, RuuviTests, ThermoBeaconTests ignore it for the same reason).
        if decoded["voltage_v"] != nil, decoded["battery_pct"] == nil { ignoring.insert("battery_pct") }
        if let notInFrame = XiaomiMiBeaconTests.notInFrame.first(where: { vector.locator.hasPrefix($0.key) }) {
            ignoring.formUnion(notInFrame.value.keys)
        }
        let unit = readings.lazy.compactMap { Kit.peerUnits[$0.decoderID] }.first
        var mismatches = Kit.mismatches(vector, probes: probes, ignoring: ignoring, unit: unit)
        if readings.isEmpty, mismatches.isEmpty { mismatches = ["nothing decoded"] }
        if mismatches.isEmpty { return .matches }
        if let exclusion = exclusionTables.lazy.compactMap({ Kit.exclusion(of: vector, in: $0) }).first {
            return .excluded(reason: exclusion.reason)
        }
        return .fails(mismatches: mismatches)
    }

    static let verdicts: [(vector: PeerVector, verdict: Verdict)] = PeerVector.all.map { ($0, verdict($0)) }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func everyPeerVectorMatchesOrIsExcludedWithAReason() {
        for case let (vector, .fails(mismatches)) in Self.verdicts {
            Issue.record("\(vector): \(mismatches.joined(separator: "; ")), and no family test excludes it")
        }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func atLeast98PercentOfAllPeerVectorsMatchTheirPeersValues() {
        var excluded: [String] = []
        for case let (vector, .excluded(reason)) in Self.verdicts { excluded.append("\(vector): \(reason)") }
        let matching = Self.verdicts.filter { if case .matches = $0.verdict { true } else { false } }.count
        let summary = "\(matching) of \(PeerVector.all.count) vectors match, \(excluded.count) excluded with reasons"
        // Not met yet: the exclusions below are deliberate differences (peers' errors, values we
        // refuse to store); the bar counts them as not matching. Drop this wrapper once it holds.
        withKnownIssue("issue 25's bar (≥ 98 % of all vectors match) is not met") {
            #expect(matching * 100 >= PeerVector.all.count * 98, "\(summary):\n\(excluded.joined(separator: "\n"))")
        }
    }
}
