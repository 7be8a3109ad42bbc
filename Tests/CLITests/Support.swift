import Foundation
import Testing

/// Runs the real `blesensor-log` binary as a process: the CLI's tests go through argv, stdin,
/// stdout, stderr and the exit status, as a user or cron does.
struct CLI {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
        var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    }

    /// The binary built next to the test bundle (`swift build` puts products and the test bundle in
    /// the same directory).
    static let binary: String = {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var candidates = [dir.appendingPathComponent("blesensor-log").path]
        // `swift test` may run us from inside a .xctest bundle directory.
        candidates.append(dir.deletingLastPathComponent().appendingPathComponent("blesensor-log").path)
        if let env = ProcessInfo.processInfo.environment["BLESENSOR_LOG_BIN"] { candidates.insert(env, at: 0) }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    static var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    /// Runs `blesensor-log args…` with `stdin` as its standard input and `environment` added.
    /// `through` runs it by way of another program, e.g. `["/usr/sbin/runuser", "-u", "nobody", "--"]`.
    static func run(_ args: [String], stdin: String = "", environment: [String: String] = [:],
                    cwd: String? = nil, through: [String] = []) throws -> Output {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: through.first ?? binary)
        p.arguments = through.isEmpty ? args : through.dropFirst() + [binary] + args
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        p.environment = env
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        let inPipe = Pipe(), outPipe = Pipe(), errPipe = Pipe()
        p.standardInput = inPipe
        p.standardOutput = outPipe
        p.standardError = errPipe
        try p.run()
        // Read both pipes concurrently with writing stdin so a large output cannot deadlock us.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        group.enter()
        DispatchQueue.global().async { outData = outPipe.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData = errPipe.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        inPipe.fileHandleForWriting.write(Data(stdin.utf8))
        try inPipe.fileHandleForWriting.close()
        p.waitUntilExit()
        group.wait()
        return Output(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Parses JSON lines into dictionaries (fails the test on a line that is not a JSON object).
    static func jsonObjects(_ out: Output, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        out.lines.compactMap { line in
            let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            if obj == nil { Issue.record("not a JSON object: \(line)", sourceLocation: sourceLocation) }
            return obj
        }
    }
}

/// A fresh temporary directory, removed by the caller with `cleanup()`.
struct TempDir {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "blesensor-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { path + "/" + name }
    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}
