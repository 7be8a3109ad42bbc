#if canImport(Glibc)
import Glibc
#endif

/// sysexits(3) codes, the exit statuses of every command.
enum ExitCode {
    static let ok: Int32 = 0
    /// summary: something is flagged (stale sensor, low battery).
    static let flagged: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let unavailable: Int32 = 69
    static let software: Int32 = 70
    static let cantCreate: Int32 = 73
    static let ioError: Int32 = 74
    /// Stopped before done, nothing changed: try again (EX_TEMPFAIL).
    static let tempFail: Int32 = 75
}

/// A command-line failure: its one-line message and exit status. Thrown by commands, printed by `main`.
struct CLIError: Error, CustomStringConvertible {
    let message: String
    let code: Int32
    /// Usage errors also print the command's usage line.
    let showUsage: Bool

    init(_ message: String, code: Int32, showUsage: Bool = false) {
        self.message = message
        self.code = code
        self.showUsage = showUsage
    }

    static func usage(_ message: String) -> CLIError { CLIError(message, code: ExitCode.usage, showUsage: true) }
    var description: String { message }
}

/// One option of a command: `--name VALUE` (or a flag without value), with its one-line help.
struct OptionSpec: Sendable {
    let name: String
    let short: Character?
    let valueName: String?
    let help: String
    let repeatable: Bool

    static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, help: help, repeatable: false)
    }
    static func value(_ name: String, _ valueName: String, short: Character? = nil, repeatable: Bool = false, help: String)
        -> OptionSpec
    {
        OptionSpec(name: name, short: short, valueName: valueName, help: help, repeatable: repeatable)
    }
}

/// What a subcommand declares for parsing and `--help` (USAGE / ARGUMENTS / OPTIONS).
struct CommandSpec: Sendable {
    let name: String
    let abstract: String
    /// Positional arguments as shown in usage, e.g. `["FILE"]`; `nil`-able ones end in `?`.
    let arguments: [(name: String, help: String)]
    let options: [OptionSpec]
    let discussion: String?
    /// The command also takes its options from a config file (`ConfigFile`): `--config FILE` or
    /// the search path. Its options then include `ConfigFile.option`.
    let readsConfigFile: Bool
    /// `nil`: the config file is this command's own (every key must be one of its options).
    /// Otherwise the file is `run`'s and the command takes only these settings from it (`db`),
    /// skipping the rest: they are run's business.
    let configSettings: Set<String>?

    init(name: String, abstract: String, arguments: [(name: String, help: String)] = [], options: [OptionSpec],
         discussion: String? = nil, readsConfigFile: Bool = false) {
        self.init(name: name, abstract: abstract, arguments: arguments, options: options, discussion: discussion,
                  readsConfigFile: readsConfigFile, configSettings: nil)
    }

    /// A command that takes `settings` (options of its own) from `run`'s config file.
    init(name: String, abstract: String, arguments: [(name: String, help: String)] = [], options: [OptionSpec],
         discussion: String? = nil, settingsFromRunsConfig settings: Set<String>) {
        self.init(name: name, abstract: abstract, arguments: arguments, options: options, discussion: discussion,
                  readsConfigFile: true, configSettings: settings)
    }

    private init(name: String, abstract: String, arguments: [(name: String, help: String)], options: [OptionSpec],
                 discussion: String?, readsConfigFile: Bool, configSettings: Set<String>?) {
        self.name = name
        self.abstract = abstract
        self.arguments = arguments
        let configOption = configSettings.map { ConfigFile.sharedOption(settings: $0) } ?? ConfigFile.option
        self.options = options + (readsConfigFile ? [configOption] : [])
        self.discussion = discussion
        self.readsConfigFile = readsConfigFile
        self.configSettings = configSettings
    }

    var usageLine: String {
        var parts = ["blesensor-log", name]
        for o in options where o.name != "help" {
            let v = o.valueName.map { " \($0)" } ?? ""
            parts.append("[--\(o.name)\(v)]" + (o.repeatable ? "..." : ""))
        }
        for a in arguments { parts.append(a.name.hasSuffix("?") ? "[\(a.name.dropLast())]" : a.name) }
        return parts.joined(separator: " ")
    }

    var help: String {
        var s = "OVERVIEW: \(abstract)\n\nUSAGE: \(usageLine)\n"
        if !arguments.isEmpty {
            s += "\nARGUMENTS:\n"
            for a in arguments { s += "  " + pad(String(a.name.filter { $0 != "?" }), 24) + a.help + "\n" }
        }
        s += "\nOPTIONS:\n"
        for o in options + [OptionSpec.flag("help", short: "h", help: "Show help information.")] {
            var left = o.short.map { "-\($0), " } ?? ""
            left += "--\(o.name)" + (o.valueName.map { " <\($0)>" } ?? "")
            s += "  " + pad(left, 24) + o.help + "\n"
        }
        if let d = discussion { s += "\n" + d + "\n" }
        return s
    }

    private func pad(_ s: String, _ n: Int) -> String {
        s.count >= n ? s + "\n" + String(repeating: " ", count: n + 2) : s + String(repeating: " ", count: n - s.count)
    }
}

/// Parsed arguments of one command.
struct ParsedArguments {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    var helpRequested = false
    /// The config file merged in (`ConfigFile`), and the line of each setting taken from it.
    var configPath: String? = nil
    var configOrigins: [String: [ConfigOrigin]] = [:]

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }

    /// Parses `args` (without the command name) against `spec`. Accepts `--name value`,
    /// `--name=value`, `-x value`, and `--` to end options.
    init(_ args: [String], spec: CommandSpec) throws(CLIError) {
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositionals || a == "-" || !a.hasPrefix("-") {
                positionals.append(a)
                continue
            }
            if a == "--" { onlyPositionals = true; continue }
            if a == "--help" || a == "-h" { helpRequested = true; continue }
            var name: String
            var inline: String? = nil
            let opt: OptionSpec?
            if a.hasPrefix("--") {
                name = String(a.dropFirst(2))
                if let eq = name.firstIndex(of: "=") {
                    inline = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                opt = spec.options.first { $0.name == name }
            } else {
                guard a.count == 2 else { throw .usage("unknown option '\(a)'") }
                let c = a.last!
                opt = spec.options.first { $0.short == c }
                name = opt?.name ?? a
            }
            guard let opt else { throw .usage("unknown option '\(a)'") }
            if opt.valueName != nil {
                let v: String
                if let inline { v = inline } else {
                    guard i < args.count else { throw .usage("option '--\(opt.name)' needs a value <\(opt.valueName!)>") }
                    v = args[i]
                    i += 1
                }
                if !opt.repeatable, values[opt.name] != nil { throw .usage("option '--\(opt.name)' given twice") }
                values[opt.name, default: []].append(v)
            } else {
                guard inline == nil else { throw .usage("option '--\(opt.name)' takes no value") }
                flags.insert(opt.name)
            }
        }
        let required = spec.arguments.filter { !$0.name.hasSuffix("?") && !$0.name.hasSuffix("...") }.count
        let variadic = spec.arguments.contains { $0.name.hasSuffix("...") }
        if !helpRequested {
            if positionals.count < required {
                throw .usage("missing argument \(spec.arguments[positionals.count].name)")
            }
            if !variadic, positionals.count > spec.arguments.count {
                throw .usage("unexpected argument '\(positionals[spec.arguments.count])'")
            }
        }
    }
}

/// Buffered writes to a file descriptor: one `write(2)` per `capacity` bytes, not per line.
/// Not thread-safe; each command owns its writer.
///
/// Hot loops (decode, export) write a whole record in place into the buffer's free room
/// (`write(atMost:_:)`), after one check that it fits, rather than appending byte by byte.
final class OutputWriter {
    private let fd: Int32
    /// The bytes not yet written. Its room is `capacity` bytes, or more after one oversized
    /// record; a write never grows it otherwise (it flushes first).
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// Set once a write fails (EPIPE from `| head`, a full disk); later writes are dropped.
    private(set) var failed: Int32? = nil

    init(fd: Int32, capacity: Int = 1 << 16) {
        self.fd = fd
        self.capacity = max(capacity, 1)
        buffer.reserveCapacity(self.capacity)
    }

    func write(_ s: String) { write(copying: s.utf8) }

    func write(bytes: [UInt8]) { write(copying: bytes) }

    /// Bytes that exist already, copied into the buffer whole (by the array, in one go) rather
    /// than appended one at a time. Flushes first when they do not fit in its room.
    private func write(copying source: some Collection<UInt8>) {
        if buffer.count + source.count > buffer.capacity { flush() }
        var bytes: [UInt8] = []
        swap(&bytes, &buffer)
        bytes.append(contentsOf: source)
        swap(&bytes, &buffer)
        if buffer.count >= capacity { flush() }
    }

    /// Lets `build` append at most `maxBytes` bytes straight into the buffer, through the span
    /// it is given: its capacity is `maxBytes`, so a byte more traps. Flushes first when they
    /// might not fit in the buffer's room; a record larger than that (a huge name) grows it
    /// once, and it keeps the room.
    @inline(__always)
    func write(atMost maxBytes: Int, _ build: (inout OutputSpan<UInt8>) -> Void) {
        if buffer.count + maxBytes > buffer.capacity { flush() }
        // The bytes are moved out of the object while `build` runs and back after it, here, in
        // `write(copying:)` and in `flush`: no access to the property spans a call, so none
        // needs a run-time exclusivity check.
        var bytes: [UInt8] = []
        swap(&bytes, &buffer)
        bytes.append(addingCapacity: maxBytes, initializingWith: build)
        swap(&bytes, &buffer)
        if buffer.count >= capacity { flush() }
    }

    func flush() {
        var bytes: [UInt8] = []
        swap(&bytes, &buffer)
        if failed == nil { failed = writeAll(fd, bytes.span) }
        bytes.removeAll(keepingCapacity: true)
        swap(&bytes, &buffer)
    }

    /// Flushes and reports a write failure as an I/O error (74). A closed pipe (`| head`) is not
    /// a failure: the reader has what it wanted.
    func finish() throws(CLIError) {
        flush()
        if let e = failed, e != EPIPE {
            throw CLIError("cannot write output: \(String(cString: strerror(e)))", code: ExitCode.ioError)
        }
    }

    deinit { flush() }
}

/// Writes all of `bytes` to `fd`, again after an interrupted or partial `write(2)`. Returns the
/// errno of a failed write (EIO for one that wrote nothing), or `nil`.
func writeAll(_ fd: Int32, _ bytes: Span<UInt8>) -> Int32? {
    var off = 0
    while off < bytes.count {
        // Unsafe (syscall): write(2) reads at most the count of bytes it is given, the span's rest.
        let n = bytes.extracting(off...).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        if n == 0 { return EIO }
        off += n
    }
    return nil
}

/// Writes one line to standard error, unbuffered (diagnostics must not wait for a flush).
/// Messages quote input (a decode line, an argument, a file name), so control characters in them
/// are escaped: an ESC or BEL from a hostile line must not reach the terminal, and a newline
/// must not forge a second line.
func printError(_ message: String) {
    writeError(escapingControls(message) + "\n")
}

/// Writes `text` to standard error as it is: our own help, our own colour codes.
func writeError(_ text: String) {
    _ = writeAll(2, text.utf8.span)
}

/// `text` with C0 and C1 control characters and DEL as `\xNN`, and the bidi overrides as
/// `\u{NNNN}` (text that would reorder the rest of the line); everything else as it is.
func escapingControls(_ text: String) -> String {
    func isControl(_ v: UInt32) -> Bool {
        v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) || (0x202A...0x202E).contains(v)
            || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F
    }
    guard text.unicodeScalars.contains(where: { isControl($0.value) }) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
        let v = scalar.value
        if v <= 0xFF, isControl(v) {
            let hex = Array("0123456789abcdef".utf8)
            out += "\\x" + String(decoding: [hex[Int(v >> 4)], hex[Int(v & 15)]], as: UTF8.self)
        } else if isControl(v) {
            out += "\\u{" + String(v, radix: 16) + "}"
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}
