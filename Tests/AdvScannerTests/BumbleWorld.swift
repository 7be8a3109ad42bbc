import Foundation

/// A running `IntegrationTests/bumble/virtual_controller.py`: a Bumble controller served as H4 over TCP on
/// 127.0.0.1 plus advertisers (MM-BLEBC7 with a falling temperature, pvvx 0x181A, BTHome v2).
/// Its stdout and stderr go to temporary files, read back by polling, so no pipe can fill up and
/// block the controller.
final class BumbleWorld {
    static let repoRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let python = repoRoot.appendingPathComponent(".venv-bumble/bin/python").path
    static let script = repoRoot.appendingPathComponent("IntegrationTests/bumble/virtual_controller.py").path

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: python) }
    static let skipMessage = ".venv-bumble is missing: run IntegrationTests/bumble/setup.sh to enable the Bumble scanner tests"

    /// The built `blesensor-log` next to the test bundle (`swift build` puts both in .build/<triple>/debug).
    static var binary: String? {
        let dirs = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
            repoRoot.appendingPathComponent(".build/debug"),
        ]
        for d in dirs {
            let p = d.appendingPathComponent("blesensor-log").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    static let minew = "A4:C1:38:BC:07:01"
    static let pvvx = "A4:C1:38:11:22:33"
    static let bthome = "5C:C5:00:00:00:03"

    let process = Process()
    let stdoutURL: URL
    let stderrURL: URL
    private(set) var port: UInt16 = 0
    /// With `--pty PATH`: the link to the pseudo-terminal the controller is served on.
    private(set) var ptyPath: String?

    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts the script with `arguments` (modes) and waits for its "PORT n" line.
    init(_ arguments: [String]) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bumble-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        stdoutURL = dir.appendingPathComponent("stdout")
        stderrURL = dir.appendingPathComponent("stderr")
        guard FileManager.default.createFile(atPath: stdoutURL.path, contents: nil),
            FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        else { throw StartError(description: "cannot create files in \(dir.path)") }
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [Self.script, "-v", "--lifetime", "120"] + arguments
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let line = stdoutLines.first(where: { $0.hasPrefix("PORT ") }), let p = UInt16(line.dropFirst(5)) {
                port = p
                return
            }
            if let line = stdoutLines.first(where: { $0.hasPrefix("PTY ") }) {
                ptyPath = String(line.dropFirst(4))
                return
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        stop()
        throw StartError(
            description: "virtual_controller.py did not report its port or pty; stderr: \(stderrText.suffix(2000))")
    }

    deinit { stop() }

    var stdoutLines: [String] {
        ((try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    var stderrText: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// HCI commands the controller received, in order (Bumble names, e.g. HCI_RESET_COMMAND).
    var commandsReceived: [String] {
        stderrText.split(separator: "\n").compactMap { line in
            guard let r = line.range(of: "command ") else { return nil }
            return String(line[r.upperBound...])
        }
    }

    /// Wall-clock times (Unix seconds) at which the script dropped the connection.
    var dropTimes: [Double] {
        stdoutLines.compactMap { line in
            guard line.hasPrefix("DROPPED"), let last = line.split(separator: " ").last else { return nil }
            return Double(last)
        }
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        if !bumbleWaitForExit(process, seconds: 5) {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// Runs the built CLI with its output in files; returns exit status, stdout lines, stderr text.
struct BumbleCLIRun {
    let status: Int32
    let stdout: [String]
    let stderr: String

    /// - Parameter whileRunning: called once with the running process (e.g. to send SIGTERM).
    static func run(
        _ binary: String, _ arguments: [String], timeout: Double = 60, whileRunning: ((Process, URL) -> Void)? = nil
    )
        throws -> BumbleCLIRun
    {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("stdout")
        let err = dir.appendingPathComponent("stderr")
        guard FileManager.default.createFile(atPath: out.path, contents: nil),
            FileManager.default.createFile(atPath: err.path, contents: nil)
        else { throw BumbleWorld.StartError(description: "cannot create files in \(dir.path)") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = arguments
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = try FileHandle(forWritingTo: err)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        whileRunning?(p, out)
        if !bumbleWaitForExit(p, seconds: timeout) {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
        let stdout = ((try? String(contentsOf: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        return BumbleCLIRun(status: p.terminationStatus, stdout: stdout, stderr: stderr)
    }

    /// stdout lines parsed as JSON objects (lines that are not JSON are left out).
    var objects: [[String: Any]] {
        stdout.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}

/// Waits up to `seconds` for `p` to exit; false when it is still running.
func bumbleWaitForExit(_ p: Process, seconds: Double) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while p.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    return !p.isRunning
}

/// Sends SIGTERM and returns how many seconds the process took to exit, or -1 if it was still
/// running after `seconds`.
func bumbleTerminate(_ p: Process, within seconds: Double) -> Double {
    let t0 = Date()
    kill(p.processIdentifier, SIGTERM)
    return bumbleWaitForExit(p, seconds: seconds) ? Date().timeIntervalSince(t0) : -1
}

/// `2026-11-30T03:28:53.933948Z` → Unix seconds.
func bumbleUnixSeconds(iso: String) -> Double? {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let d = f.date(from: iso) { return d.timeIntervalSince1970 }
    f.formatOptions = [.withInternetDateTime]
    return f.date(from: iso)?.timeIntervalSince1970
}
