import Foundation
import TestSupport
import Testing

@testable import blesensor_log

@Suite struct AtomicFileTests {
    @Test func theFileIsReplacedWholeAndNoTemporaryFileIsLeft() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("page.html")
        try "old page".write(toFile: path, atomically: false, encoding: .utf8)
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 3 << 20)
        try AtomicFile.replace(path, with: big)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(big))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["page.html"])
    }

    /// `replace(path)` fails with 73 and one message naming `path` (never the temporary
    /// `….tmp.PID`) with the system's `reason`.
    func expectCantCreate(_ path: String, reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try AtomicFile.replace(path, with: Array("x".utf8))
            Issue.record("no error for \(path)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == 73, sourceLocation: sourceLocation)
            #expect(error.message == "cannot write \(path): \(reason)", sourceLocation: sourceLocation)
        }
    }

    @Test func aFileInAMissingFolderIsACantCreateErrorNamingThePathAskedFor() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try "x".write(toFile: dir.file("plain"), atomically: false, encoding: .utf8)
        expectCantCreate(dir.file("missing/page.html"), reason: "No such file or directory")
        expectCantCreate(dir.file("plain/page.html"), reason: "Not a directory")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["plain"])
    }

    @Test(.enabled(if: ReadOnlyAccessTests.canMount, "needs root with bind mounts (CAP_SYS_ADMIN)"))
    func aFileOnAReadOnlyMountIsACantCreateErrorNamingThePathAskedFor() throws {
        // Root may write into any folder, but not onto a read-only mount.
        let dir = try TempDir()
        defer { dir.cleanup() }
        let mountPoint = try TempDir()
        defer { mountPoint.cleanup() }
        try #require(sh(["mount", "--bind", dir.path, mountPoint.path]) == 0)
        defer { sh(["umount", mountPoint.path]) }
        try #require(sh(["mount", "-o", "remount,bind,ro", mountPoint.path]) == 0)
        expectCantCreate(mountPoint.file("page.html"), reason: "Read-only file system")
    }

    @Test func aNewFileGetsTheModeAskedFor() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("keys")
        try AtomicFile.replace(path, with: Array("secret".utf8), mode: 0o600)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber
        #expect(mode.intValue & 0o077 == 0)
    }

    @Test func aLinkIsFollowedAndStaysALink() throws {
        // /var/lib/blesensor-log/www/index.html may be a link into a web server's tree: the page
        // it points to is replaced, the link stays.
        let dir = try TempDir()
        defer { dir.cleanup() }
        let target = dir.file("real.html"), link = dir.file("index.html")
        try "old page".write(toFile: target, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.html")
        try AtomicFile.replace(link, with: Array("new page".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.html")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "new page")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["index.html", "real.html"])
    }

    @Test func aDeviceIsWrittenIntoNotReplacedAndItsErrorIsTheWritesError() throws {
        // A name for /dev/full: the bytes go to the device, whose ENOSPC is the error. Renaming a
        // regular file over it would have deleted the device node and reported success.
        let dir = try TempDir()
        defer { dir.cleanup() }
        let link = dir.file("page.html")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/full")
        do {
            try AtomicFile.replace(link, with: Array("page".utf8))
            Issue.record("no error")
        } catch {
            #expect(error.code == 74)
            #expect(error.message == "cannot write \(link): No space left on device")
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "/dev/full")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["page.html"])
    }

    @Test func aFIFONobodyReadsIsAnErrorAtOnceNotAStall() throws {
        // `run --prometheus-file` pointed at a FIFO: an open that waited for a reader would stop
        // the logger.
        let dir = try TempDir()
        defer { dir.cleanup() }
        let fifo = dir.file("metrics.prom")
        #expect(mkfifo(fifo, 0o600) == 0)
        do {
            try AtomicFile.replace(fifo, with: Array("metrics".utf8))
            Issue.record("no error")
        } catch {
            #expect(error.code == 74)
            #expect(error.message == "cannot write \(fifo): No such device or address")
        }
        var st = stat()
        #expect(stat(fifo, &st) == 0 && st.st_mode & S_IFMT == S_IFIFO)
    }
}
