import SensorDecode
import Testing

/// Helpers for the Govee, Ruuvi, Inkbird, ThermoBeacon, SensorPush and SwitchBot tests.
enum GroupB {
    /// One AD structure: length, type, value.
    static func ad(_ type: UInt8, _ value: [UInt8]) -> [UInt8] { [UInt8(value.count + 1), type] + value }
    static func name(_ text: String) -> [UInt8] { ad(0x09, Array(text.utf8)) }
    static func manufacturer(_ company: UInt16, _ data: [UInt8]) -> [UInt8] {
        ad(0xFF, [UInt8(company & 0xFF), UInt8(company >> 8)] + data)
    }
    static func serviceData(_ uuid: UInt16, _ data: [UInt8]) -> [UInt8] {
        ad(0x16, [UInt8(uuid & 0xFF), UInt8(uuid >> 8)] + data)
    }

    static let address = BDAddress("A4:C1:38:12:34:56")!

    static func advertisement(_ data: [UInt8], address: BDAddress = GroupB.address) -> Advertisement {
        Advertisement(address: address, data: data)
    }

    /// Runs one decoder directly (not through the registry).
    static func decode(_ decoder: some SensorDecoder, _ data: [UInt8], address: BDAddress = GroupB.address)
        -> DecodeOutcome
    {
        decoder.decode(advertisement(data, address: address), AdvertisingData(parsing: data))
    }

    /// The single reading of an outcome, or `nil` (and a recorded issue) otherwise.
    static func reading(_ outcome: DecodeOutcome, sourceLocation: SourceLocation = #_sourceLocation) -> Reading? {
        guard case .readings(let r) = outcome, r.count == 1 else {
            Issue.record("expected one reading, got \(outcome)", sourceLocation: sourceLocation)
            return nil
        }
        return r[0]
    }

    static func isMalformed(_ outcome: DecodeOutcome) -> Bool {
        if case .malformed = outcome { return true }
        return false
    }

    /// Feeds every prefix of `value` (re-framed as a whole AD structure by `frame`) and every
    /// prefix of the framed bytes to `decoder` and to the standard registry. Passing means every
    /// length returned an outcome: an out-of-bounds read would trap and fail the whole run.
    static func truncations(_ decoder: some SensorDecoder, value: [UInt8], frame: ([UInt8]) -> [UInt8]) {
        let registry = Registry.standard()
        let full = frame(value)
        for n in 0..<value.count {
            _ = decode(decoder, frame(Array(value.prefix(n))))
            _ = registry.decode(advertisement(frame(Array(value.prefix(n)))))
        }
        for n in 0..<full.count {
            _ = decode(decoder, Array(full.prefix(n)))
            _ = registry.decode(advertisement(Array(full.prefix(n))))
        }
    }

    /// The peer's expected values in our vocabulary: `@sub` suffixes dropped, mV → V, Pa → hPa,
    /// and (for multi-probe devices, `probes: true`) theengs' `temperature_c`/`temperatureN_c` →
    /// `temperature_probe_1_c`/`temperature_probe_N_c`.
    static func expected(_ vector: PeerVector, probes: Bool = false) -> [String: Double] {
        var out: [String: Double] = [:]
        for (key, value) in vector.expected {
            var k = String(key.split(separator: "@").first ?? "")
            var v = value
            if k == "voltage_mv" { (k, v) = ("voltage_v", value / 1000) }
            if k == "pressure_pa" { (k, v) = ("pressure_hpa", value / 100) }
            if probes, k.hasPrefix("temperature"), !k.hasPrefix("temperature_probe") {
                let digits = k.dropFirst("temperature".count).prefix { $0.isNumber }
                k = "temperature_probe_\(digits.isEmpty ? "1" : String(digits))_c"
            }
            out[k] = v
        }
        return out
    }

    /// Checks every vector: each expected value within 0.01 unless its key is in `ignoring`, and
    /// each `expected_invalid` key absent. Vectors whose locator starts with a key of `excluded` are checked to
    /// still differ (so a stale exclusion is noticed) and otherwise skipped; the reason is the value.
    static func checkVectors(
        _ vectors: [PeerVector], probes: (PeerVector) -> Bool = { _ in false }, ignoring: Set<String> = ["rssi_dbm"],
        excluded: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!vectors.isEmpty, "no vectors selected", sourceLocation: sourceLocation)
        var usedExclusions = Set<String>()
        for vector in vectors {
            let decoded = vector.decodedValues()
            let want = expected(vector, probes: probes(vector))
            var mismatches: [String] = []
            for (key, value) in want where !ignoring.contains(key) {
                if let got = decoded[key] {
                    if abs(got - value) > 0.01 { mismatches.append("\(key) = \(got), peer expects \(value)") }
                } else {
                    mismatches.append("\(key) missing")
                }
            }
            for key in vector.expectedInvalid {
                let k = String(key.split(separator: "@").first ?? "")
                if decoded[k] != nil { mismatches.append("\(k) decoded though the peer asserts it invalid") }
            }
            if let (key, reason) = excluded.first(where: { vector.locator.hasPrefix($0.key) }) {
                usedExclusions.insert(key)
                #expect(
                    !mismatches.isEmpty, "\(vector): excluded (\(reason)) but now matches; drop the exclusion",
                    sourceLocation: sourceLocation)
            } else if !mismatches.isEmpty {
                Issue.record(
                    "\(vector): \(mismatches.joined(separator: "; ")); decoded \(decoded)",
                    sourceLocation: sourceLocation)
            }
        }
        #expect(
            usedExclusions == Set(excluded.keys),
            "exclusions naming no vector: \(Set(excluded.keys).subtracting(usedExclusions))",
            sourceLocation: sourceLocation)
    }
}
