import TestSupport
import Foundation
import SensorDecode
import Testing

@testable import SensorStore

/// `store-torture` (Sources/TestTools/store-torture), built next to this test bundle.
private let tortureBinary: String? = {
    let fm = FileManager.default
    var candidates: [String] = []
    let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    candidates.append(argv0.appendingPathComponent("store-torture").path)
    let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    candidates.append(repo.appendingPathComponent(".build/debug/store-torture").path)
    return candidates.first { fm.isExecutableFile(atPath: $0) }
}()

/// A running store-torture process with its stdout read line by line.
private final class Torture {
    let process = Process()
    private let out = Pipe()
    private let err = Pipe()
    private var buffer = Data()

    init(_ args: [String]) throws {
        guard let binary = tortureBinary else { throw TortureMissing() }
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = args
        process.standardOutput = out
        process.standardError = err
        try process.run()
    }

    /// The next stdout line, or `nil` at end of file.
    func line() -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let l = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...nl)
                return l
            }
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    func restOfStdout() -> [String] {
        var lines: [String] = []
        while let l = line() { lines.append(l) }
        return lines
    }

    func stderrLines() -> [String] {
        String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(
            String.init)
    }

    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}

private struct TortureMissing: Error, CustomStringConvertible {
    var description: String { "store-torture is not built: run `swift build --build-tests` first" }
}

/// Checks that the first `n` torture readings are stored with their exact values.
private func expectFirstReadingsStored(_ path: String, _ n: Int, sensors: Int) throws -> Int {
    let reader = try StoreReader(path: path)
    #expect(try reader.integrityCheck() == ["ok"])
    #expect(try reader.verifyRollups() == [])
    let (_, rows) = try exportAll(reader)
    var found = 0
    for r in rows {
        let s = Int(r.sensor.address.rawValue - 0xC0FF_EE00_0000)
        let j = Int((r.timeMicros - 1_700_000_000_000_000) / 60_000_000)
        let k = j * sensors + s
        let x = tortureReading(k, sensors: sensors)
        #expect(r.measurements == x.measurements.sorted { $0.quantity < $1.quantity }, "reading \(k)")
        if k < n { found += 1 }
    }
    #expect(found == n, "committed readings missing after the crash")
    return rows.count
}

@Suite(.serialized) struct ProcessFaultTests {
    @Test(arguments: [1, 2, 3])
    func killNineMidBatchKeepsEveryCommittedReading(_ round: Int) throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("crash.db")
        let t = try Torture([
            "write", "--db", path, "--sensors", "5", "--readings", "10000000", "--batch-rows", "50",
            "--sleep-us", "\(50 * round)",
        ])
        var committed = 0
        var commits = 0
        while commits < 10 * round, let l = t.line() {
            if l.hasPrefix("committed ") {
                committed = Int(l.dropFirst(10)) ?? committed
                commits += 1
            }
        }
        kill(t.process.processIdentifier, SIGKILL)
        for l in t.restOfStdout() where l.hasPrefix("committed ") { committed = Int(l.dropFirst(10)) ?? committed }
        #expect(t.wait() == SIGKILL)
        #expect(committed >= 50 * 10 * round)
        let stored = try expectFirstReadingsStored(path, committed, sensors: 5)
        // At most the batch being committed when the kill came got in without being reported.
        #expect(stored <= committed + 50)
        // And the logger starts again on the same file.
        let again = try SensorStore(path: path)
        again.add(tortureReading(stored, sensors: 5), now: 0)
        try again.close(now: 0)
        #expect(again.statistics.committedRows == 1)
    }

    @Test func aFullDiskIsLoggedOnceAndNothingCommittedIsLost() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("full.db")
        let t = try Torture([
            "write", "--db", path, "--sensors", "5", "--readings", "3000", "--batch-rows", "100", "--batch-seconds",
            "1",
            "--max-pages-extra", "8", "--raise-after", "3",
        ])
        let out = t.restOfStdout()
        let err = t.stderrLines()
        #expect(t.wait() == 0)
        #expect(out.contains("raised"))
        #expect(out.last == "done 3000")
        #expect(err.filter { $0.contains("disk is full") }.count == 1, "\(err)")
        #expect(err.filter { $0.contains("resumed") }.count == 1, "\(err)")
        #expect(err.count == 2, "\(err)")
        #expect(try expectFirstReadingsStored(path, 3000, sensors: 5) == 3000)
    }

    /// A real ENOSPC: the store on a 320 KiB tmpfs that is grown while the writer waits.
    @Test func aRealFullFilesystemResumesWhenSpaceReturns() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let mnt = dir.file("mnt")
        try FileManager.default.createDirectory(atPath: mnt, withIntermediateDirectories: true)
        guard system("/bin/mount", ["-t", "tmpfs", "-o", "size=320k", "tmpfs", mnt]) == 0 else {
            print("skipped: cannot mount a tmpfs here (needs root); disk-full is covered by max_page_count")
            return
        }
        defer { _ = system("/bin/umount", [mnt]) }
        let path = mnt + "/full.db"
        let t = try Torture([
            "write", "--db", path, "--sensors", "5", "--readings", "20000", "--batch-rows", "100", "--batch-seconds",
            "1",
            "--sleep-us", "100",
        ])
        // Wait until the filesystem is full and the writer said so, then give it room.
        let errHandle = t.stderrPipeHandle
        var errText = ""
        while !errText.contains("disk is full") {
            let chunk = errHandle.availableData
            if chunk.isEmpty { break }
            errText += String(decoding: chunk, as: UTF8.self)
        }
        #expect(errText.contains("disk is full"), "\(errText)")
        #expect(system("/bin/mount", ["-o", "remount,size=64m", mnt]) == 0)
        let out = t.restOfStdout()
        errText += String(decoding: errHandle.readDataToEndOfFile(), as: UTF8.self)
        #expect(t.wait() == 0)
        let lines = errText.split(separator: "\n")
        #expect(lines.filter { $0.contains("disk is full") }.count == 1, "\(lines)")
        #expect(lines.filter { $0.contains("resumed") }.count == 1, "\(lines)")
        #expect(out.last == "done 20000")
        #expect(try expectFirstReadingsStored(path, 20000, sensors: 5) == 20000)
    }

    @Test func aFileThatIsNotADatabaseIsReportedAndNeverOverwritten() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("photo.db")
        let bytes = [UInt8](repeating: 0xFF, count: 3000) + Array("JFIF".utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        for mode in [["open"], ["open", "--reader"], ["write", "--readings", "10"]] {
            let t = try Torture(mode + ["--db", path])
            _ = t.restOfStdout()
            let err = t.stderrLines()
            #expect(t.wait() == 1)
            #expect(err.count == 1 && err[0].contains("not a database"), "\(err)")
            #expect(fileBytes(path) == bytes)
        }
    }

    @Test func anUnwritableDirectoryIsAClearError() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let locked = dir.file("locked")
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked)
        defer { _ = try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path)
        let path = locked + "/log.db"
        let t = try Torture(["open", "--db", path, "--drop-privileges"])
        _ = t.restOfStdout()
        let err = t.stderrLines()
        #expect(t.wait() == 1)
        #expect(err.count == 1 && err[0].contains("open \(path)") && err[0].contains("unable to open"), "\(err)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func readersInAnotherProcessOnlyEverSeeWholeBatches() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("live.db")
        let t = try Torture([
            "write", "--db", path, "--sensors", "4", "--readings", "20000", "--batch-rows", "100", "--sleep-us", "20",
        ])
        // Wait for the first commit, so the file exists with its schema.
        while let l = t.line(), !l.hasPrefix("committed ") {}
        var looks = 0
        while t.process.isRunning && looks < 200 {
            let reader = try StoreReader(path: path)
            let summary = try reader.summary()
            let rows = summary.reduce(0) { $0 + $1.rows }
            #expect(rows % 100 == 0, "a reader saw \(rows) rows: half a batch")
            if looks % 20 == 0 { #expect(try reader.verifyRollups() == []) }
            looks += 1
        }
        let out = t.restOfStdout()
        #expect(t.wait() == 0)
        #expect(t.stderrLines() == [])
        #expect(out.last == "done 20000")
        #expect(looks > 5)
    }
}

extension Torture {
    fileprivate var stderrPipeHandle: FileHandle { (process.standardError as! Pipe).fileHandleForReading }
}
