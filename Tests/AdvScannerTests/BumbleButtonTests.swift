import Foundation
import Testing

/// A BTHome button on a Bumble virtual controller over H4/TCP, `run --actions` listening: each
/// press (heard many times: every advertisement is reported, twice) runs its command once, in order.
@Suite(.enabled(if: BumbleWorld.isAvailable && BumbleWorld.binary != nil,
    "needs .venv-bumble (IntegrationTests/bumble/setup.sh) and a built blesensor-log next to the tests"))
struct BumbleButtonTests {
    static let button = "5C:C5:00:00:00:04"

    @Test func eachPressRunsItsCommandOnce() throws {
        let world = try BumbleWorld(["--button-presses", "4"])
        defer { world.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("buttons-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("pressed").path
        let rules = dir.appendingPathComponent("rules.json").path
        try """
            {"rules": [{"match": {"sensor": "\(Self.button)", "event": "button"},
                        "run": ["/bin/sh", "-c", "echo \\"$BLE_VALUE\\" >> \\"$0\\"", "\(out)"]}]}
            """.write(toFile: rules, atomically: true, encoding: .utf8)
        let db = dir.appendingPathComponent("db").path
        let run = try BumbleCLIRun.run(
            BumbleWorld.binary!,
            ["run", "--hci", "tcp:127.0.0.1:\(world.port)", "--db", db, "--actions", rules, "--duration", "10s"], timeout: 60)
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        let pressed = world.stdoutLines.filter { $0.hasPrefix("PRESS ") }.map { String($0.split(separator: " ")[2]) }
        #expect(pressed == ["press", "double_press", "long_press", "press"], "\(world.stdoutLines)")
        let ran = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        #expect(ran == pressed)
        let events = try BumbleCLIRun.run(BumbleWorld.binary!, ["export", "--events", "--jsonl", "--db", db], timeout: 30)
        #expect(events.objects.map { $0["value"] as? String ?? "?" } == pressed)
        #expect(events.objects.allSatisfy { $0["address"] as? String == Self.button && $0["event"] as? String == "button" })
    }
}
