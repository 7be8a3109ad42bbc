import AdvScanner
import Foundation
import SensorDecode
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Who may open the database how: readers (`export`, `summary`, `sensors`) read a file they may
/// only read, as another user or on a read-only mount, with the logger stopped or running; the
/// writers say plainly that they cannot write; and processes creating one new file together
/// never take it for another application's.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct ReadOnlyAccessTests {
    static let runuser = "/usr/sbin/runuser"
    static let asNobody = [runuser, "-u", "nobody", "--"]
    /// Reading as another user needs root (to become one), runuser, and a binary that user may run:
    /// a checkout in a folder only its owner may enter (`mktemp -d` makes one) holds a binary
    /// nobody else can start.
    static let canRunAsAnotherUser: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: runuser) else { return false }
        return (try? CLI.run(["--version"], through: asNobody).status) == 0
    }()

    /// Bind mounts work here (root with CAP_SYS_ADMIN, as in the test VM and this container).
    static let canMount: Bool = {
        guard canRunAsAnotherUser, let dir = try? TempDir(), let point = try? TempDir() else { return false }
        defer {
            dir.cleanup()
            point.cleanup()
        }
        guard sh(["mount", "--bind", dir.path, point.path]) == 0 else { return false }
        sh(["umount", point.path])
        return true
    }()

    /// The readers' outputs that do not depend on the time they run.
    static let readers: [[String]] = [
        ["export", "--csv"], ["export", "--jsonl"], ["summary", "--since", "2025-12-31", "--format", "csv"],
        ["sensors", "--json"],
    ]

    /// A database written by root's replay, folder 0755 and file 0644 (the README's setup), the
    /// logger stopped: no -wal or -shm file.
    func rootsDatabase(_ dir: TempDir) throws -> String {
        let cap = dir.file("c.btsnoop")
        try SyntheticCapture().write(to: cap)
        let db = dir.file("readings.db")
        try #require(try CLI.run(["replay", cap, "--db", db]).status == 0)
        try FileManager.default.removeItem(atPath: cap)
        chmod(dir.path, 0o755)
        chmod(db, 0o644)
        return db
    }

    func listing(_ dir: TempDir) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() }

    /// Each reader's output (by way of `through`).
    func outputs(_ db: String, through: [String] = []) throws -> [CLI.Output] {
        try Self.readers.map { try CLI.run($0 + ["--db", db], through: through) }
    }

    /// The same as root's, read from the writable folder, and not empty. Root's readers run last:
    /// a read-only connection leaves the -wal and -shm files it created (SQLite removes them only
    /// on a writer's close), and the others are to read without them.
    func expectSameAsRoot(_ got: [CLI.Output], _ db: String, _ what: String) throws {
        for (args, (o, root)) in zip(Self.readers, zip(got, try outputs(db))) {
            #expect([0, 1].contains(root.status) && root.stdout.count > 100, "root \(args): \(root.stderr)")
            #expect(o.status == root.status, "\(what) \(args): \(o.status) \(o.stderr)")
            #expect(o.stdout == root.stdout, "\(what) \(args): \(o.stderr)")
        }
    }

    @Test(.enabled(if: canRunAsAnotherUser, "needs root, runuser and a binary nobody may run (a checkout others may enter)"))
    func anotherUserReadsTheStoppedLoggersDatabase() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try rootsDatabase(dir)
        let files = try listing(dir)
        try #require(files == ["readings.db"], "the logger left \(files)")
        let nobody = try outputs(db, through: Self.asNobody)
        #expect(try listing(dir) == files)  // nothing created, nothing left behind
        try expectSameAsRoot(nobody, db, "nobody, logger stopped:")
    }

    @Test(.enabled(if: canRunAsAnotherUser, "needs root, runuser and a binary nobody may run (a checkout others may enter)"))
    func anotherUserReadsWhileTheLoggerHasItOpen() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try rootsDatabase(dir)
        // A process of root's holding the database open, as the running logger does: its -wal
        // and -shm files exist, 0644, and the reader reads through them.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["python3", "-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1]); c.execute('SELECT count(*) FROM sensors').fetchall()
            print('open', flush=True); sys.stdin.read()
            """, db]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        _ = output.fileHandleForReading.availableData  // "open"
        let files = try listing(dir)
        try #require(FileManager.default.fileExists(atPath: db + "-shm"), "\(files)")
        let nobody = try outputs(db, through: Self.asNobody)
        try expectSameAsRoot(nobody, db, "nobody, logger running:")
    }

    @Test(.enabled(if: canMount, "needs root with bind mounts (CAP_SYS_ADMIN) and runuser"))
    func aReadOnlyMountIsRead() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try rootsDatabase(dir)
        let mountPoint = try TempDir()
        defer { mountPoint.cleanup() }
        try #require(sh(["mount", "--bind", dir.path, mountPoint.path]) == 0)
        defer { sh(["umount", mountPoint.path]) }
        try #require(sh(["mount", "-o", "remount,bind,ro", mountPoint.path]) == 0)
        let roDB = mountPoint.file("readings.db")
        let root = try outputs(roDB)
        let nobody = try outputs(roDB, through: Self.asNobody)
        #expect(try listing(dir) == ["readings.db"])
        try expectSameAsRoot(root, db, "root, read-only mount:")
        try expectSameAsRoot(nobody, db, "nobody, read-only mount:")
        // A writer there says why it cannot write, in one line.
        let alias = try CLI.run(["sensors", "alias", SyntheticCapture.pvvx.description, "x", "--db", roDB])
        #expect(alias.status == 73 && alias.stderr.split(separator: "\n").count == 1, "\(alias.stderr)")
    }

    @Test(.enabled(if: canRunAsAnotherUser, "needs root, runuser and a binary nobody may run, to write as another user"))
    func theWritersSayPlainlyThatTheyCannotWrite() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try rootsDatabase(dir)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let cap = NSTemporaryDirectory() + "blesensor-ro-\(UUID().uuidString).btsnoop"
        try SyntheticCapture().write(to: cap)
        chmod(cap, 0o644)
        defer { try? FileManager.default.removeItem(atPath: cap) }
        let address = SyntheticCapture.pvvx.description
        for args in [["replay", cap], ["sensors", "alias", address, "x"], ["sensors", "forget", address]] {
            let o = try CLI.run(args + ["--db", db], through: Self.asNobody)
            #expect(o.status == 73, "\(args): \(o.status) \(o.stderr)")
            #expect(o.stderr.hasPrefix("Error: ") && o.stderr.split(separator: "\n").count == 1, "\(args): \(o.stderr)")
            #expect(o.stderr.contains("cannot write"), "\(args): \(o.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(try listing(dir) == ["readings.db"])
    }

    // MARK: - Creating one new file together

    /// Ten readings of one sensor per capture, each process its own sensor.
    func capture(_ path: String, sensor k: Int) throws {
        let address = BDAddress("A4:C1:38:00:00:\(String(format: "%02X", k))")!
        try SyntheticCapture.write(path, (0..<10).map { i in
            (address, SyntheticCapture.pvvxAD(address, tempCenti: Int16(2000 + i), humidityCenti: 5000, battery: 80),
             SyntheticCapture.start + Int64(i) * 10_000_000)
        })
    }

    @Test func parallelReplaysOntoANewFileNeverRefuseEachOther() throws {
        // Six processes creating the same new database at once, 40 times: on main one in about
        // ten such trials had a process refuse the file as "another application's".
        let dir = try TempDir()
        defer { dir.cleanup() }
        let processes = 6
        let caps = (0..<processes).map { dir.file("c\($0).btsnoop") }
        for (k, cap) in caps.enumerated() { try capture(cap, sensor: k) }
        for trial in 0..<40 {
            let db = dir.file("t\(trial).db")
            let group = DispatchGroup()
            nonisolated(unsafe) var outs = [CLI.Output?](repeating: nil, count: processes)
            let lock = NSLock()
            for k in 0..<processes {
                group.enter()
                DispatchQueue.global().async {
                    let o = try? CLI.run(["replay", caps[k], "--db", db, "--interval", "0"])
                    lock.withLock { outs[k] = o }
                    group.leave()
                }
            }
            group.wait()
            for (k, o) in outs.enumerated() {
                #expect(o?.status == 0, "trial \(trial), process \(k): \(o?.stderr ?? "did not run")")
            }
            let rows = try CLI.run(["export", "--jsonl", "--db", db])
            #expect(CLI.jsonObjects(rows).count == processes * 10, "trial \(trial): \(rows.stderr)")
            if outs.contains(where: { $0?.status != 0 }) { break }
        }
    }
}
