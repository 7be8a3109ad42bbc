import AdvScanner
import Foundation
import SensorDecode
import Testing

/// Issue 23's data-loss repros through the real binary: retention anchored on the current time
/// (item 1), a second row for a stored interval merged (item 2), a full disk (item 6).
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"),
       .serialized)
struct StoreDataLossTests {
    /// A Minew sensor's readings at `times`, the temperature of each `temperature(i)` centi-°C.
    static func capture(_ path: String, times: [Int64], temperature: (Int) -> Int = { 2000 + $0 % 50 }) throws {
        let w = try CaptureWriter(path: path)
        for (i, t) in times.enumerated() {
            let ad = SyntheticCapture.minewAD(temperature(i), humidity: 50, battery: 90, name: [])
            try w.write(HCIPacket(type: .event, bytes: SyntheticCapture.event(SyntheticCapture.minew, ad), incoming: true,
                                  timeMicros: t))
        }
        try w.close()
    }

    /// The temperature Minew's frame carries for `centi` (1/256 °C steps).
    static func decoded(_ centi: Int) -> Double { Double(Int16(centi * 256 / 100)) / 256 }

    static func nowMicros() -> Int64 { Int64(Date().timeIntervalSince1970 * 1e6) }

    func export(_ db: String) throws -> [[String: Any]] {
        let out = try CLI.run(["export", "--jsonl", "--db", db])
        #expect(out.status == 0, "\(out.stderr)")
        return CLI.jsonObjects(out)
    }

    func replay(_ args: [String]) throws -> CLI.Output {
        let out = try CLI.run(["replay"] + args)
        #expect(out.status == 0, "replay \(args): \(out.stderr)")
        return out
    }

    // MARK: - Item 1

    @Test func aFutureStampedReadingWithKeepNeitherDeletesNorHidesTheHistory() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let now = Self.nowMicros()
        // A week of readings every 10 minutes, ending an hour ago.
        let week = (0..<1008).map { now - 3_600_000_000 - Int64(1007 - $0) * 600_000_000 }
        try Self.capture(dir.file("week.btsnoop"), times: week)
        try Self.capture(dir.file("2100.btsnoop"), times: [4_102_444_800_000_000])  // 2100-01-01
        let db = dir.file("d.db")
        _ = try replay([dir.file("week.btsnoop"), "--db", db, "--interval", "0"])
        let future = try replay([dir.file("2100.btsnoop"), "--db", db, "--keep", "400d", "--interval", "0"])
        #expect(future.stderr.contains("rejected"), "\(future.stderr)")
        _ = try replay([dir.file("week.btsnoop"), "--db", db, "--interval", "0"])
        let rows = try export(db)
        #expect(rows.count == week.count)
        let summary = try CLI.run(["summary", "--format", "json", "--since", "30d", "--db", db])
        #expect(!summary.stdout.contains("2100-"), "\(summary.stdout)")
    }
}
