import AdvScanner
import Foundation
import SensorDecode
import Testing

/// The logger's commands as processes: replay → export/summary/sensors, with the values checked
/// against what the capture carried and CSV parsed back by Python's csv module.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"),
       .serialized)
struct LoggerCommandsTests {
    let capture = SyntheticCapture()

    /// A database filled by `replay --interval 0` (every advertisement its own row).
    func makeDatabase(_ dir: TempDir, interval: String = "0") throws -> String {
        let cap = dir.file("synthetic.btsnoop")
        try capture.write(to: cap)
        let db = dir.file("readings.db")
        let out = try CLI.run(["replay", cap, "--db", db, "--interval", interval])
        try #require(out.status == 0, "replay failed: \(out.stderr)")
        return db
    }

    /// Parses CSV with Python's csv module (an independent RFC 4180 reader) into rows of cells.
    func parseCSV(_ text: String) throws -> [[String]] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import csv,sys,json; print(json.dumps(list(csv.reader(sys.stdin, strict=True))))"]
        let inPipe = Pipe(), outPipe = Pipe()
        p.standardInput = inPipe
        p.standardOutput = outPipe
        try p.run()
        inPipe.fileHandleForWriting.write(Data(text.utf8))
        try inPipe.fileHandleForWriting.close()
        let data = outPipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "python's csv module rejected the export")
        return try JSONSerialization.jsonObject(with: data) as! [[String]]
    }

    @Test func exportCSVParsesBackToExactlyWhatWasBroadcast() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try makeDatabase(dir)
        // Hostile aliases: formula starters, quotes, commas, a newline.
        for (addr, alias) in [(SyntheticCapture.minew, "=HYPERLINK(\"http://x\",\"y\")"), (SyntheticCapture.pvvx, "+1, \"two\"; three"),
                              (SyntheticCapture.lowBattery, "@SUM(A1)")] {
            let r = try CLI.run(["sensors", "alias", addr.description, alias, "--db", db])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let control = try CLI.run(["sensors", "alias", SyntheticCapture.pvvx.description, "a\nb", "--db", db])
        #expect(control.status == 64)  // an alias with a control character is refused, not stored
        let out = try CLI.run(["export", "--csv", "--db", db])
        #expect(out.status == 0, "\(out.stderr)")
        let rows = try parseCSV(out.stdout)
        let header = rows[0]
        #expect(Array(header.prefix(4)) == ["time", "address", "alias", "model"])
        #expect(Set(header.dropFirst(4)) == ["battery_pct", "humidity_pct", "temperature_c", "voltage_v"])
        #expect(rows.count - 1 == capture.samples.count)
        let col = Dictionary(uniqueKeysWithValues: header.enumerated().map { ($1, $0) })
        var byKey: [String: [String]] = [:]
        for r in rows.dropFirst() { byKey[r[1] + " " + r[0]] = r }
        for s in capture.samples {
            let time = Timestamp(micros: s.timeMicros)
            guard let r = byKey["\(s.address) \(time)"] else {
                Issue.record("no exported row for \(s.address) at \(time)")
                continue
            }
            for (k, v) in s.values {
                let cell = try #require(Double(r[col[k]!]), "\(k) cell '\(r[col[k]!])'")
                #expect(abs(cell - v) < 1e-9, "\(s.address) \(time) \(k): exported \(cell), broadcast \(v)")
            }
        }
        let aliases = Set(rows.dropFirst().map { $0[2] })
        #expect(aliases == ["'=HYPERLINK(\"http://x\",\"y\")", "'+1, \"two\"; three", "'@SUM(A1)"])
        #expect(rows.dropFirst().allSatisfy { $0[3] == "MM-BLEBC7" || $0[3].hasPrefix("LYWSD03MMC") || !$0[3].isEmpty })
        #expect(out.stdout.hasSuffix("\r\n"))
    }

    @Test func sinceIsInclusiveAndUntilExclusive() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try makeDatabase(dir)
        // Minew samples are at start + 10 s·i; pvvx ones 1 ms later.
        let since = Timestamp(micros: SyntheticCapture.start + 100_000_000)  // i = 10 exactly
        let until = Timestamp(micros: SyntheticCapture.start + 200_000_000)  // i = 20 exactly (excluded)
        let out = try CLI.run(["export", "--csv", "--db", db, "--since", since, "--until", until,
                               "--sensor", SyntheticCapture.minew.description])
        #expect(out.status == 0, "\(out.stderr)")
        let rows = try parseCSV(out.stdout).dropFirst()
        #expect(rows.count == 10)
        #expect(rows.first?[0] == since)
        #expect(rows.allSatisfy { $0[1] == SyntheticCapture.minew.description })
        #expect(!rows.contains { $0[0] == until })
        let jsonl = try CLI.run(["export", "--jsonl", "--db", db, "--since", since, "--until", until])
        #expect(CLI.jsonObjects(jsonl).count == 30)
    }

    @Test func exportLocalTimeCarriesTheOffset() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try makeDatabase(dir)
        let out = try CLI.run(["export", "--csv", "--local", "--db", db, "--sensor", SyntheticCapture.minew.description],
                              environment: ["TZ": "Europe/Berlin"])
        let rows = try parseCSV(out.stdout)
        #expect(rows[1][0] == "2026-01-01T01:00:00+01:00")
    }

    @Test(arguments: ["Asia/Kathmandu", "Australia/Eucla", "Pacific/Chatham"])  // +5:45, +8:45, +13:45: the 20 min cross a local hour
    func exportLocalTimesAreTheUTCTimesConvertedByPython(zone: String) throws {
        // Export writes a time's date-and-hour once per local hour: every row, across hour
        // boundaries (half-hour zones move them), with and without microseconds, must still read
        // exactly what Python's zoneinfo makes of the UTC time.
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try makeDatabase(dir)
        let utc = try parseCSV(try CLI.run(["export", "--csv", "--db", db]).stdout).dropFirst().map { $0[0] }
        let local = try parseCSV(try CLI.run(["export", "--csv", "--local", "--db", db], environment: ["TZ": zone]).stdout)
            .dropFirst().map { $0[0] }
        #expect(utc.count == local.count && utc.count > 10)
        #expect(utc.contains { $0.contains(".") } && utc.contains { !$0.contains(".") })
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", """
            import sys, datetime, zoneinfo
            z = zoneinfo.ZoneInfo(sys.argv[1])
            for line in sys.stdin.read().split():
                print(datetime.datetime.fromisoformat(line.replace("Z", "+00:00")).astimezone(z).isoformat())
            """, zone]
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        input.fileHandleForWriting.write(Data(utc.joined(separator: "\n").utf8))
        try input.fileHandleForWriting.close()
        let expected = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        p.waitUntilExit()
        #expect(local == expected)
        #expect(Set(local.map { $0.prefix(13) }).count >= 2, "the rows span one local hour only")
    }

    @Test func summaryEqualsStatisticsComputedFromTheBroadcastValues() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try makeDatabase(dir)
        let out = try CLI.run(["summary", "--since", "2025-12-31T00:00:00Z", "--until", "2026-01-02T00:00:00Z",
                               "--format", "json", "--db", db])
        #expect(out.status == 1)  // the data is old (stale) and one battery is at 9 %
        let objs = CLI.jsonObjects(out)
        #expect(objs.count == 3)
        for obj in objs {
            let address = try #require(obj["address"] as? String)
            let mine = capture.samples.filter { $0.address.description == address }
            #expect(obj["samples"] as? Int == mine.count)
            let quantities = try #require(obj["quantities"] as? [String: [String: Any]])
            for key in ["temperature_c", "humidity_pct"] {
                let values = mine.compactMap { $0.values[key] }
                let q = try #require(quantities[key], "\(address) \(key)")
                #expect(abs((q["min"] as! Double) - values.min()!) < 1e-9)
                #expect(abs((q["max"] as! Double) - values.max()!) < 1e-9)
                #expect(abs((q["mean"] as! Double) - values.reduce(0, +) / Double(values.count)) < 1e-9)
                #expect(abs((q["last"] as! Double) - values.last!) < 1e-9)
                #expect(q["samples"] as? Int == values.count)
            }
            let flags = obj["flags"] as? [String] ?? []
            #expect(flags.contains("stale"))
            #expect(flags.contains("low-battery") == (address == SyntheticCapture.lowBattery.description))
        }
    }

    @Test func summaryExitsZeroWhenNothingIsFlagged() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try makeDatabase(dir)
        let ok = try CLI.run(["summary", "--since", "2025-12-31", "--stale", "100000d", "--battery-below", "5",
                              "--sensor", SyntheticCapture.minew.description, "--db", db])
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        #expect(ok.stdout.contains("temperature_c"))
        let low = try CLI.run(["summary", "--since", "2025-12-31", "--stale", "100000d", "--battery-below", "10", "--db", db])
        #expect(low.status == 1)
        #expect(low.stdout.contains("LOW-BATTERY"))
        let byHour = try CLI.run(["summary", "--since", "2025-12-31", "--by", "hour", "--format", "csv", "--stale", "100000d",
                                  "--battery-below", "5", "--db", db])
        #expect(byHour.status == 0)
        #expect(byHour.stdout.contains("2026-01-01T00:00:00Z,A4:C1:38:BC:07:01"))
    }

    @Test func sensorsListAliasForget() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try makeDatabase(dir)
        let list = try CLI.run(["sensors", "--json", "--db", db])
        #expect(list.status == 0)
        let objs = CLI.jsonObjects(list)
        #expect(Set(objs.compactMap { $0["address"] as? String })
            == Set([SyntheticCapture.minew, SyntheticCapture.pvvx, SyntheticCapture.lowBattery].map(\.description)))
        let minew = try #require(objs.first { $0["address"] as? String == SyntheticCapture.minew.description })
        #expect(minew["name"] as? String == "=1+2,\"x\"\\x0a")  // radio text escaped
        #expect(try CLI.run(["sensors", "alias", SyntheticCapture.pvvx.description, "shed", "--db", db]).status == 0)
        let byAlias = try CLI.run(["export", "--csv", "--sensor", "shed", "--db", db])
        #expect(byAlias.status == 0)
        #expect(try parseCSV(byAlias.stdout).count == 121)
        let forget = try CLI.run(["sensors", "forget", "shed", "--db", db])
        #expect(forget.status == 0, "\(forget.stderr)")
        #expect(CLI.jsonObjects(try CLI.run(["sensors", "--json", "--db", db])).count == 2)
        let unknown = try CLI.run(["export", "--sensor", "shed", "--db", db])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("shed"))
    }

    @Test func keysAreStoredOwnerOnlyAndNeverPrinted() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("k/readings.db")
        let key = "231d39c1d7cc1ab1aee224cd096db932"
        let set = try CLI.run(["sensors", "key", "54:48:E6:8F:80:A5", key, "--db", db])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(!set.stdout.contains(key) && !set.stderr.contains(key))
        let attrs = try FileManager.default.attributesOfItem(atPath: dir.file("k/keys"))
        #expect((attrs[.posixPermissions] as? Int) == 0o600)
        #expect(try CLI.run(["sensors", "key", "54:48:E6:8F:80:A5", "--remove", "--db", db]).status == 0)
        #expect(!(try String(contentsOfFile: dir.file("k/keys"), encoding: .utf8)).contains("54:48:E6:8F:80:A5"))
    }

    @Test func replayIntervalFoldsIntoOneRowPerMinuteWithTheMean() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try makeDatabase(dir, interval: "60s")
        let out = try CLI.run(["export", "--jsonl", "--sensor", SyntheticCapture.minew.description, "--db", db])
        let rows = CLI.jsonObjects(out)
        #expect(rows.count == 20)  // 20 minutes
        let first = capture.samples.filter { $0.address == SyntheticCapture.minew }.prefix(6)
        let mean = first.map { $0.values["temperature_c"]! }.reduce(0, +) / 6
        #expect(abs((rows[0]["temperature_c"] as! Double) - mean) < 1e-9)
        #expect(rows[0]["samples"] as? Int == 6)
        #expect(rows.contains { ($0["temperature_c"] as! Double) < 0 })
    }

    @Test func aCaptureStampedAnyTimeAtAllIsReplayedWithoutATrap() throws {
        // Capture time stamps wrap rather than trap, so a corrupt file can carry any Int64 time:
        // the store keeps the plausible readings and says once that it skipped the others.
        let dir = try TempDir()
        defer { dir.cleanup() }
        let cap = dir.file("stamps.btsnoop")
        let ad = SyntheticCapture.minewAD(2150, humidity: 40, battery: 90, name: [])
        try SyntheticCapture.write(cap, [Int64.min, .min + 5, -1, SyntheticCapture.start, .max - 1, .max].map { (SyntheticCapture.minew, ad, $0) })
        let db = dir.file("readings.db")
        let out = try CLI.run(["replay", cap, "--db", db, "--interval", "0"])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.components(separatedBy: "not stored").count == 2, "\(out.stderr)")
        let rows = CLI.jsonObjects(try CLI.run(["export", "--jsonl", "--db", db]))
        #expect(rows.count == 1)
    }

    @Test func aReplayCommitsOnTheCapturesClockAsALiveRunWould() throws {
        // The capture holds 120 groups of readings 10 s apart (20 minutes). The logger commits what
        // is pending once it is 10 minutes old, checked every second: twice (after 10 minutes, and
        // the rest at the end), not once at the end and not once per group.
        let dir = try TempDir()
        defer { dir.cleanup() }
        let cap = dir.file("synthetic.btsnoop")
        try capture.write(to: cap)
        let out = try CLI.run(["replay", cap, "--db", dir.file("readings.db"), "--interval", "0"])
        try #require(out.status == 0, "replay failed: \(out.stderr)")
        let commits = out.stderr.split(separator: " commits").first.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) }
        #expect(commits == 2, "\(out.stderr)")
    }

    @Test func replayingTwiceStoresNothingTwice() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try makeDatabase(dir)
        let again = try CLI.run(["replay", dir.file("synthetic.btsnoop"), "--db", db, "--interval", "0"])
        #expect(again.status == 0)
        let out = try CLI.run(["export", "--csv", "--db", db])
        #expect(try parseCSV(out.stdout).count - 1 == capture.samples.count)
    }
}

/// ISO 8601 in UTC, as export prints it (the test's own formatter, independent of the binary's).
func Timestamp(micros: Int64) -> String {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime]
    f.timeZone = TimeZone(identifier: "UTC")
    let date = Date(timeIntervalSince1970: Double(micros) / 1e6)
    var s = f.string(from: date)
    let frac = micros % 1_000_000
    if frac != 0 { s = String(s.dropLast()) + String(format: ".%06d", frac) + "Z" }
    return s
}

/// Keys through the real binary: the key file decrypts BTHome v2 frames in `replay`, and a wrong
/// key gives one warning for the device, not one per frame.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct DeviceKeyTests {
    /// The bthome.io encryption example (key 231d39c1…, MAC 54:48:E6:8F:80:A5): 25.06 °C, 50.55 %.
    static let mac = BDAddress("54:48:E6:8F:80:A5")!
    static let ad = Hex.decode("0201061216d2fc41a47266c95f730011223378237214")!

    func capture(_ dir: TempDir, frames: Int) throws -> String {
        let path = dir.file("bthome.btsnoop")
        try SyntheticCapture.write(path, (0..<frames).map { (Self.mac, Self.ad, SyntheticCapture.start + Int64($0) * 5_000_000) })
        return path
    }

    @Test func theRightKeyDecryptsAndAWrongOneWarnsOnce() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let cap = try capture(dir, frames: 20)
        let db = dir.file("r.db")
        let none = try CLI.run(["replay", cap, "--jsonl"], environment: ["BLESENSOR_DB": db])
        #expect(none.status == 0)
        #expect(CLI.jsonObjects(none).allSatisfy { $0["temperature_c"] == nil })  // no key: named, not decoded

        #expect(try CLI.run(["sensors", "key", Self.mac.description, "231d39c1d7cc1ab1aee224cd096db932", "--db", db]).status == 0)
        let good = try CLI.run(["replay", cap, "--jsonl"], environment: ["BLESENSOR_DB": db])
        let objs = CLI.jsonObjects(good)
        #expect(objs.count == 20)
        #expect(objs.allSatisfy { ($0["temperature_c"] as? Double).map { abs($0 - 25.06) < 1e-9 } ?? false })
        #expect(!good.stdout.contains("231d39c1") && !good.stderr.contains("231d39c1"))

        #expect(try CLI.run(["sensors", "key", Self.mac.description, "231d39c1d7cc1ab1aee224cd096db933", "--db", db]).status == 0)
        let wrong = try CLI.run(["replay", cap, "--jsonl"], environment: ["BLESENSOR_DB": db])
        #expect(wrong.status == 0)
        #expect(wrong.stdout.isEmpty)
        let warnings = wrong.stderr.split(separator: "\n").filter { $0.contains(Self.mac.description) }
        #expect(warnings.count == 1, "\(wrong.stderr)")
    }
}
