import AdvScanner
import Foundation
import SensorDecode
import Testing

/// What a hostile or careless user can hand the binary — absurd flags, endless or odd input,
/// signals — answered with a one-line error and a sysexits code, never a trap, and never at the
/// cost of what is already stored.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct HostileInputTests {
    /// The synthetic capture written to `dir` and replayed (with `options`) into a new database
    /// there, which the test requires to succeed.
    static func replayedCapture(in dir: TempDir, options: [String] = []) throws -> (capture: String, db: String) {
        let cap = dir.file("c.btsnoop")
        try SyntheticCapture().write(to: cap)
        let db = dir.file("readings.db")
        let replay = try CLI.run(["replay", cap, "--db", db] + options)
        try #require(replay.status == 0, "\(replay.stderr)")
        return (cap, db)
    }

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
        let (cap, db) = try Self.replayedCapture(in: dir)
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
        let (_, db) = try Self.replayedCapture(in: dir, options: ["--keep", "1000000d"])
        let all = try CLI.run(["export", "--csv", "--db", db])
        let since = try CLI.run(["export", "--csv", "--db", db, "--since", "1000000d"])
        #expect(since.status == 0, "\(since.stderr)")
        #expect(since.stdout == all.stdout && since.stdout.count > 1000)
        let summary = try CLI.run(["summary", "--db", db, "--since", "1000000d", "--stale", "1000000d", "--battery-below", "0"])
        #expect(summary.status == 0, "\(summary.stderr)")
    }

    // MARK: - Decode input

    /// Peak RSS in KiB from `/usr/bin/time -v`'s report on standard error.
    static func peakKiB(_ stderr: String) -> Int? {
        guard let line = stderr.split(separator: "\n").first(where: { $0.contains("Maximum resident set size") }) else { return nil }
        return Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces))
    }

    static var hasTime: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/time") }

    @Test(.enabled(if: hasTime, "needs /usr/bin/time to measure peak memory"))
    func anEndlessLineIsRejectedInBoundedMemory() throws {
        // 64 MiB without a newline (as `< /dev/zero` gives without end), then a good line: the
        // long one is one error, the next is still decoded, and memory stays far below the input.
        let good = "11:22:33:44:55:66 020106 0303e1ff 1016e1ff a10164ff803200 665544332211"
        let input = String(repeating: "\0", count: 64 << 20) + "\n" + good + "\n"
        let out = try CLI.run(["decode"], stdin: input, through: ["/usr/bin/time", "-v"])
        #expect(out.status == 65, "\(out.stderr.prefix(300))")
        let lines = out.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("line 1: longer than") == true, "\(out.stderr.prefix(300))")
        #expect(CLI.jsonObjects(out).count == 1)
        let peak = try #require(Self.peakKiB(out.stderr), "\(out.stderr.suffix(500))")
        #expect(peak < 32 << 10, "decode peaked at \(peak) KiB")
    }

    @Test func aTrailingCommentIsAComment() throws {
        let ad = "11:22:33:44:55:66 020106 0303e1ff 1016e1ff a10164ff803200 665544332211"
        let out = try CLI.run(["decode"], stdin: "# a whole-line comment\n\(ad)  # the issue's example\n\(ad)#tight\n")
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.isEmpty)
        #expect(CLI.jsonObjects(out).count == 2)
    }

    @Test func controlBytesOfTheInputAreEscapedInMessages() throws {
        // A 17-character token with ':' is taken for an address; ESC and BEL must not reach the
        // terminal raw, nor a forged line break split the message.
        let token = "\u{1B}[2J:\u{07}:\u{1B}]0;pwnd!\u{07}"
        try #require(token.count == 17)
        let out = try CLI.run(["decode"], stdin: token + " 0201\n" + "11:22:33:44:55:66 02\r01\u{1B}\n")
        #expect(out.status == 65)
        #expect(!out.stderr.utf8.contains { $0 < 0x20 && $0 != 10 }, "\(Array(out.stderr.utf8))")
        #expect(out.stderr.contains("\\x1b[2J:\\x07"), "\(out.stderr)")
        #expect(out.stderr.split(separator: "\n").count == 2, "\(out.stderr)")
        // Arguments are input too.
        let arg = try CLI.run(["export", "--since", "x\u{1B}[31m\ny"])
        #expect(arg.status == 64)
        #expect(!arg.stderr.utf8.contains { $0 < 0x20 && $0 != 10 } && arg.stderr.contains("x\\x1b[31m\\x0ay"), "\(arg.stderr)")
    }

    // MARK: - Captures

    @Test func aCaptureErrorNamesTheFileOnce() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let garbage = dir.file("t.cap")
        try Data("garbage, no capture at all".utf8).write(to: URL(fileURLWithPath: garbage))
        let good = dir.file("good.btsnoop")
        try SyntheticCapture().write(to: good)
        let cut = dir.file("cut.btsnoop")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        try bytes.prefix(bytes.count - 3).write(to: URL(fileURLWithPath: cut))
        for (path, code) in [(garbage, Int32(65)), (cut, 65), (dir.file("none.cap"), 66), (dir.path, 66)] {
            let out = try CLI.run(["replay", path, "--db", dir.file("r.db")])
            #expect(out.status == code, "\(path): \(out.stderr)")
            let error = try #require(out.stderr.split(separator: "\n").first { $0.hasPrefix("Error: ") }, "\(out.stderr)")
            #expect(error.components(separatedBy: path).count == 2, "\(error)")
        }
    }

    /// A pcap file (link type 201, µs) of one legacy advertising report per record.
    static func pcap(fractions: [UInt32]) -> Data {
        func le32(_ v: UInt32) -> [UInt8] { [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: v >> UInt32($0)) } }
        var out: [UInt8] = le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65535) + le32(201)
        let ad = SyntheticCapture.pvvxAD(SyntheticCapture.pvvx, tempCenti: 2100, humidityCenti: 5000, battery: 80)
        let body: [UInt8] = [0, 0, 0, 1, 0x04] + SyntheticCapture.event(SyntheticCapture.pvvx, ad)
        for (i, f) in fractions.enumerated() {
            out += le32(UInt32(SyntheticCapture.start / 1_000_000) + UInt32(i) * 60) + le32(f) + le32(UInt32(body.count))
                + le32(UInt32(body.count)) + body
        }
        return Data(out)
    }

    @Test func aPcapMicrosecondFieldOfASecondOrMoreIsMalformed() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let good = dir.file("good.pcap")
        try Self.pcap(fractions: [0, 999_999, 5]).write(to: URL(fileURLWithPath: good))
        let ok = try CLI.run(["replay", good, "--db", dir.file("good.db"), "--interval", "0"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let bad = dir.file("bad.pcap")
        try Self.pcap(fractions: [0, 1_000_000, 5]).write(to: URL(fileURLWithPath: bad))
        let db = dir.file("bad.db")
        let out = try CLI.run(["replay", bad, "--db", db, "--interval", "0"])
        #expect(out.status == 65, "\(out.stderr)")
        #expect(out.stderr.contains("microsecond field 1000000"), "\(out.stderr)")
        // What came before the damage is stored.
        #expect(CLI.jsonObjects(try CLI.run(["export", "--jsonl", "--db", db])).count == 1)
    }

    // MARK: - Output files

    @Test func aReportOntoAFullDeviceIs74AndTheDeviceStays() throws {
        // Through a link, so that the unfixed binary, which renamed a file over its target,
        // replaces the link and not /dev/full itself.
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (_, db) = try Self.replayedCapture(in: dir)
        let page = dir.file("index.html")
        try FileManager.default.createSymbolicLink(atPath: page, withDestinationPath: "/dev/full")
        let out = try CLI.run(["report", "--html", page, "--db", db])
        #expect(out.status == 74, "\(out.stderr)")
        #expect(out.stderr == "Error: cannot write \(page): No space left on device\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: page) == "/dev/full")
    }

    // MARK: - CSV numbers

    @Test func exportedMeansCarryNoFloatNoise() throws {
        // The pvvx sensor's humidity is 45.67 in every advertisement: a minute's mean of six
        // of them is 45.67000000000001 as a double, and must print as 45.67.
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (_, db) = try Self.replayedCapture(in: dir, options: ["--interval", "60s"])
        let csv = try CLI.run(["export", "--csv", "--db", db, "--sensor", SyntheticCapture.pvvx.description])
        let rows = csv.stdout.split(separator: "\r\n").dropFirst()
        #expect(rows.count == 20)
        let header = csv.stdout.split(separator: "\r\n").first!.split(separator: ",", omittingEmptySubsequences: false)
        let column = try #require(header.firstIndex(of: "humidity_pct"))
        for row in rows {
            #expect(row.split(separator: ",", omittingEmptySubsequences: false)[column] == "45.67", "\(row)")
        }
        let jsonl = try CLI.run(["export", "--jsonl", "--db", db, "--sensor", SyntheticCapture.pvvx.description])
        #expect(jsonl.stdout.components(separatedBy: "\"humidity_pct\":45.67,").count == 21, "\(jsonl.stdout.prefix(400))")
    }

    // MARK: - Replay and signals

    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func aSignalledReplayCommitsWhatItHasAndExitsZero(_ signal: Int32) throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        // 400,000 readings, far more than the replay gets through before the signal.
        let cap = dir.file("long.btsnoop")
        let w = try CaptureWriter(path: cap)
        let ad = SyntheticCapture.pvvxAD(SyntheticCapture.pvvx, tempCenti: 2100, humidityCenti: 5000, battery: 80)
        let event = SyntheticCapture.event(SyntheticCapture.pvvx, ad)
        for i in 0..<400_000 {
            try w.write(HCIPacket(type: .event, bytes: event, incoming: true, timeMicros: SyntheticCapture.start + Int64(i) * 100_000))
        }
        try w.close()
        let db = dir.file("readings.db")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["replay", cap, "--db", db, "--interval", "0", "-v"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        // -v logs each reading: once one is logged, the replay is under way.
        var seen = Data()
        while !seen.contains(UInt8(ascii: "{")) {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        try #require(p.isRunning, "the replay ended before the signal: \(String(decoding: seen, as: UTF8.self).suffix(300))")
        kill(p.processIdentifier, signal)
        let rest = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let stderr = String(decoding: seen + rest, as: UTF8.self)
        let summary = stderr.split(separator: "\n").filter { !$0.contains("{") }.joined(separator: "\n")
        #expect(p.terminationReason == .exit && p.terminationStatus == 0, "\(p.terminationStatus): \(summary)")
        #expect(summary.contains("stopped by a signal after"), "\(summary)")
        // Every row it says it stored is there, and it did not get through the whole capture.
        let stored = summary.components(separatedBy: " rows stored").first?.split(separator: " ").last.flatMap { Int($0) }
        let rows = CLI.jsonObjects(try CLI.run(["export", "--jsonl", "--db", db])).count
        #expect(rows > 0 && rows < 400_000 && stored == rows, "\(rows) rows; \(summary)")
    }

    // MARK: - Many sensors

    /// A database of `count` sensors with one reading each, as spoofed random addresses make:
    /// one replayed reading, its sensor, row and rollup cloned in SQL (so every row is the
    /// store's own encoding and the rollups match the rows).
    static func manySensors(_ count: Int, in dir: TempDir) throws -> String {
        let cap = dir.file("one.btsnoop")
        let ad = SyntheticCapture.pvvxAD(SyntheticCapture.pvvx, tempCenti: 2100, humidityCenti: 5000, battery: 80)
        try SyntheticCapture.write(cap, [(SyntheticCapture.pvvx, ad, SyntheticCapture.start)])
        let db = dir.file("many.db")
        try #require(try CLI.run(["replay", cap, "--db", db]).status == 0)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1]); n = int(sys.argv[2])
            k = "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < ?) "
            c.execute(k + "INSERT INTO sensors SELECT id + n, address + n * 16777216, address_type, decoder_id, model, "
                      "NULL, radio_name, first_seen_us, last_seen_us, last_battery_pct, last_rssi_dbm FROM sensors, k", (n - 1,))
            c.execute(k + "INSERT INTO readings (time_us, sensor_id, samples, data) SELECT time_us, sensor_id + n, samples, data FROM readings, k", (n - 1,))
            c.execute(k + "INSERT INTO rollup_hourly SELECT hour, sensor_id + n, n_rows, n_samples, last_time_us, stats "
                      "FROM rollup_hourly, k", (n - 1,))
            c.commit()
            """, db, String(count)]
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0)
        return db
    }

    @Test(.enabled(if: hasTime, "needs /usr/bin/time to measure peak memory"))
    func readersStreamSensorsInBoundedMemory() throws {
        // 100,000 sensors: main's readers held them all (here summary peaked at 149 MiB, export
        // at 83 MiB); streamed, each stays near its fixed cost (about 17 MiB) whatever the number.
        let dir = try TempDir()
        defer { dir.cleanup() }
        let count = 100_000
        let db = try Self.manySensors(count, in: dir)
        for (args, lines) in [
            (["sensors"], count + 1), (["export", "--csv"], count + 1),
            (["summary", "--since", "2025-12-31", "--format", "csv"], 4 * count + 1),
        ] {
            let out = try CLI.run(args + ["--db", db], through: ["/usr/bin/time", "-v"])
            #expect([0, 1].contains(out.status), "\(args): \(out.stderr.prefix(300))")
            #expect(out.stdout.utf8.reduce(0) { $1 == 10 ? $0 + 1 : $0 } == lines, "\(args)")
            let peak = try #require(Self.peakKiB(out.stderr), "\(out.stderr.suffix(300))")
            #expect(peak < 24 << 10, "\(args) peaked at \(peak) KiB")
        }
    }
}
