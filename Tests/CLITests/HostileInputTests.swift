import AdvScanner
import Foundation
import SensorDecode
import Testing

/// What a hostile or careless user can hand the binary — absurd flags, endless or odd input,
/// signals — answered with a one-line error and a sysexits code, never a trap, and never at the
/// cost of what is already stored.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct HostileInputTests {
    // MARK: - Flags out of range

    /// Durations and times whose microseconds do not fit an Int64 (or only just), and numbers
    /// far beyond what an option means. `CAP` and `DB` stand for a capture and a stored database.
    @Test(arguments: [
        ["replay", "CAP", "--keep", "10000000000000s"],
        ["replay", "CAP", "--keep", "106751992d"],
        ["replay", "CAP", "--interval", "99999999999999999999d"],
        ["run", "--hci", "hci7", "--keep", "10000000000000s"],
        ["run", "--hci", "hci7", "--duration", "9223372036855s"],
        ["run", "--hci", "hci7", "--silence-timeout", "106751992d"],
        ["scan", "--hci", "hci7", "--duration", "99999999999999d"],
        ["export", "--since", "106751992d"],
        ["export", "--since", "9223372036855s"],
        ["export", "--until", "106751992d"],
        ["summary", "--since", "106751992d"],
        ["summary", "--until", "9223372036855s"],
        ["summary", "--stale", "99999999999999d"],
        ["summary", "--stale", "2w99999999999999d"],
        ["summary", "--battery-below", "1e400"],
        ["run", "--hci", "hci7", "--interval-ms", "1e400"],
    ])
    func anOutOfRangeFlagIs64NotATrap(_ template: [String]) throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let cap = dir.file("c.btsnoop")
        try SyntheticCapture().write(to: cap)
        let db = dir.file("readings.db")
        try #require(try CLI.run(["replay", cap, "--db", db]).status == 0)
        let before = try CLI.run(["export", "--csv", "--db", db]).stdout
        let args = template.map { $0 == "CAP" ? cap : $0 } + (template[0] == "scan" ? [] : ["--db", db])

        let out = try CLI.run(args)
        #expect(out.status == 64, "\(template): \(out.status) \(out.stderr)")
        let flag = template.first { $0.hasPrefix("--") && $0 != "--hci" }!
        #expect(out.stderr.hasPrefix("Error: \(flag) "), "\(template): \(out.stderr)")
        #expect(!out.stderr.contains("Fatal error"), "\(template): \(out.stderr)")
        #expect(try CLI.run(["export", "--csv", "--db", db]).stdout == before)
    }

    @Test func theLongestDurationsStillWork() throws {
        // The bound is far beyond any store's history: a million days back is "everything".
        let dir = try TempDir()
        defer { dir.cleanup() }
        let cap = dir.file("c.btsnoop")
        try SyntheticCapture().write(to: cap)
        let db = dir.file("readings.db")
        #expect(try CLI.run(["replay", cap, "--db", db, "--keep", "1000000d"]).status == 0)
        let all = try CLI.run(["export", "--csv", "--db", db])
        let since = try CLI.run(["export", "--csv", "--db", db, "--since", "1000000d"])
        #expect(since.status == 0, "\(since.stderr)")
        #expect(since.stdout == all.stdout && since.stdout.count > 1000)
        let summary = try CLI.run(["summary", "--db", db, "--since", "1000000d", "--stale", "1000000d", "--battery-below", "0"])
        #expect(summary.status == 0, "\(summary.stderr)")
    }
}
