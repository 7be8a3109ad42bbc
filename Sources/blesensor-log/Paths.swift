#if canImport(Glibc)
import Glibc
#endif

/// Where the database lives when `--db` is not given: `$BLESENSOR_DB`, else
/// `/var/lib/blesensor-log/readings.db` for root (and for the systemd unit, whose StateDirectory
/// is that folder), else `$XDG_DATA_HOME/blesensor-log/readings.db` (`~/.local/share/…`).
enum Paths {
    static func environment(_ name: String) -> String? {
        guard let p = getenv(name) else { return nil }
        let s = String(cString: p)
        return s.isEmpty ? nil : s
    }

    static func defaultDatabase() -> String {
        if let p = environment("BLESENSOR_DB") { return p }
        if let state = environment("STATE_DIRECTORY") { return state + "/readings.db" }  // systemd StateDirectory=
        if getuid() == 0 { return "/var/lib/blesensor-log/readings.db" }
        if let xdg = environment("XDG_DATA_HOME") { return xdg + "/blesensor-log/readings.db" }
        let home = environment("HOME") ?? "/tmp"
        return home + "/.local/share/blesensor-log/readings.db"
    }

    /// Creates the parent directories of `path` (mode 0755) when they are missing.
    static func ensureParentDirectory(of path: String) throws(CLIError) {
        let bytes = Array(path.utf8)
        // Every proper prefix ending before a "/" (except the root) is a directory to have.
        for (i, c) in bytes.enumerated() where c == UInt8(ascii: "/") && i > 0 {
            let dir = String(decoding: bytes[..<i], as: UTF8.self)
            if mkdir(dir, 0o755) != 0 && errno != EEXIST {
                throw CLIError("cannot create directory \(dir): \(String(cString: strerror(errno)))",
                               code: ExitCode.cantCreate)
            }
        }
    }
}

/// One line per noteworthy event on stderr, with the time; colour only when stderr is a terminal.
struct EventLog: Sendable {
    let colour: Bool
    let verbose: Bool

    init(verbose: Bool) {
        colour = isatty(2) == 1 && Paths.environment("NO_COLOR") == nil
        self.verbose = verbose
    }

    func info(_ message: String) { emit(message, code: nil) }
    func warning(_ message: String) { emit(message, code: "33") }
    func error(_ message: String) { emit(message, code: "31") }
    func debug(_ message: String) { if verbose { emit(message, code: "2") } }

    private func emit(_ message: String, code: String?) {
        let stamp = Timestamp.iso8601(micros: Timestamp.nowMicros() / 1_000_000 * 1_000_000, localOffsetSeconds: nil)
        if colour, let code {
            writeError("\(stamp) \u{1B}[\(code)m\(escapingControls(message))\u{1B}[0m\n")
        } else {
            printError("\(stamp) \(message)")
        }
    }
}
