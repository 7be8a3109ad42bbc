import Foundation
import Testing

/// `blesensor-log run` — the logger — against a Bumble virtual controller, stopped with SIGTERM:
/// every reading it decoded before the signal must be in the database afterwards.
@Suite(.enabled(if: BumbleWorld.isAvailable && BumbleWorld.binary != nil,
    "needs .venv-bumble (IntegrationTests/bumble/setup.sh) and a built blesensor-log next to the tests"))
struct BumbleRunCommandTests {
    /// JSON objects of the readings `run -v` logged on stderr (one per decoded advertisement).
    static func loggedReadings(_ stderr: String) -> [[String: Any]] {
        stderr.split(separator: "\n").compactMap { line in
            guard let brace = line.firstIndex(of: "{") else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(line[brace...].utf8)) as? [String: Any]
        }
    }

    @Test func sigtermLosesNoReadingDecodedBeforeTheSignal() throws {
        let world = try BumbleWorld([])
        defer { world.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("readings.db").path
        var exitedWithin = -1.0
        let run = try BumbleCLIRun.run(
            BumbleWorld.binary!, ["run", "--hci", "tcp:127.0.0.1:\(world.port)", "--db", db, "--interval", "0", "-v"],
            timeout: 60
        ) { p, _ in
            // Let it log for a while: at least 6 s, i.e. several batch commits and an open batch.
            Thread.sleep(forTimeInterval: 7.5)
            exitedWithin = bumbleTerminate(p, within: 15)
        }
        #expect(exitedWithin >= 0, "still running 15 s after SIGTERM")
        #expect(run.status == 0, "stderr: \(run.stderr.suffix(3000))")
        let logged = Self.loggedReadings(run.stderr)
        #expect(logged.count >= 10, "readings logged: \(logged.count)")
        // One start-up line: adapter, scanning used, database, interval.
        let startup = run.stderr.split(separator: "\n").filter { $0.contains("logging to") }
        #expect(startup.count == 1)
        #expect(startup.first?.contains("tcp:127.0.0.1:\(world.port)") == true && startup.first?.contains("passive scanning") == true
            && startup.first?.contains(db) == true && startup.first?.contains("interval off") == true, "\(startup)")

        let export = try BumbleCLIRun.run(BumbleWorld.binary!, ["export", "--jsonl", "--db", db], timeout: 30)
        #expect(export.status == 0, "\(export.stderr)")
        let stored = export.objects
        // A reading repeated within 1 s with the same values (Bumble reports each advertisement
        // twice) is stored once, by design; every other logged reading must have its row.
        var missing: [String] = []
        for r in logged {
            guard let address = r["address"] as? String, let time = (r["time"] as? String).flatMap(bumbleUnixSeconds(iso:))
            else { continue }
            let keys = r.keys.filter { $0.hasSuffix("_c") || $0.hasSuffix("_pct") || $0.hasSuffix("_v") }
            let found = stored.contains { s in
                guard s["address"] as? String == address, let st = (s["time"] as? String).flatMap(bumbleUnixSeconds(iso:)),
                    abs(st - time) <= 1.0
                else { return false }
                return keys.allSatisfy { k in
                    guard let a = r[k] as? Double, let b = s[k] as? Double else { return false }
                    return abs(a - b) < 1e-9
                }
            }
            if !found { missing.append("\(address) \(r["time"] ?? "?")") }
        }
        #expect(missing.isEmpty, "logged but not stored: \(missing.prefix(10))")
        let minewTemps = stored.filter { $0["address"] as? String == BumbleWorld.minew }.compactMap { $0["temperature_c"] as? Double }
        #expect(minewTemps.contains { $0 < 0 }, "stored MM-BLEBC7 temperatures: \(Set(minewTemps).sorted())")
        #expect(Set(stored.compactMap { $0["address"] as? String }).isSuperset(of: [BumbleWorld.minew, BumbleWorld.pvvx, BumbleWorld.bthome]))
        print("BUMBLE run: \(logged.count) readings logged, \(stored.count) rows stored, exit \(String(format: "%.3f", exitedWithin)) s after SIGTERM")
    }

    @Test func runWritesACaptureThatReplaysToTheSameReadings() throws {
        let world = try BumbleWorld([])
        defer { world.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cap = dir.appendingPathComponent("live.btsnoop").path
        let run = try BumbleCLIRun.run(
            BumbleWorld.binary!,
            ["run", "--hci", "tcp:127.0.0.1:\(world.port)", "--db", dir.appendingPathComponent("a.db").path, "--duration", "5s",
             "--capture", cap, "-v"], timeout: 40)
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        let logged = Self.loggedReadings(run.stderr)
        let replay = try BumbleCLIRun.run(BumbleWorld.binary!, ["replay", cap, "--jsonl"], timeout: 30)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.objects.count == logged.count, "replayed \(replay.objects.count), logged live \(logged.count)")
        #expect(replay.objects.compactMap { $0["time"] as? String } == logged.compactMap { $0["time"] as? String })
    }
}
