import Foundation
import Testing

@testable import blesensor_log

/// `blesensor-log.conf`: its syntax, how its lines become `run`'s options (validated as on the
/// command line, the command line winning), and errors that name the file's line.
@Suite struct ConfigFileTests {
    static func parse(_ text: String) throws -> ConfigFile { try ConfigFile.parse(text, path: "/x/b.conf") }

    static func merged(_ text: String, commandLine: [String] = []) throws -> ParsedArguments {
        var args = try ParsedArguments(commandLine, spec: RunCommand.spec)
        try args.merge(try parse(text), spec: RunCommand.spec)
        return args
    }

    static func error(_ body: () throws -> Void) -> CLIError? {
        do { try body() } catch let e as CLIError { return e } catch { Issue.record("not a CLIError: \(error)") }
        return nil
    }

    // MARK: - Syntax

    @Test func linesCommentsQuotesAndFlags() throws {
        let c = try Self.parse("""
            # the logger on the shelf
              db = /var/lib/x.db\r
            interval=5m   # fold per five minutes

            capture = "/tmp/a # b.btsnoop"   # quoted: the # stays
            hci = tcp:127.0.0.1:9000#not-a-comment
            verbose
            """)
        #expect(c.entries == [
            .init(key: "db", value: "/var/lib/x.db", line: 2),
            .init(key: "interval", value: "5m", line: 3),
            .init(key: "capture", value: "/tmp/a # b.btsnoop", line: 5),
            .init(key: "hci", value: "tcp:127.0.0.1:9000#not-a-comment", line: 6),
            .init(key: "verbose", value: nil, line: 7),
        ])
    }

    @Test func aLineThatIsNotKeyEqualsValueIsADataErrorWithItsLine() {
        for (text, line) in [("db = a\nthis is prose\n", 2), ("\n\n\"db\" = x", 3), ("db = \"open", 1), ("db = \"a\" b", 1),
                             ("= 5", 1), ("Interval = 5m", 1)] {
            let e = Self.error { _ = try Self.parse(text) }
            #expect(e?.code == ExitCode.dataError, "\(text)")
            #expect(e?.message.hasPrefix("/x/b.conf:\(line): ") == true, "\(text): \(e?.message ?? "no error")")
        }
    }

    @Test func aNULByteIsADataErrorNotAShorterPath() {
        // A C string ends at the NUL: `db = /tmp/x\0y.db` would have stored into /tmp/x while
        // every message named /tmp/x\0y.db.
        for (text, line) in [("db = /tmp/x\u{0}y.db\n", 1), ("# ok\nhci = hci0\u{0}\n", 2), ("verbose\u{0}\n", 1)] {
            let e = Self.error { _ = try Self.parse(text) }
            #expect(e?.code == ExitCode.dataError, "\(text)")
            #expect(e?.message == "/x/b.conf:\(line): holds a NUL byte", "\(e?.message ?? "no error")")
        }
    }

    // MARK: - Merging into the command's options

    @Test func settingsBecomeTheLongOptionsAndTheCommandLineWins() throws {
        let a = try Self.merged("db = /from/file.db\ninterval = 5m\nonly = 11:22:33:44:55:01\nonly = 11:22:33:44:55:02\nverbose = yes\n",
                                commandLine: ["--interval", "60s", "--hci", "hci1"])
        #expect(a.value("db") == "/from/file.db")
        #expect(a.value("interval") == "60s")
        #expect(a.all("only") == ["11:22:33:44:55:01", "11:22:33:44:55:02"])
        #expect(a.all("hci") == ["hci1"])
        #expect(a.has("verbose"))
        #expect(a.configPath == "/x/b.conf")
        #expect(a.configOrigins["interval"] == nil, "overridden: not the file's")
        #expect(a.configOrigins["only"]?.map(\.line) == [3, 4])

        let overridden = try Self.merged("only = 11:22:33:44:55:01\nonly = 11:22:33:44:55:02\n",
                                         commandLine: ["--only", "11:22:33:44:55:03"])
        #expect(overridden.all("only") == ["11:22:33:44:55:03"], "a repeatable option on the command line replaces all the file's lines")
        #expect(try Self.merged("verbose = off\n").has("verbose") == false)
    }

    @Test func unknownKeysRepeatsAndMissingValuesAreUsageErrorsWithTheirLine() throws {
        let cases: [(String, Int, String)] = [
            ("db = a.db\n\nintervall = 5m\n", 3, "unknown setting 'intervall'"),
            ("interval = 5m\ninterval = 1m\n", 2, "set twice (also on line 1)"),
            ("db =\n", 1, "needs a value"),
            ("verbose = maybe\n", 1, "is a flag"),
            ("config = /etc/other.conf\n", 1, "unknown setting 'config'"),
            ("help\n", 1, "unknown setting 'help'"),
        ]
        for (text, line, what) in cases {
            let e = Self.error { _ = try Self.merged(text) }
            #expect(e?.code == ExitCode.usage, "\(text)")
            #expect(e?.message.hasPrefix("/x/b.conf:\(line): ") == true && e?.message.contains(what) == true,
                    "\(text): \(e?.message ?? "no error")")
        }
        // A repeat of an option the command line gives is still a mistake in the file.
        #expect(Self.error { _ = try Self.merged("db = a\ndb = b\n", commandLine: ["--db", "c"]) }?.code == ExitCode.usage)
    }

    @Test func errorsAboutASettingNameTheLineItCameFrom() throws {
        let a = try Self.merged("db = x.db\ninterval-ms = 40\nhci = bogus\n")
        let aboutInterval = a.attributing(.usage("--interval-ms wants a number, got '40x'"))
        #expect(aboutInterval.message == "/x/b.conf:2: --interval-ms wants a number, got '40x'")
        #expect(a.attributing(.usage("'bogus': expected hciN, tcp:HOST:PORT")).message.hasPrefix("/x/b.conf:3: "))
        // `--interval` is not `--interval-ms`, and an option from the command line is not the file's.
        #expect(a.attributing(.usage("--interval wants whole seconds")).message == "--interval wants whole seconds")
        let b = try Self.merged("keep = 1s\n", commandLine: ["--db", "x.db"])
        #expect(b.attributing(.usage("--db: cannot open")).message == "--db: cannot open")
        #expect(b.attributing(.usage("--keep wants a duration of at least 1h")).message.hasPrefix("/x/b.conf:1: "))
    }

    // MARK: - Which file

    @Test func theSearchPathIsTheUsersThenTheSystems() {
        let env = ["XDG_CONFIG_HOME": "/home/p/.cfg", "HOME": "/home/p"]
        #expect(ConfigFile.searchPath { env[$0] } == ["/home/p/.cfg/blesensor-log/blesensor-log.conf", ConfigFile.systemPath])
        #expect(ConfigFile.searchPath { $0 == "HOME" ? "/home/p" : nil }
            == ["/home/p/.config/blesensor-log/blesensor-log.conf", ConfigFile.systemPath])
        #expect(ConfigFile.searchPath { _ in nil } == [ConfigFile.systemPath])
    }

    @Test func theFirstFileFoundIsReadAndANamedOneMustExist() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try "db = second.db\n".write(toFile: dir.file("second.conf"), atomically: true, encoding: .utf8)
        let found = try ConfigFile.locate(explicit: nil, searchPath: [dir.file("first.conf"), dir.file("second.conf")])
        #expect(found?.path == dir.file("second.conf") && found?.entries.first?.value == "second.db")
        #expect(try ConfigFile.locate(explicit: nil, searchPath: [dir.file("none.conf")]) == nil)
        #expect(Self.error { _ = try ConfigFile.locate(explicit: dir.file("none.conf")) }?.code == ExitCode.noInput)
        try FileManager.default.createDirectory(atPath: dir.file("a-folder.conf"), withIntermediateDirectories: false)
        #expect(Self.error { _ = try ConfigFile.locate(explicit: nil, searchPath: [dir.file("a-folder.conf")]) }?.code
            == ExitCode.noInput)
    }

    // MARK: - Through the binary

    /// `run` with a config file and no Bluetooth here: the file's `db` is created (the store opens
    /// before the radio), its `hci` is the endpoint that refuses (69), and `-v` names the file.
    @Test func theFileDrivesRunAndTheCommandLineOverridesIt() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let conf = dir.file("blesensor-log.conf")
        try "# test\ndb = \(dir.file("from-file.db"))\nhci = tcp:127.0.0.1:1\nduration = 2s\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let out = try CLI.run(["run", "--config", conf, "-v"])
        #expect(out.status == 69, "\(out.stderr)")
        #expect(out.stderr.contains("config: \(conf) (3 settings used)"), "\(out.stderr)")
        #expect(out.stderr.contains("tcp:127.0.0.1:1"), "the file's adapter: \(out.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.file("from-file.db")))

        let overridden = try CLI.run(["run", "--config", conf, "--db", dir.file("from-args.db")])
        #expect(overridden.status == 69, "\(overridden.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.file("from-args.db")))

        // Found on the search path when --config is not given.
        try FileManager.default.createDirectory(atPath: dir.file("xdg/blesensor-log"), withIntermediateDirectories: true)
        try "db = \(dir.file("from-xdg.db"))\nhci = hci7\nduration = 2s\n"
            .write(toFile: dir.file("xdg/blesensor-log/blesensor-log.conf"), atomically: true, encoding: .utf8)
        let searched = try CLI.run(["run", "-v"], environment: ["XDG_CONFIG_HOME": dir.file("xdg")])
        #expect(searched.status == 69, "\(searched.stderr)")
        #expect(searched.stderr.contains("config: \(dir.file("xdg/blesensor-log/blesensor-log.conf"))"), "\(searched.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.file("from-xdg.db")))
    }

    @Test func aBadKeyOrValueIsRefusedWithItsLineBeforeAnythingStarts() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let conf = dir.file("b.conf")
        let db = dir.file("never.db")
        try "db = \(db)\nhci = hci7\n# fine so far\nintervl = 5m\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let badKey = try CLI.run(["run", "--config", conf])
        #expect(badKey.status == 64, "\(badKey.stderr)")
        #expect(badKey.stderr.split(separator: "\n").count == 1, "one line: \(badKey.stderr)")
        #expect(badKey.stderr.contains("\(conf):4: unknown setting 'intervl'"), "\(badKey.stderr)")

        try "db = \(db)\nhci = hci7\ninterval = fast\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let badValue = try CLI.run(["run", "--config", conf])
        #expect(badValue.status == 64, "\(badValue.stderr)")
        #expect(badValue.stderr.contains("\(conf):3: --interval wants"), "\(badValue.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db), "nothing started: no database created")
        // The command line's value replaces the file's bad one.
        let fixed = try CLI.run(["run", "--config", conf, "--interval", "60s", "--duration", "2s"])
        #expect(fixed.status == 69, "\(fixed.stderr)")

        try "db = \(db)\nthis line is prose\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let prose = try CLI.run(["run", "--config", conf])
        #expect(prose.status == 65 && prose.stderr.contains("\(conf):2: "), "\(prose.stderr)")
        let missing = try CLI.run(["run", "--config", dir.file("absent.conf")])
        #expect(missing.status == 66, "\(missing.stderr)")
    }
}

/// packaging/blesensor-log.conf, the example the unit reads, is a valid file for `run`: its
/// settings, and each commented-out `#key = value` line once uncommented.
@Suite struct ShippedConfigFileTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("packaging/blesensor-log.conf").path

    @Test func theExampleAndEachOfItsCommentedSettingsAreValid() throws {
        let text = try String(contentsOfFile: Self.path, encoding: .utf8)
        var args = try ParsedArguments([], spec: RunCommand.spec)
        try args.merge(try ConfigFile.parse(text, path: Self.path), spec: RunCommand.spec)
        #expect(args.value("db") == "/var/lib/blesensor-log/readings.db")
        let commented = text.split(separator: "\n").filter { $0.hasPrefix("#") && !$0.hasPrefix("# ") && $0.contains(" = ") }
        #expect(commented.count >= 4)
        for line in commented {
            var one = try ParsedArguments([], spec: RunCommand.spec)
            try one.merge(try ConfigFile.parse(String(line.dropFirst()), path: Self.path), spec: RunCommand.spec)
            #expect(!one.configOrigins.isEmpty, "\(line)")
        }
        let unit = try String(contentsOfFile: Self.path.replacingOccurrences(of: ".conf", with: ".service"), encoding: .utf8)
        #expect(unit.contains("run --config \(ConfigFile.systemPath)"))
    }
}

/// The commands that read the database take its `db` from run's config file (`--config FILE`,
/// else run's search path), and nothing else from it; the command line wins.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct ConfigFileDatabaseTests {
    /// A database with one sensor, and a config file of run's naming it among run's settings.
    static func setUp(_ dir: TempDir) throws -> (db: String, conf: String, times: [Int64]) {
        let db = dir.file("from-config.db")
        let start = (Timestamp.nowMicros() - 3 * 3_600_000_000) / 60_000_000 * 60_000_000
        let written = try UnsynchronisedClockStore.write(path: db, start: start, unsynchronised: 0, synchronised: 30)
        let conf = dir.file("blesensor-log.conf")
        try """
            # run's settings: export and the others take only db
            hci = hci0
            interval = 5m   # run's
            db = \(db)
            only = C0:FF:EE:00:00:01
            """.write(toFile: conf, atomically: true, encoding: .utf8)
        return (db, conf, Array(written.rows).sorted())
    }

    /// No search-path file of the machine's or the user's reaches these runs.
    static let noUserConfig = ["XDG_CONFIG_HOME": "/nonexistent-blesensor-config"]

    @Test func exportSummarySensorsAndReportUseTheFilesDatabase() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (_, conf, rows) = try Self.setUp(dir)
        let csv = try CLI.run(["export", "--csv", "--config", conf])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.stdout.split(separator: "\r\n").count == 1 + rows.count, "\(csv.stdout)")
        #expect(csv.stdout.split(separator: "\r\n").first == "time,address,alias,model,temperature_c")

        let summary = try CLI.run(["summary", "--since", "1d", "--format", "csv", "--config", conf])
        #expect(summary.stdout.contains("C0:FF:EE:00:00:01"), "\(summary.stdout) \(summary.stderr)")
        #expect(summary.status == 0 || summary.status == 1, "\(summary.stderr)")

        let sensors = try CLI.run(["sensors", "--config", conf])
        #expect(sensors.status == 0, "\(sensors.stderr)")
        #expect(sensors.stdout.contains("C0:FF:EE:00:00:01"), "\(sensors.stdout)")

        let html = dir.file("r.html")
        let report = try CLI.run(["report", "--html", html, "--config", conf])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(FileManager.default.fileExists(atPath: html))
    }

    @Test func theCommandLinesDatabaseWins() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (_, conf, _) = try Self.setUp(dir)
        let other = dir.file("other.db")
        let out = try CLI.run(["export", "--config", conf, "--db", other])
        #expect(out.status == 66, "\(out.stderr)")
        #expect(out.stderr.contains("no database at \(other)"), "\(out.stderr)")
        let summary = try CLI.run(["summary", "--db", other, "--config", conf])
        #expect(summary.status == 66 && summary.stderr.contains(other), "\(summary.stderr)")
    }

    @Test func theSearchPathFileIsReadWithoutConfig() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (_, conf, rows) = try Self.setUp(dir)
        try FileManager.default.createDirectory(atPath: dir.file("xdg/blesensor-log"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: conf, toPath: dir.file("xdg/blesensor-log/blesensor-log.conf"))
        let out = try CLI.run(["export", "--jsonl"], environment: ["XDG_CONFIG_HOME": dir.file("xdg")])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.lines.count == rows.count)
        // Without it, the default database (here: none) is what export looks for.
        let none = try CLI.run(["export"], environment: Self.noUserConfig.merging(["BLESENSOR_DB": dir.file("none.db")]) { $1 })
        #expect(none.status == 66, "\(none.stderr)")
    }

    @Test func aMalformedLineOrABadDatabaseValueIsStillAnErrorWithItsLine() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let conf = dir.file("b.conf")
        try "interval = 5m\nthis is prose\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let prose = try CLI.run(["export", "--config", conf])
        #expect(prose.status == 65, "\(prose.stderr)")
        #expect(prose.stderr.contains("\(conf):2: expected 'key = value'"), "\(prose.stderr)")

        try "intervl = 5m\ndb =\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let empty = try CLI.run(["summary", "--config", conf])
        #expect(empty.status == 64, "\(empty.stderr)")
        #expect(empty.stderr.contains("\(conf):2: 'db' needs a value"), "\(empty.stderr)")

        let missing = try CLI.run(["export", "--config", dir.file("absent.conf")])
        #expect(missing.status == 66, "\(missing.stderr)")
    }

    @Test func replayJSONLinesIgnoresTheFilesDatabase() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (_, conf, _) = try Self.setUp(dir)
        let cap = dir.file("synthetic.btsnoop")
        try SyntheticCapture().write(to: cap)
        let out = try CLI.run(["replay", cap, "--jsonl", "--config", conf])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(!out.lines.isEmpty)
        let both = try CLI.run(["replay", cap, "--jsonl", "--db", dir.file("x.db"), "--config", conf])
        #expect(both.status == 64, "an explicit --db still excludes --jsonl: \(both.stderr)")
    }
}
