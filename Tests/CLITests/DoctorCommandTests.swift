import Foundation
import Testing

@testable import blesensor_log

/// `doctor` through the real binary, on this machine: a store of ours with pages overwritten is
/// named damaged, and the exit status is 1.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct DoctorCommandTests {
    /// A real store (replayed from our synthetic capture), then every page after the first
    /// overwritten, so the header still says SQLite and ours but the tables are gone.
    func damagedDatabase(_ dir: TempDir) throws -> String {
        let cap = dir.file("synthetic.btsnoop")
        try SyntheticCapture().write(to: cap)
        let db = dir.file("readings.db")
        let replay = try CLI.run(["replay", cap, "--db", db, "--interval", "0"])
        try #require(replay.status == 0, "replay failed: \(replay.stderr)")
        let sound = try CLI.run(["doctor", "--db", db, "--json"])
        try #require(sound.stdout.contains("\"check\":\"database\",\"status\":\"ok\""), "\(sound.stdout)")
        let h = try #require(FileHandle(forUpdatingAtPath: db))
        let pages = Int(try h.seekToEnd()) / 4096
        try #require(pages > 2)
        for p in 1..<pages {
            try h.seek(toOffset: UInt64(p * 4096))
            h.write(Data(repeating: 0xA5, count: 4096))
        }
        try h.close()
        return db
    }

    @Test func aDamagedDatabaseIsNamedAndTheExitStatusIsOne() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try damagedDatabase(dir)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let out = try CLI.run(["doctor", "--db", db])
        #expect(out.status == 1, "\(out.stdout)\(out.stderr)")
        let database = out.lines.filter { $0.hasPrefix("fail database") }
        #expect(database.count == 1 && database[0].contains("damaged (quick_check:"), "\(out.stdout)")
        // This machine has no Bluetooth in its kernel; where it has, the kernel line is ok.
        if !FileManager.default.fileExists(atPath: "/sys/class/bluetooth") {
            #expect(out.lines.contains { $0.hasPrefix("fail kernel") || $0.hasPrefix("fail adapter") }, "\(out.stdout)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "doctor wrote to the damaged file")
    }

    @Test func jsonIsOneObjectWithEveryCheck() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try damagedDatabase(dir)
        let out = try CLI.run(["doctor", "--db", db, "--json", "--hci", "tcp:127.0.0.1:9"])
        #expect(out.status == 1)
        #expect(out.lines.count == 1)
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        #expect(obj["ok"] as? Bool == false)
        let checks = try #require(obj["checks"] as? [[String: String]])
        #expect(checks.contains { $0["check"] == "database" && $0["status"] == "fail" })
        #expect(checks.contains { $0["check"] == "transport" && $0["status"] == "ok" })
    }

    @Test func aSoundStoreListsItsSensorsAndStaleOnesWarn() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let cap = dir.file("synthetic.btsnoop")
        try SyntheticCapture().write(to: cap)
        let db = dir.file("readings.db")
        #expect(try CLI.run(["replay", cap, "--db", db, "--interval", "0"]).status == 0)
        // The capture is from 2026-01-01: all three sensors are stale by now, which is a warning only.
        let out = try CLI.run(["doctor", "--db", db, "--hci", "tcp:127.0.0.1:9"])
        #expect(out.lines.filter { $0.hasPrefix("warn sensor ") }.count == 3, "\(out.stdout)")
        #expect(out.lines.contains { $0.hasPrefix("ok   database") })
        #expect(out.status == 0, "\(out.stdout)")
    }

    @Test func aBadHCISpecIsAUsageError() throws {
        let out = try CLI.run(["doctor", "--hci", "bluetooth0"])
        #expect(out.status == 64)
        #expect(out.stdout.isEmpty)
        #expect(out.stderr.contains("'bluetooth0': expected hciN"), "\(out.stderr)")
    }
}

/// `doctor --config FILE` (or run's search path): says which file run reads, checks it, and
/// looks at the database it names.
@Suite struct DoctorConfigCommandTests {
    @Test func doctorNamesTheConfigFileAndUsesItsDatabase() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let conf = dir.file("b.conf")
        let db = dir.file("from-config.db")
        try "db = \(db)\ninterval = 5m\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let out = try CLI.run(["doctor", "--config", conf])
        #expect(out.lines.contains("ok   config       \(conf): 2 settings for run"), "\(out.stdout)")
        #expect(out.lines.contains { $0.hasPrefix("warn database") && $0.contains("no database at \(db)") }, "\(out.stdout)")

        try "db = \(db)\nintervl = 5m\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let bad = try CLI.run(["doctor", "--config", conf])
        #expect(bad.status == 1, "\(bad.stdout)")
        #expect(bad.lines.contains { $0.hasPrefix("fail config       \(conf):2: unknown setting 'intervl'") }, "\(bad.stdout)")

        let stored = try UnsynchronisedClockStore.write(
            path: db, start: Timestamp.nowMicros() - 3_600_000_000, unsynchronised: 0, synchronised: 3)
        #expect(!stored.rows.isEmpty)
        try "db = \(db)\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let found = try CLI.run(["doctor", "--config", conf])
        #expect(found.lines.contains { $0.hasPrefix("ok   database     \(db): ours") }, "\(found.stdout)")
        let other = dir.file("other.db")
        let overridden = try CLI.run(["doctor", "--config", conf, "--db", other])
        #expect(overridden.lines.contains { $0.hasPrefix("warn database") && $0.contains("no database at \(other)") },
                "--db wins: \(overridden.stdout)")

        let none = try CLI.run(["doctor"], environment: ["XDG_CONFIG_HOME": dir.file("empty")])
        #expect(none.lines.contains { $0.hasPrefix("ok   config       no config file (looked for \(dir.file("empty"))/") }, "\(none.stdout)")
    }
}
