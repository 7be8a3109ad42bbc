import Foundation
import Testing

/// `--actions` through the real binary: the button capture replayed with rules whose commands
/// append to a file, then `export --events`.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct ActionsTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/captures/bthome-buttons.btsnoop")

    /// A rules file of `rules` (JSON text of each rule).
    static func rulesFile(_ dir: TempDir, _ rules: [String], remotes: String? = nil) throws -> String {
        let path = dir.file("rules.json")
        let text = "{" + (remotes.map { "\"remotes\": \($0),\n" } ?? "") + "\"rules\": [\n" + rules.joined(separator: ",\n") + "\n]}\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A rule that appends "$BLE_VALUE" to `out` for the button's events, with extra keys.
    static func appendRule(_ out: String, match: String = "\"event\": \"button\"", extra: String = "") -> String {
        "{\"match\": {\"sensor\": \"\(ButtonCapture.button)\", \(match)}, "
            + "\"run\": [\"/bin/sh\", \"-c\", \"printf '%s\\\\n' \\\"$BLE_VALUE\\\" >> \\\"$0\\\"\", \"\(out)\"]\(extra)}"
    }

    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func replay(_ dir: TempDir, rules: String, extra: [String] = []) throws -> CLI.Output {
        let capture = dir.file("buttons.btsnoop")
        try ButtonCapture().write(to: capture)
        return try CLI.run(["replay", capture, "--db", dir.file("db"), "--actions", rules] + extra)
    }

    @Test func theFixtureIsCurrent() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let built = dir.file("b.btsnoop")
        try ButtonCapture().write(to: built)
        if ProcessInfo.processInfo.environment["REGENERATE_FIXTURES"] == "1" {
            try? FileManager.default.removeItem(at: Self.fixture)
            try FileManager.default.copyItem(atPath: built, toPath: Self.fixture.path)
        }
        #expect(try Data(contentsOf: Self.fixture) == Data(contentsOf: URL(fileURLWithPath: built)), "bthome-buttons.btsnoop is stale: regenerate it")
    }

    /// The issue's "done when": one command per press, in order, and the events exported.
    @Test func eachPressRunsItsCommandOnceInOrderAndIsExported() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let out = dir.file("out")
        let r = try replay(dir, rules: try Self.rulesFile(dir, [Self.appendRule(out)]))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.lines(out) == ButtonCapture.presses.map(\.name))
        let csv = try CLI.run(["export", "--events", "--csv", "--db", dir.file("db")])
        #expect(csv.status == 0, "\(csv.stderr)")
        let rows = csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.first == "time,address,alias,model,event,value")
        #expect(rows.dropFirst() == ArraySlice(ButtonCapture.presses.map {
            "2026-01-01T00:00:\(String(format: "%02d", $0.at))Z,\(ButtonCapture.button),,BTHome,button,\($0.name)"
        }))
        // Replaying again runs the commands again (rules are tried on captures so) but stores no
        // event twice.
        let again = try replay(dir, rules: try Self.rulesFile(dir, [Self.appendRule(out)]))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(Self.lines(out) == ButtonCapture.presses.map(\.name) + ButtonCapture.presses.map(\.name))
        let jsonl = try CLI.run(["export", "--events", "--jsonl", "--db", dir.file("db")])
        let objects = CLI.jsonObjects(jsonl)
        #expect(objects.count == 4)
        #expect(objects.first?["rssi_dbm"] as? Int == -55)
        #expect(objects.first?["event"] as? String == "button")
    }

    @Test func aRuleMatchesItsValueOnlyAndAnAliasNamesTheSensor() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let out = dir.file("out")
        // First replay: the sensor becomes known; then it gets an alias, and a rule by alias.
        let plain = try replay(dir, rules: try Self.rulesFile(dir, [Self.appendRule(dir.file("first"))]))
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try CLI.run(["sensors", "alias", ButtonCapture.button.description, "hall-\u{FC}", "--db", dir.file("db")]).status == 0)
        let byAlias = "{\"match\": {\"sensor\": \"hall-\\u00fc\", \"value\": \"press\"}, "
            + "\"run\": [\"/bin/sh\", \"-c\", \"printf '%s %s\\\\n' \\\"$BLE_VALUE\\\" \\\"$BLE_ALIAS\\\" >> \\\"$0\\\"\", \"\(out)\"]}"
        let r = try replay(dir, rules: try Self.rulesFile(dir, [byAlias]))
        #expect(r.status == 0, "\(r.stderr)")
        // Only the two single presses, and the alias in printable ASCII (each byte of ü a '?').
        #expect(Self.lines(out) == ["press hall-??", "press hall-??"])
    }

    @Test func aCooldownSkipsPressesTooSoonAfterTheLastRun() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let out = dir.file("out")
        // Presses at 5, 7, 20, 21 s: a 5 s cooldown runs those at 5 and 20.
        let r = try replay(dir, rules: try Self.rulesFile(dir, [Self.appendRule(out, extra: ", \"cooldown\": \"5s\"")]))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.lines(out) == ["press", "long_press"])
    }

    @Test func aCommandPastItsTimeoutIsTerminated() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let rule = "{\"match\": {\"value\": \"long_press\"}, \"run\": [\"/bin/sleep\", \"60\"], \"timeout\": \"1s\"}"
        let started = Date()
        let r = try replay(dir, rules: try Self.rulesFile(dir, [rule]))
        let took = Date().timeIntervalSince(started)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("/bin/sleep ran past its timeout of 1s: terminated"), "\(r.stderr)")
        #expect(took < 20, "replay waited \(took) s for a command with a 1 s timeout")
    }

    /// The local name is a stranger's bytes: it reaches neither argv nor the environment (only
    /// the fixed vocabulary and hex do), and nothing of it is run by any shell.
    @Test func aHostileLocalNameNeverReachesTheCommand() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let out = dir.file("out")
        let rule = "{\"match\": {}, \"run\": [\"/bin/sh\", \"-c\", \"{ printf '%s\\\\n' \\\"$@\\\"; env; } >> \\\"$0\\\"\", \"\(out)\", \"arg\"]}"
        let r = try CLI.run(["replay", try writeCapture(dir), "--db", dir.file("db"), "--actions", try Self.rulesFile(dir, [rule])],
                            cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(text.contains("BLE_EVENT=button"))
        #expect(text.contains("BLE_VALUE=double_press"))
        #expect(text.contains("BLE_ADDRESS=\(ButtonCapture.button)"))
        #expect(text.contains("BLE_MODEL=BTHome"))
        #expect(text.contains("BLE_RSSI=-55"))
        #expect(text.contains("BLE_TIME=2026-01-01T00:00:05Z"))
        #expect(!text.contains("PWN"), "the local name reached the command")
        #expect(!FileManager.default.fileExists(atPath: dir.file("PWN")))
    }

    func writeCapture(_ dir: TempDir) throws -> String {
        let capture = dir.file("buttons.btsnoop")
        try ButtonCapture().write(to: capture)
        return capture
    }

    @Test func anEncryptedRuleIgnoresPlainFrames() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let out = dir.file("out")
        let r = try replay(dir, rules: try Self.rulesFile(dir, [Self.appendRule(out, match: "\"event\": \"button\", \"encrypted\": true")]))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.lines(out).isEmpty)
    }

    @Test(arguments: [
        ("{\"rules\": [{\"match\": {}, \"run\": [\"sh\"]}]}", "line 1: rules[0].run[0]: 'sh' is not an absolute path"),
        ("{\"rules\": [\n{\"match\": {\"evnt\": \"button\"}, \"run\": [\"/bin/true\"]}]}", "line 2: rules[0].match.evnt: unknown key"),
        ("{\"rules\": [{\"match\": {\"event\": \"click\"}, \"run\": [\"/bin/true\"]}]}", "rules[0].match.event: 'click' is none of button, dimmer, notify"),
        ("{\"rules\": [{\"match\": {}, \"run\": [\"/bin/true\"], \"timeout\": \"0s\"}]}", "rules[0].timeout: wants a duration over 0"),
        ("{\"rules\": [{\"match\": {}, \"run\": [\"/no/such/program\"]}]}", "rules[0].run[0]: /no/such/program: No such file or directory"),
        ("{\"rules\": [{\"match\": {}, \"run\": []}]}", "rules[0].run: empty"),
        ("{\"rules\": [{\"match\": {}, \"run\": [\"/bin/true\"]}],\n\"remotes\": [{\"address\": \"nope\"}]}", "line 2: remotes[0].address: not an address"),
        ("{\"rules\": [\n\n{\"match\": {}, \"run\": [\"/bin/true\"],}]}", "line 3: expected a key in quotes"),
    ])
    func aBadRulesFileIsOneErrorBeforeAnythingRuns(_ text: String, _ message: String) throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let rules = dir.file("rules.json")
        try text.write(toFile: rules, atomically: true, encoding: .utf8)
        let r = try CLI.run(["replay", try writeCapture(dir), "--db", dir.file("db"), "--actions", rules])
        #expect(r.status == 65)
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("db")), "the database was created before the rules were checked")
    }

    @Test func aMissingRulesFileIsAUsageError() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let r = try CLI.run(["replay", try writeCapture(dir), "--db", dir.file("db"), "--actions", dir.file("none.json")])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--actions \(dir.file("none.json")): No such file or directory"), "\(r.stderr)")
    }

    /// GATT needs the kernel's host stack: over an H4 stream it is refused in one line, before
    /// the transport is opened.
    @Test func remotesOverAnH4StreamAreRefused() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let rules = try Self.rulesFile(
            dir, ["{\"match\": {\"event\": \"notify\"}, \"run\": [\"/bin/true\"]}"],
            remotes: "[{\"address\": \"C0:98:E5:00:00:01\", \"service\": \"2220\", \"characteristic\": \"2221\"}]")
        let r = try CLI.run(["run", "--hci", "tcp:127.0.0.1:9", "--db", dir.file("db"), "--actions", rules])
        #expect(r.status == 64)
        #expect(r.stderr.contains("GATT remotes need the kernel's Bluetooth stack"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("db")))
    }
}
