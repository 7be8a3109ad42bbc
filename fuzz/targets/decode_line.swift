import AdvScanner
import SensorDecode

/// `decode`'s line parser (`DecodeCommand.parseLine`), built with the CLI's sources minus
/// main.swift: the input is the text of lines, each parsed as `decode` does (trimmed, comments
/// skipped), with one extractor across them as in `run`, and what it yields decoded and written as
/// JSON lines as `decode` writes them.
let registry = Registry.standard()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecodeLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var extractor = AdvertisementExtractor()
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
        // As `decode` does: '#' starts a comment anywhere on the line.
        let text = String(decoding: line.utf8.prefix { $0 != UInt8(ascii: "#") }, as: UTF8.self).trimmingWhitespace()
        if text.isEmpty { continue }
        if case .success(let ads) = DecodeCommand.parseLine(text, extractor: &extractor) {
            for ad in ads {
                if ad.data.count > ReportAssembler.maxLength { fatalError("an advertisement above the limit") }
                // And on to decode's output: each JSON text must stay one line, whatever the bytes.
                var json = JSON.undecoded(ad, ad.fields, includeTime: false)
                for r in registry.decode(ad).readings { json += JSON.reading(r, includeTime: false) }
                if json.utf8.contains(UInt8(ascii: "\n")) { fatalError("a JSON line holds a newline: \(json)") }
            }
        }
    }
    return 0
}

// main.swift, left out of this build, holds these two; the decode command's spec refers to them.
struct Subcommand: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) throws(CLIError) -> Int32
}
