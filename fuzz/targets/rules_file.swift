import AdvScanner
import SensorDecode

/// The actions rules file parser (`ActionFile.parse`, what `ActionFile.load` hands a file's bytes
/// to, and under it `JSONParser`), built with the CLI's sources minus main.swift. The input is the
/// file's bytes. Invariants checked: what is accepted holds the bounds the runner relies on (at
/// most `maxRules` rules and `maxRemotes` remotes, each rule an absolute program without NUL and
/// durations inside a day); a refusal names a line of the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRulesFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lineCount = bytes.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    let file: ActionFile
    do throws(ActionFile.RuleError) {
        file = try ActionFile.parse(bytes)
    } catch {
        if error.line < 1 || error.line > lineCount { fatalError("an error on line \(error.line) of \(lineCount): \(error)") }
        _ = error.description
        return 0
    }
    if file.rules.count > ActionFile.maxRules || file.remotes.count > ActionFile.maxRemotes {
        fatalError("\(file.rules.count) rules, \(file.remotes.count) remotes accepted")
    }
    for rule in file.rules {
        guard let program = rule.argv.first, program.hasPrefix("/") else { fatalError("a rule runs \(rule.argv)") }
        if rule.argv.contains(where: { $0.utf8.contains(0) }) { fatalError("an argument holds a NUL: \(rule.argv)") }
        if !(0...86400).contains(rule.cooldownSeconds) || !(rule.timeoutSeconds > 0 && rule.timeoutSeconds <= 86400) {
            fatalError("cooldown \(rule.cooldownSeconds) s, timeout \(rule.timeoutSeconds) s accepted")
        }
        if rule.line < 1 || rule.line > lineCount { fatalError("a rule on line \(rule.line) of \(lineCount)") }
    }
    return 0
}

// main.swift, left out of this build, holds these two; the decode command's spec refers to them.
struct Subcommand: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) throws(CLIError) -> Int32
}
