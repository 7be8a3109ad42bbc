import TestSupport
import Testing
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

/// Runs `body` with a fresh directory and a read-only bind mount of it (`readOnly` shows what
/// is written through `writable`), unmounted and removed afterwards. Needs root with bind mounts
/// (`StoreReaderTests.canMount`).
func withReadOnlyMount(
    _ name: String = #function, _ body: (_ writable: TempDir, _ readOnly: TempDir) throws -> Void
) throws {
    let dir = TempDir(name), point = TempDir(name + "mount")
    defer {
        _ = sh(["umount", point.path])
        point.cleanup()
        dir.cleanup()
    }
    try #require(sh(["mount", "--bind", dir.path, point.path]) == 0)
    try #require(sh(["mount", "-o", "remount,bind,ro", point.path]) == 0)
    try body(dir, point)
}

/// Collects the store's log lines.
final class LogLines: @unchecked Sendable {
    private(set) var lines: [String] = []
    func append(_ s: String) { lines.append(s) }
}

/// The bytes of a file, `nil` if it cannot be read.
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

/// A clock the test sets (`StoreClock`): nothing reads the machine's clocks.
final class FakeClock: StoreClock, @unchecked Sendable {
    var wall: Int64
    var monotonic: Double

    init(wall: Int64, monotonic: Double = 1000) {
        self.wall = wall
        self.monotonic = monotonic
    }

    func wallMicros() -> Int64 { wall }
    func monotonicSeconds() -> Double { monotonic }

    /// Time passes: both clocks advance by `seconds`.
    func advance(_ seconds: Double) {
        wall += Int64(seconds * 1e6)
        monotonic += seconds
    }
}

/// 2026-06-01T00:00:00Z: a plausible "now" for tests (after `TrustedTime.earliestPlausibleMicros`).
let june2026Micros: Int64 = 1_780_272_000_000_000
