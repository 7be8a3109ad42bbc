import AdvScanner
import SensorDecode

/// `decode`'s line parser (`DecodeCommand.parseLine`), built with the CLI's sources minus
/// main.swift: the input is the text of lines, each parsed as `decode` does (trimmed, comments
/// skipped), with one assembler across them as in `run`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecodeLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var assembler = ReportAssembler()
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
        let trimmed = line.trimmingWhitespace()
        if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
        if case .success(let ads) = DecodeCommand.parseLine(trimmed, assembler: &assembler) {
            for ad in ads { precondition(ad.data.count <= ReportAssembler.maxLength, "an advertisement above the limit") }
        }
    }
    return 0
}

// main.swift, left out of this build, holds these two; the decode command's spec refers to them.
struct Subcommand: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) throws(CLIError) -> Int32
}
