import Foundation
import Testing

/// `run --hci A --hci B`: two Bumble controllers scanned into one store by one loop. One of them
/// going away mid-run must not stop the other.
@Suite(.enabled(if: BumbleWorld.isAvailable && BumbleWorld.binary != nil,
    "needs .venv-bumble (IntegrationTests/bumble/setup.sh) and a built blesensor-log next to the tests"))
struct BumbleScannerGroupTests {
    @Test func twoControllersFillOneStoreAndOneOutageStopsOnlyItsOwn() throws {
        let first = try BumbleWorld([])
        defer { first.stop() }
        let second = try BumbleWorld(["--legacy-only"])
        defer { second.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("group-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("one.db").path
        var firstStopped = 0.0
        let run = try BumbleCLIRun.run(
            BumbleWorld.binary!,
            ["run", "--hci", "tcp:127.0.0.1:\(first.port)", "--hci", "tcp:127.0.0.1:\(second.port)", "--db", db,
             "--interval", "0", "--duration", "9s", "-v"], timeout: 60
        ) { _, _ in
            Thread.sleep(forTimeInterval: 4)
            first.stop()
            firstStopped = Date().timeIntervalSince1970
        }
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        let lines = run.stderr.split(separator: "\n")
        // One start-up line per controller, the legacy-only one with legacy scanning.
        let startups = lines.filter { $0.contains("logging to \(db)") }
        #expect(startups.count == 2, "\(startups)")
        #expect(startups.contains { $0.contains("tcp:127.0.0.1:\(first.port)") }, "\(startups)")
        #expect(startups.contains { $0.contains("tcp:127.0.0.1:\(second.port)") && $0.contains("legacy") }, "\(startups)")
        #expect(lines.contains { $0.contains("tcp:127.0.0.1:\(first.port)") && $0.contains("reconnecting") }, "\(run.stderr.suffix(3000))")

        let export = try BumbleCLIRun.run(BumbleWorld.binary!, ["export", "--jsonl", "--db", db], timeout: 30)
        #expect(export.status == 0, "\(export.stderr)")
        let times = export.objects.compactMap { ($0["time"] as? String).flatMap(bumbleUnixSeconds(iso:)) }
        let before = times.filter { $0 < firstStopped }.count
        let after = times.filter { $0 > firstStopped + 1 }.count
        #expect(before > 0 && after > 0, "rows before the first controller stopped: \(before), after: \(after)")
        #expect(Set(export.objects.compactMap { $0["address"] as? String }).isSuperset(of: [BumbleWorld.minew, BumbleWorld.pvvx]))
    }
}
