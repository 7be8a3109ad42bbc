#if canImport(Glibc)
import Glibc
#endif

/// `blesensor-log.conf`: the long options of a command, one `key = value` a line, so that a
/// service's `ExecStart` stays short.
///
/// The file holds nothing of its own: each line becomes the long option of the same name and is
/// validated by the code that validates that option on the command line, so an option added to
/// a command is at once a setting of its file. Options given on the command line win: a key the
/// command line has is ignored in the file (all its lines, for a repeatable option such as `hci`).
///
/// Syntax (as rtl_433's `rtl_433.conf`, with an `=`):
///
/// | line | meaning |
/// |---|---|
/// | `# …`, blank | nothing |
/// | `key = value` | `--key value`; spaces around `=` and at both ends are ignored |
/// | `key = "va # lue "` | a quoted value keeps spaces and `#` |
/// | `key = value  # why` | a `#` after a space starts a comment |
/// | `key` or `key = true` / `false` | a flag (`yes`/`no`, `on`/`off`, `1`/`0` too) |
///
/// Search path when `--config` is not given, first file found wins (only that one is read):
/// `$XDG_CONFIG_HOME/blesensor-log/blesensor-log.conf` (else `~/.config/…`), then
/// `/etc/blesensor-log/blesensor-log.conf`. No file is fine: the defaults apply.
struct ConfigFile: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        let key: String
        /// `nil` for a bare key (a flag).
        let value: String?
        let line: Int
    }

    let path: String
    let entries: [Entry]

    static let systemPath = "/etc/blesensor-log/blesensor-log.conf"
    static let optionName = "config"
    /// A config file is a few dozen lines; anything this large is not one.
    static let maxBytes = 1 << 20

    static let option = OptionSpec.value(
        optionName, "FILE",
        help: "Read options from FILE, one 'key = value' a line with the long option names (default: the first of "
            + "$XDG_CONFIG_HOME/blesensor-log/blesensor-log.conf or ~/.config/…, then \(systemPath)).")

    /// `--config` of a command that takes only `settings` from run's file.
    static func sharedOption(settings: Set<String>) -> OptionSpec {
        let names = settings.sorted().map { "'\($0)'" }.joined(separator: ", ")
        return .value(
            optionName, "FILE",
            help: "Take \(names) from run's config file FILE when not given here, ignoring its other settings (default: the "
                + "first of $XDG_CONFIG_HOME/blesensor-log/blesensor-log.conf or ~/.config/…, then \(systemPath)).")
    }

    /// The files tried, in order, when `--config` is not given.
    static func searchPath(environment: (String) -> String? = Paths.environment) -> [String] {
        let userDir = environment("XDG_CONFIG_HOME") ?? environment("HOME").map { $0 + "/.config" }
        return (userDir.map { [$0 + "/blesensor-log/blesensor-log.conf"] } ?? []) + [systemPath]
    }

    /// The file `--config` names (which must exist), else the first of `searchPath` that exists;
    /// `nil` when none does.
    /// - Throws: 66 when the named file (or a found one) cannot be read, 65 when it is not a
    ///   config file (too large, a line that is not `key = value`).
    static func locate(explicit: String?, searchPath: [String] = ConfigFile.searchPath()) throws(CLIError) -> ConfigFile? {
        if let explicit { return try load(explicit) }
        for candidate in searchPath {
            var st = stat()
            guard stat(candidate, &st) == 0 else { continue }  // absent (or unreachable folder): next
            return try load(candidate)
        }
        return nil
    }

    static func load(_ path: String) throws(CLIError) -> ConfigFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw CLIError("cannot read config file \(path): \(String(cString: strerror(errno)))", code: ExitCode.noInput)
        }
        defer { _ = close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 14)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 {
                throw CLIError("cannot read config file \(path): \(String(cString: strerror(errno)))", code: ExitCode.noInput)
            }
            if n == 0 { break }
            bytes += chunk[..<n]
            guard bytes.count <= maxBytes else {
                throw CLIError("\(path) is larger than 1 MiB: not a config file", code: ExitCode.dataError)
            }
        }
        return try parse(String(decoding: bytes, as: UTF8.self), path: path)
    }

    /// The entries of `text`; which keys exist is the command's business (`ParsedArguments.merge`).
    /// - Throws: 65 naming `path:line` for a line that is not a comment, a key or `key = value`.
    static func parse(_ text: String, path: String) throws(CLIError) -> ConfigFile {
        var entries: [Entry] = []
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let lineNumber = index + 1
            func bad(_ why: String) -> CLIError { CLIError("\(path):\(lineNumber): \(why)", code: ExitCode.dataError) }
            // A C string ends at a NUL: `db = /x\0y` would open /x while every message named /x\0y.
            guard !raw.utf8.contains(0) else { throw bad("holds a NUL byte") }
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            let key: Substring
            var value: String? = nil
            if let eq = line.firstIndex(of: "=") {
                key = line[..<eq].trimmingWhitespace()
                value = try Self.value(line[line.index(after: eq)...].trimmingWhitespace(), bad)
            } else {
                key = Self.uncommented(line)
            }
            guard !key.isEmpty, key.utf8.allSatisfy({ isKeyByte($0) }) else {
                throw bad("expected 'key = value' (or '# comment'), got '\(line.prefix(60))'")
            }
            entries.append(Entry(key: String(key), value: value, line: lineNumber))
        }
        return ConfigFile(path: path, entries: entries)
    }

    /// A value without its comment and quotes.
    private static func value(_ text: Substring, _ bad: (String) -> CLIError) throws(CLIError) -> String {
        guard text.hasPrefix("\"") else { return String(uncommented(text)) }
        let body = text.dropFirst()
        guard let close = body.firstIndex(of: "\"") else { throw bad("a quoted value has no closing '\"'") }
        let rest = body[body.index(after: close)...].trimmingWhitespace()
        guard rest.isEmpty || rest.hasPrefix("#") else { throw bad("text after a quoted value: '\(rest.prefix(40))'") }
        return String(body[..<close])
    }

    /// `text` up to a `#` that follows a space or a tab, trimmed.
    private static func uncommented(_ text: Substring) -> Substring {
        var previous: Character = " "
        for i in text.indices {
            if text[i] == "#", previous == " " || previous == "\t" { return text[..<i].trimmingWhitespace() }
            previous = text[i]
        }
        return text
    }

    private static func isKeyByte(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
            || b == UInt8(ascii: "-")
    }

    /// The words a flag's value may be.
    static func flagValue(_ text: String?) -> Bool? {
        switch text?.lowercased() {
        case nil, "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: return nil
        }
    }
}

/// Where one setting of a parsed command came from, for errors that name the file's line.
struct ConfigOrigin: Sendable, Equatable {
    let line: Int
    let value: String?
}

extension ParsedArguments {
    /// Adds the settings of `config` that the command line did not give, validated as options of
    /// `spec` (the same rules as on the command line: known name, a value where one is wanted, at
    /// most once unless repeatable). When the file is run's (`spec.configSettings`), only those
    /// settings are taken and other keys are skipped.
    /// - Throws: 64 naming `path:line` for an unknown key, a missing value or a repeated one.
    mutating func merge(_ config: ConfigFile, spec: CommandSpec) throws(CLIError) {
        let fromCommandLine = Set(values.keys).union(flags)
        configPath = config.path
        for entry in config.entries {
            if let taken = spec.configSettings, !taken.contains(entry.key) { continue }
            func bad(_ why: String) -> CLIError { CLIError("\(config.path):\(entry.line): \(why)", code: ExitCode.usage) }
            guard entry.key != ConfigFile.optionName, entry.key != "help",
                let option = spec.options.first(where: { $0.name == entry.key })
            else {
                let known = spec.options.map(\.name).filter { $0 != ConfigFile.optionName }.joined(separator: ", ")
                throw bad("unknown setting '\(entry.key)' (the settings are the long options of '\(spec.name)': \(known))")
            }
            if let first = configOrigins[option.name]?.first, !option.repeatable {
                throw bad("'\(option.name)' is set twice (also on line \(first.line))")
            }
            configOrigins[option.name, default: []].append(ConfigOrigin(line: entry.line, value: entry.value))
            if fromCommandLine.contains(option.name) { continue }  // the command line wins
            if option.valueName != nil {
                guard let v = entry.value, !v.isEmpty else { throw bad("'\(option.name)' needs a value <\(option.valueName!)>") }
                values[option.name, default: []].append(v)
            } else {
                guard let on = ConfigFile.flagValue(entry.value) else {
                    throw bad("'\(option.name)' is a flag: true or false, got '\(entry.value ?? "")'")
                }
                if on { flags.insert(option.name) }
            }
        }
        for name in fromCommandLine { configOrigins[name] = nil }
    }

    /// Reads the config file this command takes (`--config`, else the search path) into these
    /// arguments; nothing when the spec has no `--config` option or reads no file by default.
    mutating func readConfigFile(spec: CommandSpec) throws(CLIError) {
        guard spec.readsConfigFile else { return }
        if let config = try ConfigFile.locate(explicit: value(ConfigFile.optionName)) { try merge(config, spec: spec) }
    }

    /// `error` prefixed with the config file's line when it is about a setting that came from
    /// there: its message names the option (`--interval …`) or quotes the line's value.
    func attributing(_ error: CLIError) -> CLIError {
        guard let path = configPath, !configOrigins.isEmpty else { return error }
        let message = error.message
        for (name, origins) in configOrigins.sorted(by: { $0.key.count > $1.key.count }) {
            let quoted = origins.first { o in o.value.map { !$0.isEmpty && message.contains("'\($0)'") } ?? false }
            guard let origin = quoted ?? (Self.mentions(message, option: name) ? origins.first : nil) else { continue }
            return CLIError("\(path):\(origin.line): \(message)", code: error.code)
        }
        return error
    }

    /// Whether `message` names `--name` as a whole option (not `--name-ms`).
    static func mentions(_ message: String, option name: String) -> Bool {
        let text = Array(message.utf8), token = Array(("--" + name).utf8)
        guard text.count >= token.count else { return false }
        for start in 0...(text.count - token.count) where text[start..<start + token.count].elementsEqual(token) {
            let end = start + token.count
            guard end < text.count else { return true }
            let next = text[end]
            if !(isWordByte(next) || next == UInt8(ascii: "-")) { return true }
        }
        return false
    }

    private static func isWordByte(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
    }

    /// For `-v` and `doctor`: which file was read.
    var configDescription: String {
        guard let configPath else { return "config: no file (looked for \(ConfigFile.searchPath().joined(separator: ", ")))" }
        let n = configOrigins.values.reduce(0) { $0 + $1.count }
        return "config: \(configPath) (\(n) setting\(n == 1 ? "" : "s") used)"
    }
}
