import Foundation
import SensorDecode
import Testing

/// The peers' real advertisements in `../shared/vectors/peer-vectors.jsonl` (other projects' data:
/// read from the shared folder, never copied into this repo). Tests skip with a clear message when
/// the folder is absent (a user's fresh clone).
struct PeerVector: Sendable, CustomStringConvertible {
    let format: String
    let device: String
    let source: String
    let locator: String
    let address: BDAddress
    /// AD bytes: the peer's raw bytes when it had them, else the mechanically framed ones.
    let adBytes: [UInt8]
    /// Whole HCI event, when the peer tested at that level.
    let hciPacket: [UInt8]?
    let expected: [String: Double]
    let expectedInvalid: [String]
    let hasNegativeTemperature: Bool

    var description: String { "\(format) \(device) [\(source) \(locator)]" }

    static let path: String = {
        // Tests/SensorDecodeTests/PeerVectors.swift → repo root → ../shared/vectors
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return repo.deletingLastPathComponent().appendingPathComponent("shared/vectors/peer-vectors.jsonl").path
    }()

    static var isAvailable: Bool { FileManager.default.fileExists(atPath: path) }
    static let skipMessage: Comment = "../shared/vectors/peer-vectors.jsonl is absent (fresh clone): peer vectors skipped"

    /// All vectors, or an empty list when the shared folder is absent.
    static let all: [PeerVector] = {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            let hex = (obj["raw_adv_hex"] as? String) ?? (obj["adv_hex_synthesized"] as? String) ?? ""
            var expected: [String: Double] = [:]
            for (k, v) in (obj["expected"] as? [String: Any]) ?? [:] {
                if let d = v as? Double { expected[k] = d } else if let i = v as? Int { expected[k] = Double(i) }
            }
            return PeerVector(
                format: obj["format"] as? String ?? "other",
                device: obj["device"] as? String ?? "",
                source: obj["source"] as? String ?? "",
                locator: obj["source_locator"] as? String ?? "",
                address: (obj["address"] as? String).flatMap { BDAddress($0) } ?? BDAddress(rawValue: 0),
                adBytes: Hex.decode(hex) ?? [],
                hciPacket: (obj["hci_packet_hex"] as? String).flatMap { Hex.decode($0) },
                expected: expected,
                expectedInvalid: obj["expected_invalid"] as? [String] ?? [],
                hasNegativeTemperature: obj["has_negative_temperature"] as? Bool ?? false)
        }
    }()

    static func forFormats(_ formats: Set<String>) -> [PeerVector] { all.filter { formats.contains($0.format) } }

    /// Decodes this vector with `registry` and returns the merged measurements of every reading
    /// (keys as in `expected`, with `@sub` suffixes left to the caller).
    func decodedValues(_ registry: Registry = .standard()) -> [String: Double] {
        let ad = Advertisement(address: address, data: adBytes)
        var values: [String: Double] = [:]
        for r in registry.decode(ad).readings {
            for m in r.measurements { values[m.quantity.key] = m.value }
        }
        return values
    }
}

/// Checks that `decoded` has every expected value of `vector` within `tolerance`.
func expectMatches(_ vector: PeerVector, _ decoded: [String: Double], tolerance: Double = 0.01,
                   ignoring: Set<String> = ["rssi_dbm"], sourceLocation: SourceLocation = #_sourceLocation) {
    for (key, want) in vector.expected where !ignoring.contains(key) {
        guard let got = decoded[key] else {
            Issue.record("\(vector): \(key) missing; decoded \(decoded)", sourceLocation: sourceLocation)
            continue
        }
        #expect(abs(got - want) <= tolerance, "\(vector): \(key) = \(got), peer expects \(want)",
                sourceLocation: sourceLocation)
    }
}
