import AdvScanner
import Foundation
import SensorDecode
import TestSupport
import Testing

/// Issue 23's data-loss repros through the real binary: retention anchored on the current time
/// (item 1), a second row for a stored interval merged (item 2), a full disk (item 6).
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"),
       .serialized)
struct StoreDataLossTests {
    /// A Minew sensor's readings at `times`, the temperature of each `temperature(i)` centi-°C.
    static func capture(_ path: String, times: [Int64], temperature: (Int) -> Int = { 2000 + $0 % 50 }) throws {
        try SyntheticCapture.write(path, times.enumerated().map { i, t in
            (SyntheticCapture.minew, SyntheticCapture.minewAD(temperature(i), humidity: 50, battery: 90, name: []), t)
        })
    }

    /// The temperature Minew's frame carries for `centi` (1/256 °C steps).
    static func decoded(_ centi: Int) -> Double { Double(Int16(centi * 256 / 100)) / 256 }

    static func nowMicros() -> Int64 { Int64(Date().timeIntervalSince1970 * 1e6) }

    func export(_ db: String) throws -> [[String: Any]] {
        let out = try CLI.run(["export", "--jsonl", "--db", db])
        #expect(out.status == 0, "\(out.stderr)")
        return CLI.jsonObjects(out)
    }

    /// Rows `export --csv` prints (cheaper than parsing JSON for large stores).
    func rowCount(_ db: String) throws -> Int {
        let out = try CLI.run(["export", "--csv", "--db", db])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.hasPrefix("time,"), "\(out.stdout.prefix(200))")
        // Records end in CRLF, one grapheme to Swift: count the bytes.
        return out.stdout.utf8.reduce(0) { $0 + ($1 == 10 ? 1 : 0) } - 1
    }

    func replay(_ args: [String]) throws -> CLI.Output {
        let out = try CLI.run(["replay"] + args)
        #expect(out.status == 0, "replay \(args): \(out.stderr)")
        return out
    }

    // MARK: - Item 1

    @Test func aFutureStampedReadingWithKeepNeitherDeletesNorHidesTheHistory() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let now = Self.nowMicros()
        // A week of readings every 10 minutes, ending an hour ago.
        let week = (0..<1008).map { now - 3_600_000_000 - Int64(1007 - $0) * 600_000_000 }
        try Self.capture(dir.file("week.btsnoop"), times: week)
        try Self.capture(dir.file("2100.btsnoop"), times: [4_102_444_800_000_000])  // 2100-01-01
        let db = dir.file("d.db")
        _ = try replay([dir.file("week.btsnoop"), "--db", db, "--interval", "0"])
        let future = try replay([dir.file("2100.btsnoop"), "--db", db, "--keep", "400d", "--interval", "0"])
        #expect(future.stderr.contains("rejected"), "\(future.stderr)")
        _ = try replay([dir.file("week.btsnoop"), "--db", db, "--interval", "0"])
        let rows = try export(db)
        #expect(rows.count == week.count)
        let summary = try CLI.run(["summary", "--format", "json", "--since", "30d", "--db", db])
        #expect(!summary.stdout.contains("2100-"), "\(summary.stdout)")
    }

    // MARK: - Item 2

    /// The start of the hour two days before now (so every time is in the past, inside any retention).
    static func hourTwoDaysAgo() -> Int64 {
        let h: Int64 = 3_600_000_000
        return (nowMicros() - 48 * h) / h * h
    }

    func samples(_ rows: [[String: Any]]) -> Int { rows.reduce(0) { $0 + ($1["samples"] as? Int ?? 0) } }

    @Test func aDayWithOneHourIntervalsReplayedInTwoHalvesKeepsEverySampleAndTheMean() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let start = Self.hourTwoDaysAgo()
        let times = (0..<8640).map { start + Int64($0) * 10_000_000 }  // a day, every 10 s
        let temperature = { (i: Int) in 1500 + (i * 37) % 1000 }
        // Split in the middle of an hour: 12 h 30 min.
        try Self.capture(dir.file("a.btsnoop"), times: Array(times[..<4500]), temperature: temperature)
        try Self.capture(dir.file("b.btsnoop"), times: Array(times[4500...]),
                         temperature: { temperature($0 + 4500) })
        let db = dir.file("d.db")
        for part in ["a", "b", "a", "b"] {  // and each half again: a replay adds nothing
            _ = try replay([dir.file("\(part).btsnoop"), "--db", db, "--interval", "1h"])
        }
        let rows = try export(db)
        #expect(rows.count == 24)
        #expect(samples(rows) == 8640)
        for (h, row) in rows.enumerated() {
            let hour = (h * 360)..<((h + 1) * 360)
            let mean = hour.map { Self.decoded(temperature($0)) }.reduce(0, +) / 360
            #expect(abs((row["temperature_c"] as? Double ?? .nan) - mean) < 1e-9, "hour \(h): \(row)")
        }
    }

    @Test(arguments: ["joined", "reversed"])
    func aCaptureWhoseTimesGoBackwardsKeepsEverySample(_ order: String) throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let start = Self.hourTwoDaysAgo()
        let forward = (0..<900).map { start + Int64($0) * 2_000_000 }  // 30 minutes, every 2 s
        // Two captures joined end to end, the later period first; or every stamp going backwards.
        let times = order == "joined" ? Array(forward[450...] + forward[..<450]) : forward.reversed()
        try Self.capture(dir.file("back.btsnoop"), times: times, temperature: { 2000 + $0 % 97 })
        let db = dir.file("d.db")
        _ = try replay([dir.file("back.btsnoop"), "--db", db])
        _ = try replay([dir.file("back.btsnoop"), "--db", db])
        let rows = try export(db)
        #expect(rows.count == 30)
        #expect(samples(rows) == 900)
    }

    @Test func aTruncatedCaptureAndThenTheFullOneKeepTheWholeLastInterval() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let start = Self.hourTwoDaysAgo()
        let times = (0..<1200).map { start + Int64($0) * 500_000 }  // 10 minutes, 120 a minute
        try Self.capture(dir.file("full.btsnoop"), times: times)
        try Self.capture(dir.file("cut.btsnoop"), times: Array(times[..<(4 * 120 + 35)]))
        let db = dir.file("d.db")
        _ = try replay([dir.file("cut.btsnoop"), "--db", db])
        #expect(samples(try export(db)) == 4 * 120 + 35)
        _ = try replay([dir.file("full.btsnoop"), "--db", db])
        _ = try replay([dir.file("cut.btsnoop"), "--db", db])
        let rows = try export(db)
        #expect(rows.count == 10)
        #expect(rows.map { $0["samples"] as? Int ?? 0 } == Array(repeating: 120, count: 10))
    }

    // MARK: - Item 6

    /// A 320 KiB tmpfs at `dir/mnt` (a real ENOSPC; `readOnly`: a real EROFS), or `nil` where
    /// mounting is not allowed.
    static func smallFilesystem(_ dir: TempDir, readOnly: Bool = false) throws -> String? {
        let mnt = dir.file("mnt")
        try FileManager.default.createDirectory(atPath: mnt, withIntermediateDirectories: true)
        guard system("/bin/mount", ["-t", "tmpfs", "-o", readOnly ? "ro,size=320k" : "size=320k", "tmpfs", mnt]) == 0 else {
            print("skipped: cannot mount a tmpfs here (needs root)")
            return nil
        }
        return mnt
    }

    /// `n` readings a second apart, ending an hour ago.
    static func readings(_ n: Int) -> [Int64] {
        let end = nowMicros() - 3_600_000_000
        return (0..<n).map { end - Int64(n - $0) * 1_000_000 }
    }

    /// The number in "…, N failed commit attempts" of replay's summary line.
    static func failedAttempts(_ stderr: String) -> Int? {
        guard let r = stderr.range(of: " failed commit attempts") else { return nil }
        return Int(stderr[..<r.lowerBound].split(separator: " ").last ?? "")
    }

    @Test func aFullDiskMakesAFewAttemptsAndAReplayAgainStoresTheRest() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        guard let mnt = try Self.smallFilesystem(dir) else { return }
        defer { _ = system("/bin/umount", [mnt]) }
        let times = Self.readings(24_000)  // 6.7 h of capture time, a retry every 5 s of it before
        try Self.capture(dir.file("day.btsnoop"), times: times)
        let db = mnt + "/d.db"
        let full = try CLI.run(["replay", dir.file("day.btsnoop"), "--db", db, "--interval", "0"])
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr.contains("full"), "\(full.stderr)")
        let attempts = Self.failedAttempts(full.stderr)
        #expect(attempts.map { (1...6).contains($0) } == true, "\(full.stderr)")
        #expect(system("/bin/mount", ["-o", "remount,size=64m", mnt]) == 0)
        _ = try replay([dir.file("day.btsnoop"), "--db", db, "--interval", "0"])
        let stored = try rowCount(db)
        #expect(stored == times.count)
    }

    @Test func atThePendingBoundAReplayStopsAndDropsNothing() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        guard let mnt = try Self.smallFilesystem(dir) else { return }
        defer { _ = system("/bin/umount", [mnt]) }
        let times = Self.readings(110_000)  // more than the 100,000 rows the store keeps pending
        try Self.capture(dir.file("long.btsnoop"), times: times)
        let db = mnt + "/d.db"
        let full = try CLI.run(["replay", dir.file("long.btsnoop"), "--db", db, "--interval", "0"])
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr.contains("stopped at packet"), "\(full.stderr)")
        #expect(!full.stderr.contains("dropped"), "\(full.stderr)")
        #expect(system("/bin/mount", ["-o", "remount,size=64m", mnt]) == 0)
        _ = try replay([dir.file("long.btsnoop"), "--db", db, "--interval", "0"])
        let stored = try rowCount(db)
        #expect(stored == times.count)
    }

    // MARK: - Item 7 (the store's part)

    @Test func aCrowdOfSpoofedAddressesGetsTheHoursCapOfSensors() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let start = Self.hourTwoDaysAgo()
        let w = try CaptureWriter(path: dir.file("crowd.btsnoop"))
        for i in 0..<2000 {
            let address = BDAddress(rawValue: 0xA4C1_3800_0000 + UInt64(i))
            let ad = SyntheticCapture.pvvxAD(address, tempCenti: 2000, humidityCenti: 5000, battery: 80)
            try w.write(HCIPacket(type: .event, bytes: SyntheticCapture.event(address, ad), incoming: true,
                                  timeMicros: start + Int64(i) * 100_000))
        }
        try w.close()
        let db = dir.file("d.db")
        let out = try replay([dir.file("crowd.btsnoop"), "--db", db])
        #expect(out.stderr.contains("new sensors"), "\(out.stderr)")
        #expect(Set(try export(db).map { $0["address"] as? String ?? "" }).count == 256)
        let few = dir.file("few.db")
        _ = try replay([dir.file("crowd.btsnoop"), "--db", few, "--max-new-sensors", "5"])
        #expect(Set(try export(few).map { $0["address"] as? String ?? "" }).count == 5)
        // Known sensors are always stored, even with no room for new ones: the first, heard again
        // two hours later, next to a stranger.
        let w2 = try CaptureWriter(path: dir.file("later.btsnoop"))
        for (k, raw) in [UInt64(0xA4C1_3800_0000), 0xA4C1_3800_9999].enumerated() {
            let address = BDAddress(rawValue: raw)
            let ad = SyntheticCapture.pvvxAD(address, tempCenti: 2100, humidityCenti: 5000, battery: 80)
            try w2.write(HCIPacket(type: .event, bytes: SyntheticCapture.event(address, ad), incoming: true,
                                   timeMicros: start + 7_200_000_000 + Int64(k)))
        }
        try w2.close()
        let before = try export(few).count
        _ = try replay([dir.file("later.btsnoop"), "--db", few, "--max-new-sensors", "0"])
        let after = try export(few)
        #expect(after.count == before + 1)
        #expect(Set(after.map { $0["address"] as? String ?? "" }).count == 5)
    }
}
