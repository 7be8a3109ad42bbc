import Foundation
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

    @Test func aFileThatCannotBeWrittenIsACantCreateErrorAndNothingIsLeft() throws {
        do {
            try AtomicFile.replace("/nonexistent-dir/page.html", with: Array("x".utf8))
            Issue.record("no error")
        } catch {
            #expect(error.code == 73)
            #expect(error.message.contains("/nonexistent-dir/page.html.tmp."))
        }
    }

    @Test func aNewFileGetsTheModeAskedFor() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("keys")
        try AtomicFile.replace(path, with: Array("secret".utf8), mode: 0o600)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber
        #expect(mode.intValue & 0o077 == 0)
    }
}
