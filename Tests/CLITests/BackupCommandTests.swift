import Foundation
import TestSupport
import Testing

/// `backup DEST` through the real binary: copies taken while a writer commits, what a failure
/// leaves, dated copies in a folder and `--keep-last`, and the refusals.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct BackupCommandTests {
    /// A Minew sensor's readings a second apart, ending an hour ago, each a row of its own with
    /// `--interval 0`.
    static func capture(_ path: String, readings n: Int) throws {
        let end = StoreDataLossTests.nowMicros() - 3_600_000_000
        try StoreDataLossTests.capture(path, times: (0..<n).map { end - Int64(n - $0) * 1_000_000 })
    }

    /// A database of `n` rows at `db`.
    static func database(_ dir: TempDir, _ db: String, readings n: Int) throws {
        try capture(dir.file("c-\(n).btsnoop"), readings: n)
        let out = try CLI.run(["replay", dir.file("c-\(n).btsnoop"), "--db", db, "--interval", "0"])
        #expect(out.status == 0, "\(out.stderr)")
    }

    /// `readings.db` of `readings` rows, and beside it a folder `usb` holding `files`, a few
    /// bytes each.
    static func databaseAndFolder(_ dir: TempDir, readings: Int, files: [String]) throws -> (db: String, folder: String) {
        let db = dir.file("readings.db")
        try database(dir, db, readings: readings)
        let folder = dir.file("usb")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in files { try Data("not a copy of this database".utf8).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        return (db, folder)
    }

    /// `r.db` of `readings` rows, and its backup at `target`.
    static func databaseWithACopy(_ dir: TempDir, readings: Int, at target: String) throws -> String {
        let db = dir.file("r.db")
        try database(dir, db, readings: readings)
        let out = try CLI.run(["backup", target, "--db", db])
        #expect(out.status == 0, "\(out.stderr)")
        return db
    }

    /// The stored rows as CSV records (header left out), the way a user compares two exports.
    static func rows(_ db: String) throws -> [Substring] {
        let out = try CLI.run(["export", "--csv", "--db", db])
        #expect(out.status == 0, "\(db): \(out.stderr)")
        return out.stdout.split(separator: "\r\n").dropFirst().map { $0 }
    }

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    static func names(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test func copiesTakenWhileAWriterCommitsAreWholeSnapshotsOfWhatItStored() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try Self.capture(dir.file("big.btsnoop"), readings: 40_000)
        let db = dir.file("r.db")
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: CLI.binary)
        writer.arguments = ["replay", dir.file("big.btsnoop"), "--db", db, "--interval", "0"]
        writer.standardError = FileHandle.nullDevice
        try writer.run()
        var copies: [String] = []
        var whileWriting = 0
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let running = writer.isRunning
            // Once the writer turned on WAL, its schema is there.
            guard FileManager.default.fileExists(atPath: db + "-wal") || !running else {
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            let copy = dir.file("copy-\(copies.count).db")
            let out = try CLI.run(["backup", copy, "--db", db])
            #expect(out.status == 0, "\(out.stderr)")
            guard out.status == 0 else { break }
            copies.append(copy)
            if running && writer.isRunning { whileWriting += 1 } else if !running { break }
        }
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
        let stored = try Self.rows(db)
        #expect(stored.count == 40_000)
        let all = Set(stored)
        var previous = 0
        for copy in copies {
            // One file, as a backup should be: nothing beside it to carry along.
            #expect(!FileManager.default.fileExists(atPath: copy + "-wal"))
            #expect(Self.bytes(copy)?[18...19] == Data([1, 1]), "a rollback-journal file, not WAL")
            let rows = try Self.rows(copy)
            #expect(rows.count >= previous, "\(copy): \(rows.count) rows after \(previous)")
            #expect(rows.allSatisfy { all.contains($0) }, "\(copy) holds a row the writer never stored")
            previous = rows.count
        }
        #expect(whileWriting >= 2, "copies taken while the writer ran: \(whileWriting) of \(copies.count)")
        #expect(try Self.rows(copies.last!).count == stored.count, "the copy after the writer ended has everything")
    }

    @Test func aFolderGetsDatedCopiesAndKeepLastDeletesOnlyOldDatedCopies() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let old = ["readings-20200101T000000Z.db", "readings-20210101T000000Z.db", "readings-20220101T000000Z.db"]
        let others = ["notes.txt", "readings-manual.db", "other-20200101T000000Z.db", "readings-2020.db", "readings-20200101T000000Z.db.bak"]
        let (db, folder) = try Self.databaseAndFolder(dir, readings: 50, files: old + others)
        let out = try CLI.run(["backup", folder, "--keep-last", "2", "--db", db, "-v"])
        #expect(out.status == 0, "\(out.stderr)")
        let left = Self.names(folder)
        let new = left.filter { !(old + others).contains($0) }
        #expect(new.count == 1, "\(left)")
        let name = try #require(new.first)
        #expect(name.wholeMatch(of: /readings-20\d{6}T\d{6}Z\.db/) != nil, "\(name)")
        #expect(Set(left) == Set(others + ["readings-20220101T000000Z.db", name]), "\(left)")
        #expect(try Self.rows(folder + "/" + name) == Self.rows(db))
        #expect(out.stderr.contains("deleted the old copy \(folder)/readings-20200101T000000Z.db"), "\(out.stderr)")
        #expect(out.stderr.contains("backed up \(db) to \(folder)/\(name)"), "\(out.stderr)")
        // Without -v it says nothing, for cron.
        let quiet = try CLI.run(["backup", folder + "/", "--db", db])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet)")
    }

    @Test func theCopyJustWrittenIsKeptEvenWhenTheClockDatesItBeforeTheOthers() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        // Copies a clock set right made, later than this machine's clock says it is now.
        let later = ["readings-20990101T000000Z.db", "readings-20990102T000000Z.db", "readings-20990103T000000Z.db"]
        let (db, folder) = try Self.databaseAndFolder(dir, readings: 10, files: later)
        let out = try CLI.run(["backup", folder, "--keep-last", "2", "--db", db])
        #expect(out.status == 0, "\(out.stderr)")
        let left = Self.names(folder)
        #expect(left.count == 2 && left.contains("readings-20990103T000000Z.db"), "\(left)")
        let new = try #require(left.first { !later.contains($0) }, "the new copy was deleted: \(left)")
        #expect(try Self.rows(folder + "/" + new) == Self.rows(db))
    }

    @Test func anExistingFileIsReplacedByAWholeCopyAndALinkIsFollowed() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let target = dir.file("backup.db")
        let db = try Self.databaseWithACopy(dir, readings: 20, at: target)
        try Self.database(dir, db, readings: 80)  // the same hour again, and more
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.db"), withDestinationPath: target)
        let out = try CLI.run(["backup", dir.file("link.db"), "--db", db])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try Self.rows(target) == Self.rows(db))
        let link = try FileManager.default.attributesOfItem(atPath: dir.file("link.db"))[.type] as? FileAttributeType
        #expect(link == .typeSymbolicLink, "the link stays a link")
        #expect(Self.names(dir.path).allSatisfy { !$0.contains(".tmp.") }, "\(Self.names(dir.path))")
    }

    @Test func aFullDiskFailsWithOneLineAndLeavesThePreviousCopy() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        guard let mnt = try StoreDataLossTests.smallFilesystem(dir) else { return }
        defer { _ = system("/bin/umount", [mnt]) }
        let target = mnt + "/backup.db"
        let db = try Self.databaseWithACopy(dir, readings: 40, at: target)
        let before = try #require(Self.bytes(target))
        try Self.database(dir, db, readings: 6_000)  // larger than the 320 KiB left
        let out = try CLI.run(["backup", target, "--db", db])
        #expect(out.status == 74, "\(out.stderr)")
        let lines = out.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("full") && lines[0].contains(target), "\(out.stderr)")
        #expect(!out.stderr.contains(".tmp."), "the message names DEST, not the temporary file")
        #expect(Self.bytes(target) == before, "the previous copy is as it was")
        #expect(Self.names(mnt) == ["backup.db"], "nothing left beside it")
    }

    @Test func aSignalStopsALongCopyWithNothingWrittenAndDestAsItWas() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let target = dir.file("backup.db")
        let db = try Self.databaseWithACopy(dir, readings: 20, at: target)
        let before = try #require(Self.bytes(target))
        // 300 MB of filler: a copy long enough to be stopped in the middle.
        let filler = "import sqlite3; c = sqlite3.connect('\(db)'); "
            + "c.execute(\"INSERT INTO meta VALUES ('test-filler', zeroblob(300000000))\"); c.commit()"
        try #require(system("/usr/bin/python3", ["-c", filler]) == 0)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["backup", target, "--db", db]
        let stderr = Pipe()
        p.standardError = stderr
        try p.run()
        let temporary = target + ".tmp.\(p.processIdentifier)"
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: temporary), p.isRunning, Date() < deadline { usleep(1000) }
        #expect(FileManager.default.fileExists(atPath: temporary), "the copy had begun")
        p.terminate()
        p.waitUntilExit()
        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationStatus == 75, "\(message)")
        #expect(message.contains("stopped by a signal") && message.split(separator: "\n").count == 1, "\(message)")
        #expect(Self.bytes(target) == before, "the previous copy is as it was")
        #expect(Self.names(dir.path).allSatisfy { !$0.contains(".tmp.") }, "\(Self.names(dir.path))")
    }

    @Test func aDamagedDatabaseIsNoCopyAndLeavesNothing() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("r.db")
        try Self.database(dir, db, readings: 3_000)
        // Garbage over a page in the middle: the header and schema still open.
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: db))
        try h.seek(toOffset: 20 * 4096)
        h.write(Data(repeating: 0xA5, count: 4096))
        try h.close()
        let folder = dir.file("out")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let out = try CLI.run(["backup", folder, "--db", db])
        #expect(out.status == 65, "\(out.stderr)")
        #expect(out.stderr.split(separator: "\n").count == 1, "\(out.stderr)")
        #expect(Self.names(folder).isEmpty, "\(Self.names(folder))")
    }

    @Test func aReadOnlyFolderIsCannotCreate() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("r.db")
        try Self.database(dir, db, readings: 10)
        guard let mnt = try StoreDataLossTests.smallFilesystem(dir, readOnly: true) else { return }
        defer { _ = system("/bin/umount", [mnt]) }
        let out = try CLI.run(["backup", mnt, "--db", db])
        #expect(out.status == 73, "\(out.stderr)")
        #expect(out.stderr.contains("Read-only file system") && out.stderr.split(separator: "\n").count == 1, "\(out.stderr)")
    }

    @Test func refusalsAreOneUsageLineAndTouchNothing() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("r.db")
        try Self.database(dir, db, readings: 10)
        try FileManager.default.createSymbolicLink(atPath: dir.file("same"), withDestinationPath: dir.path)
        let before = try #require(Self.bytes(db))
        let cases: [([String], String)] = [
            ([db], "is the database"),
            ([dir.file("same") + "/r.db"], "is the database"),
            ([dir.path + "/../" + URL(fileURLWithPath: dir.path).lastPathComponent + "/r.db"], "is the database"),
            ([db + "-wal"], "is its WAL"),
            ([db + "-journal"], "is its journal"),
            (["/dev/null"], "is neither"),
            ([""], "wants DEST"),
            ([dir.file("x.db"), "--keep-last", "2"], "wants DEST to be a folder"),
            ([dir.path, "--keep-last", "0"], "--keep-last wants"),
            ([dir.path, "--keep-last", "-1"], "--keep-last wants"),
            ([dir.path, "--keep-last", "9223372036854775808"], "--keep-last wants"),
            ([dir.path, "--keep-last", "two"], "--keep-last wants"),
            ([], "DEST"),
        ]
        let namesBefore = Self.names(dir.path)
        for (args, text) in cases {
            let out = try CLI.run(["backup"] + args + ["--db", db])
            #expect(out.status == 64, "\(args): \(out.stderr)")
            #expect(out.stderr.split(separator: "\n").first?.contains(text) == true, "\(args): \(out.stderr)")
        }
        #expect(Self.bytes(db) == before)
        #expect(Self.names(dir.path) == namesBefore)
    }

    @Test func noDatabaseIsNoInputAndCreatesNothing() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let out = try CLI.run(["backup", dir.file("copy.db"), "--db", dir.file("none.db")])
        #expect(out.status == 66, "\(out.stderr)")
        #expect(Self.names(dir.path).isEmpty)
    }
}
