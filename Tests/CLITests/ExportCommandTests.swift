import Foundation
import Testing

@testable import blesensor_log

/// `export` over rows stamped while the clock was not synchronised (`clock_unsynced`): one line
/// on stderr says how many and when, the CSV keeps its columns, JSON lines flag each such row.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct ExportUnsynchronisedClockTests {
    static func iso(_ micros: Int64) -> String { Timestamp.iso8601(micros: micros, localOffsetSeconds: nil) }

    /// Three hours ago: 15 readings stored flagged, then 30 after the clock synced.
    static func flaggedStore(_ dir: TempDir) throws -> (db: String, written: UnsynchronisedClockStore.Written, flagged: [Int64]) {
        let db = dir.file("a.db")
        let start = (Timestamp.nowMicros() - 3 * 3_600_000_000) / 60_000_000 * 60_000_000
        let written = try UnsynchronisedClockStore.write(path: db, start: start, unsynchronised: 15, synchronised: 30)
        return (db, written, written.flaggedRows.sorted())
    }

    @Test func exportSaysOnceWhichRowsWereStampedUnsynchronisedAndJSONLinesFlagThem() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (db, written, flagged) = try Self.flaggedStore(dir)
        try #require(written.flaggedTimes.count == 15)
        try #require(flagged.count >= 2 && flagged.count < written.rows.count, "some rows flagged, not all")
        let note = "export: \(flagged.count) rows between \(Self.iso(flagged.first!)) and \(Self.iso(flagged.last!)) "
            + "were stamped while the clock was unsynchronised (times may be off)"

        let csv = try CLI.run(["export", "--csv", "--db", db])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.stderr.split(separator: "\n") == [Substring(note)], "\(csv.stderr)")
        #expect(csv.stdout.split(separator: "\r\n").first == "time,address,alias,model,temperature_c", "the columns stay")
        #expect(csv.stdout.split(separator: "\r\n").count == 1 + written.rows.count)

        let jsonl = try CLI.run(["export", "--jsonl", "--db", db])
        #expect(jsonl.status == 0)
        #expect(jsonl.stderr.split(separator: "\n") == [Substring(note)], "\(jsonl.stderr)")
        let objects = CLI.jsonObjects(jsonl)
        #expect(objects.count == written.rows.count)
        let marked = objects.filter { $0["clock_unsynced"] as? Bool == true }.compactMap { $0["time"] as? String }
        #expect(marked == flagged.map(Self.iso), "\(jsonl.stdout)")
        #expect(objects.allSatisfy { $0["clock_unsynced"] == nil || $0["clock_unsynced"] as? Bool == true })

        // Rows after the span: nothing to say, nothing flagged.
        let later = try CLI.run(["export", "--jsonl", "--db", db, "--since", Self.iso(flagged.last! + 60_000_000)])
        #expect(later.status == 0)
        #expect(later.stderr.isEmpty, "\(later.stderr)")
        #expect(!later.lines.isEmpty && !later.stdout.contains("clock_unsynced"))
    }

    @Test func aStoreWithoutUnsynchronisedRowsExportsWithoutANote() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("a.db")
        let written = try UnsynchronisedClockStore.write(
            path: db, start: Timestamp.nowMicros() - 3_600_000_000, unsynchronised: 0, synchronised: 12)
        #expect(written.flaggedTimes.isEmpty)
        let out = try CLI.run(["export", "--jsonl", "--db", db])
        #expect(out.status == 0)
        #expect(out.stderr.isEmpty, "\(out.stderr)")
        #expect(out.lines.count == written.rows.count && !out.stdout.contains("clock_unsynced"))
    }
}

/// `doctor` names the rows kept while the clock was unsynchronised.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct DoctorUnsynchronisedClockTests {
    @Test func doctorWarnsWithHowManyRowsAndWhenElseSaysOK() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (db, _, flagged) = try ExportUnsynchronisedClockTests.flaggedStore(dir)
        let out = try CLI.run(["doctor", "--db", db])
        let line = out.lines.first { $0.hasPrefix("warn stamps") }
        #expect(line?.contains("\(flagged.count) rows (1 span, \(ExportUnsynchronisedClockTests.iso(flagged.first!)) to "
            + "\(ExportUnsynchronisedClockTests.iso(flagged.last!))) stamped while the clock was unsynchronised") == true,
            "\(out.stdout)")
        #expect(line?.contains("timedatectl set-ntp true") == true)

        let clean = dir.file("b.db")
        _ = try UnsynchronisedClockStore.write(
            path: clean, start: Timestamp.nowMicros() - 3_600_000_000, unsynchronised: 0, synchronised: 6)
        let ok = try CLI.run(["doctor", "--db", clean])
        #expect(ok.lines.contains("ok   stamps       no stored row was stamped while the clock was unsynchronised"), "\(ok.stdout)")
    }
}
