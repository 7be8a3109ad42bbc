/// The config file parser (`ConfigFile.parse`, what `ConfigFile.load` hands a file's text to) and
/// the merge of its entries into a command's arguments (`ParsedArguments.merge`), built with the
/// CLI's sources minus main.swift. The input is the file's text. Invariants checked: an entry is a
/// key of `[a-z0-9-]` on a line that exists, in order, and no value spans lines; a refusal is one
/// line naming `path:line`, 65 from the parser and 64 from the merge.
let spec = CommandSpec(
    name: "fuzz", abstract: "the options a config file may set",
    options: [
        ConfigFile.option,
        .value("interval", "SECONDS", help: "a value"),
        .value("hci", "N", repeatable: true, help: "a repeatable value"),
        .flag("verbose", short: "v", help: "a flag"),
        .flag("mqtt-retain", help: "a flag with a dash"),
    ])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let path = "fuzz.conf"
    let config: ConfigFile
    do throws(CLIError) {
        config = try ConfigFile.parse(text, path: path)
    } catch {
        check(error, path: path, code: ExitCode.dataError)
        return 0
    }
    let lineCount = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).count
    var previous = 0
    for entry in config.entries {
        let keyBytes = Array(UInt8(ascii: "a")...UInt8(ascii: "z")) + Array(UInt8(ascii: "0")...UInt8(ascii: "9")) + [UInt8(ascii: "-")]
        if entry.key.isEmpty || !entry.key.utf8.allSatisfy(keyBytes.contains) {
            fatalError("a key outside [a-z0-9-]: '\(entry.key)'")
        }
        if entry.line <= previous || entry.line > lineCount { fatalError("entry line \(entry.line) after \(previous) of \(lineCount)") }
        if let v = entry.value, v.contains(where: \.isNewline) { fatalError("a value spans lines: '\(v)'") }
        previous = entry.line
    }
    // As if `--interval 60` were on the command line: the file's lines for it are then ignored.
    var args = try! ParsedArguments(["--interval", "60"], spec: spec)
    do throws(CLIError) {
        try args.merge(config, spec: spec)
    } catch {
        check(error, path: path, code: ExitCode.usage)
        return 0
    }
    if args.values["interval"] != ["60"] { fatalError("the config file overrode the command line: \(args.values)") }
    for (name, values) in args.values where values.contains(where: \.isEmpty) { fatalError("an empty value for \(name)") }
    // An error about a setting is attributed to the line it came from.
    _ = args.attributing(CLIError("--hci '\(args.values["hci"]?.first ?? "")' is not an adapter", code: ExitCode.usage))
    return 0
}

/// A refusal: one line, naming the file and a line, with the expected exit code.
func check(_ error: CLIError, path: String, code: Int32) {
    if error.code != code { fatalError("exit code \(error.code), wanted \(code): \(error.message)") }
    if !error.message.hasPrefix(path + ":") { fatalError("an error that names no line: \(error.message)") }
    if error.message.contains(where: \.isNewline) { fatalError("an error of several lines: \(error.message)") }
}

// main.swift, left out of this build, holds these two; the decode command's spec refers to them.
struct Subcommand: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) throws(CLIError) -> Int32
}
