import Foundation
import Testing

/// Every failure the CLI promises a sysexits code for, through the real binary: a one-line
/// "Error: …" on stderr, the code, and nothing already stored lost.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct ExitStatusTests {
    @Test(arguments: [
        ["export", "--bogus"], ["summary", "--format", "xml"], ["summary", "--by", "week"], ["export", "--since", "yesterday-ish"],
        ["export", "--csv", "--jsonl"], ["summary", "--stale", "soon"], ["run", "--interval", "fast"], ["run", "--keep", "-1d"],
        ["run", "--only", "not-an-address"], ["replay"], ["sensors", "alias", "x"], ["sensors", "key", "11:22:33:44:55:66", "abcd"],
        ["sensors", "explode"], ["scan", "--hci", "bogus:1"], ["summary", "--day", "2026-13-01"],
        ["summary", "--day", "2026-02-30"], ["export", "--since", "2026-04-31"], ["export", "--until", "2026-11-25T00:00+99:00"],
    ])
    func badUsageIs64WithTheCommandsUsage(_ args: [String]) throws {
        let out = try CLI.run(args, environment: ["BLESENSOR_DB": "/nonexistent/readings.db"])
        #expect(out.status == 64, "\(args): \(out.stderr)")
        let lines = out.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("Error: ") == true, "\(args): \(out.stderr)")
        #expect(lines.contains { $0.hasPrefix("Usage: blesensor-log \(args[0])") }, "\(args): \(out.stderr)")
    }

    @Test(arguments: [["export"], ["summary"], ["sensors"]])
    func aMissingDatabaseIs66(_ args: [String]) throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let out = try CLI.run(args + ["--db", dir.file("none.db")])
        #expect(out.status == 66, "\(out.stderr)")
        #expect(out.stderr.contains("no database"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("none.db")))  // a reader never creates one
    }

    @Test func aFileThatIsNotADatabaseIs65AndLeftUntouched() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("notes.db")
        let content = Data("my precious notes, not SQLite\n".utf8) + Data(repeating: 0x42, count: 5000)
        try content.write(to: URL(fileURLWithPath: path))
        let cap = dir.file("c.btsnoop")
        try SyntheticCapture().write(to: cap)
        for args in [["export", "--db", path], ["summary", "--db", path], ["replay", cap, "--db", path]] {
            let out = try CLI.run(args)
            #expect(out.status == 65, "\(args): \(out.status) \(out.stderr)")
            #expect(out.stderr.split(separator: "\n").count == 1, "\(args): \(out.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aFIFOOrADirectoryAsTheDatabaseIs65InOneLineNotAHang() throws {
        // SQLite's open of a FIFO waits for a writer that never comes: readers hung for ever.
        // KILL, not timeout's TERM: a child may inherit a mask that blocks TERM from the runner.
        let dir = try TempDir()
        defer { dir.cleanup() }
        let fifo = dir.file("readings.db")
        try #require(mkfifo(fifo, 0o644) == 0)
        let cap = dir.file("c.btsnoop")
        try SyntheticCapture().write(to: cap)
        for (db, kind) in [(fifo, "a FIFO"), (dir.path, "a directory")] {
            for args in [["export"], ["summary"], ["sensors"], ["sensors", "alias", "11:22:33:44:55:66", "x"], ["report", "--html", "-"],
                         ["replay", cap]] {
                let out = try CLI.run(args + ["--db", db], through: ["/usr/bin/timeout", "-s", "KILL", "20"])
                #expect(out.status == 65, "\(args) \(db): \(out.status) \(out.stderr)")
                #expect(out.stderr == "Error: store: \(db) is not a blesensor-log database (it is \(kind), not a file); the file was left untouched\n",
                        "\(args): \(out.stderr)")
            }
            let doctor = try CLI.run(["doctor", "--db", db], through: ["/usr/bin/timeout", "-s", "KILL", "20"])
            #expect(doctor.status == 1, "\(doctor.stderr)")
            #expect(doctor.stdout.contains("cannot be read: it is \(kind), not a file"), "\(doctor.stdout)")
        }
        var st = stat()
        #expect(lstat(fifo, &st) == 0 && st.st_mode & S_IFMT == S_IFIFO)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["c.btsnoop", "readings.db"])
    }

    @Test(arguments: [["--help"], ["--version"], ["export", "--help"]])
    func helpOnAFullDiskIs74(_ args: [String]) throws {
        // `through` runs the binary as $0 of a shell that points its standard output at /dev/full.
        let out = try CLI.run(args, through: ["/bin/sh", "-c", "exec \"$0\" \"$@\" >/dev/full"])
        #expect(out.status == 74, "\(args): \(out.stderr)")
        #expect(out.stderr == "Error: cannot write output: No space left on device\n", "\(args)")
    }

    @Test func anUncreatableDatabaseIs73() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let blocker = dir.file("file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        let cap = dir.file("c.btsnoop")
        try SyntheticCapture().write(to: cap)
        let out = try CLI.run(["replay", cap, "--db", blocker + "/sub/readings.db"])
        #expect(out.status == 73, "\(out.stderr)")
        #expect(out.stderr.hasPrefix("Error: cannot create directory"))
    }

    @Test func replayOfAMissingCaptureIs66() throws {
        let out = try CLI.run(["replay", "/nonexistent/capture.btsnoop", "--jsonl"])
        #expect(out.status == 66)
        #expect(out.stderr.contains("/nonexistent/capture.btsnoop"))
    }

    @Test func aTruncatedCaptureIs65NamesTheOffsetAndKeepsWhatCameBefore() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let cap = dir.file("c.btsnoop")
        try SyntheticCapture().write(to: cap)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: cap))
        bytes.removeLast(7)  // cut inside the last record
        try bytes.write(to: URL(fileURLWithPath: cap))
        let db = dir.file("r.db")
        let out = try CLI.run(["replay", cap, "--db", db, "--interval", "0"])
        #expect(out.status == 65, "\(out.stderr)")
        #expect(out.stderr.contains("offset"))
        #expect(out.stderr.contains("truncated"))
        let export = try CLI.run(["export", "--jsonl", "--db", db])
        #expect(CLI.jsonObjects(export).count == SyntheticCapture().samples.count - 1)
    }

    @Test func garbageInsteadOfACaptureIs65() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("random.bin")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: path))
        let out = try CLI.run(["replay", path, "--jsonl"])
        #expect(out.status == 65, "\(out.stderr)")
        #expect(out.stdout.isEmpty)
    }

    @Test func anAdapterThatIsNotThereIs69() throws {
        // This machine's kernel has no Bluetooth (EAFNOSUPPORT), and hci7 does not exist anywhere.
        let dir = try TempDir()
        defer { dir.cleanup() }
        let out = try CLI.run(["run", "--hci", "hci7", "--db", dir.file("r.db"), "--duration", "2s"])
        #expect(out.status == 69, "\(out.stderr)")
        #expect(out.stderr.split(separator: "\n").last?.hasPrefix("Error: ") == true, "\(out.stderr)")
        let tcp = try CLI.run(["scan", "--hci", "tcp:127.0.0.1:1", "--duration", "2s"])
        #expect(tcp.status == 69, "\(tcp.stderr)")
    }

    @Test func everyCommandHasHelp() throws {
        for c in ["run", "replay", "scan", "export", "summary", "sensors", "decode"] {
            let out = try CLI.run([c, "--help"])
            #expect(out.status == 0)
            #expect(out.stdout.contains("USAGE: blesensor-log \(c)"), "\(c)")
            #expect(out.stdout.contains("OPTIONS:"), "\(c)")
        }
        let top = try CLI.run(["--help"])
        for c in ["run", "replay", "scan", "export", "summary", "sensors", "decode"] { #expect(top.stdout.contains(c)) }
    }
}

/// Where the database is when `--db` is not given.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct DefaultDatabasePathTests {
    /// `sensors key` writes `keys` beside the database: where it lands shows which path was chosen.
    func keysLocation(_ env: [String: String]) throws -> Bool {
        let out = try CLI.run(["sensors", "key", "11:22:33:44:55:66", String(repeating: "ab", count: 16)], environment: env)
        return out.status == 0
    }

    @Test func blesensorDBWinsOverXDG() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        #expect(try keysLocation(["BLESENSOR_DB": dir.file("env/readings.db"), "XDG_DATA_HOME": dir.file("xdg")]))
        #expect(FileManager.default.fileExists(atPath: dir.file("env/keys")))
        #expect(!FileManager.default.fileExists(atPath: dir.file("xdg")))
    }

    @Test func nonRootUsersGetXDGDataHome() throws {
        guard getuid() != 0 else {
            // As root the default is /var/lib/blesensor-log: check the message names it instead.
            let out = try CLI.run(["export"], environment: ["BLESENSOR_DB": "", "STATE_DIRECTORY": ""])
            #expect(out.status == 66 || out.status == 0)
            if out.status == 66 { #expect(out.stderr.contains("/var/lib/blesensor-log/readings.db")) }
            return
        }
        let dir = try TempDir()
        defer { dir.cleanup() }
        #expect(try keysLocation(["BLESENSOR_DB": "", "XDG_DATA_HOME": dir.file("xdg")]))
        #expect(FileManager.default.fileExists(atPath: dir.file("xdg/blesensor-log/keys")))
    }
}
