import TestSupport
import Foundation
import SensorDecode

@testable import SensorStore

/// A fresh directory under /tmp, removed by `cleanup()`.
struct TempDir {
    let path: String

    init(_ name: String = #function) {
        let clean = name.filter { $0.isLetter || $0.isNumber }
        path = NSTemporaryDirectory() + "sensorstore-\(clean)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func cleanup() {
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Collects the store's log lines.
final class LogLines: @unchecked Sendable {
    private(set) var lines: [String] = []
    func append(_ s: String) { lines.append(s) }
}

/// The same deterministic reading as `store-torture` (its `reading(_:sensors:start:step:)`).
func tortureReading(_ k: Int, sensors: Int, start: Int64 = 1_700_000_000_000_000, step: Int64 = 60_000_000) -> Reading {
    let s = k % sensors
    let j = k / sensors
    return Reading(
        address: BDAddress(rawValue: 0xC0FF_EE00_0000 + UInt64(s)), addressType: .publicDevice, decoderID: "torture",
        model: "T-\(s % 3)",
        measurements: [
            Measurement(.temperatureC, Double((k * 7) % 5000 - 1000) / 100),
            Measurement(.humidityPercent, Double(k % 1000) / 10),
            Measurement(.batteryPercent, Double(k % 101)),
        ], timeMicros: start + Int64(j) * step, rssi: Int8(-40 - s % 50))
}

/// A small deterministic generator (tests must be reproducible).
func fileBytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

/// Every row of an export, drained.
func exportAll(_ reader: StoreReader, range: TimeRange = .all, sensors: [SensorSelector] = []) throws -> (
    quantities: [Quantity], rows: [ExportRow]
) {
    let c = try reader.export(range: range, sensors: sensors)
    var rows: [ExportRow] = []
    while let r = try c.next() { rows.append(r) }
    return (c.quantities, rows)
}
