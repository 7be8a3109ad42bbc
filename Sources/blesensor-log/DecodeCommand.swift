#if canImport(Glibc)
import Glibc
#endif
import AdvScanner
import SensorDecode

/// `blesensor-log decode`: advertisements as text on stdin → readings as JSON lines on stdout.
enum DecodeCommand {
    static let spec = CommandSpec(
        name: "decode",
        abstract: "Decode advertisements given as hex on standard input.",
        options: [
            .flag("all", short: "a", help: "Also print advertisements nothing decodes, with their parsed AD fields."),
            .flag("explain", help: "After each advertisement, which decoders were asked, why, and what each answered."),
            .value("key", "ADDR=HEX", repeatable: true, help: "Key for an encrypted device (BTHome v2, MiBeacon)."),
        ],
        discussion: """
            INPUT (one advertisement per line; spaces inside hex are allowed; '#' starts a comment):
              AA:BB:CC:DD:EE:FF <hex of the AD bytes>
              <hex of a whole HCI event>   e.g. 04 3e …  or  3e …  (LE Advertising Report 0x02 or
                                           LE Extended Advertising Report 0x0D; every report is decoded)
            EXIT STATUS: 0, or 65 when a line could not be read (the other lines are still decoded).
            """)

    static let subcommand = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        let registry = Registry.standard(keys: try KeyOptions.parse(args.all("key")))
        // Output in large writes; nothing flushes per line (stdout a terminal included: the
        // buffer goes out as it fills and at the end).
        let out = OutputWriter(fd: 1, capacity: 1 << 18)
        var extractor = AdvertisementExtractor()
        var badLines = 0
        var lines = InputLines(fd: 0, maxLength: maxLineBytes)
        var json = JSONWriter(out)
        // Every plain line's AD bytes: each advertisement is gone before the next line is read.
        var adBytes = [UInt8](repeating: 0, count: ReportAssembler.maxLength)
        let all = args.has("all")
        let explain = args.has("explain")
        func decode(_ ad: Advertisement, lineNumber: Int) {
            let result = registry.decode(ad)
            // By index: a `for in`'s iterator costs more here, and the loop runs for every reading.
            for k in result.readings.indices {
                json.readingLine(result.readings[k], includeTime: false)
            }
            for m in result.malformed {
                printError("line \(lineNumber): \(ad.address): \(m.decoder): \(m.reason)")
            }
            if result.readings.isEmpty, all {
                out.write(JSON.undecoded(ad, ad.fields, includeTime: false) + "\n")
            }
            if explain { out.write(JSON.explanation(ad, registry.explain(ad)) + "\n") }
        }
        while let next = try lines.next() {
            guard case .text(let lineNumber, let line) = next else {
                badLines += 1
                printError("line \(next.number): longer than \(maxLineBytes) bytes, which no advertisement or HCI event is; skipped")
                continue
            }
            switch plainLine(line, buffer: &adBytes) {
            case .blank: continue
            case .advertisement(let ad): decode(ad, lineNumber: lineNumber)
            case .other:
                // '#' starts a comment anywhere on the line: hex and addresses never hold one.
                let text = String(decoding: line.prefix { $0 != UInt8(ascii: "#") }, as: UTF8.self).trimmingWhitespace()
                if text.isEmpty { continue }
                switch parseLine(text, extractor: &extractor) {
                case .failure(let message):
                    badLines += 1
                    printError("line \(lineNumber): \(message)")
                case .success(let ads):
                    for ad in ads { decode(ad, lineNumber: lineNumber) }
                }
            }
        }
        try out.finish()
        return badLines > 0 ? ExitCode.dataError : ExitCode.ok
    }

    /// The longest line read. The longest meaningful one is 1,650 AD bytes (the most an extended
    /// advertisement carries) written `xx ` after an address, under 5,000 bytes; this leaves room
    /// for wider spacing and a comment, and bounds what a line without an end (`< /dev/zero`) costs.
    static let maxLineBytes = 16384

    enum LineResult {
        case success([Advertisement])
        case failure(String)
    }

    /// What `plainLine` made of a line.
    enum PlainLine {
        /// Only spaces, tabs, carriage returns or a comment.
        case blank
        /// `AA:BB:CC:DD:EE:FF <hex>`, parsed.
        case advertisement(Advertisement)
        /// Anything else (an HCI event, `0x` prefixes, a `-` separated address, an error, text
        /// that is not ASCII): for `parseLine`.
        case other
    }

    /// The common line, `AA:BB:CC:DD:EE:FF` and hex bytes optionally separated by spaces, tabs
    /// or colons, read on its bytes: what `parseLine` gives it, without making a `String` or
    /// going through `BDAddress`'s and `Hex`'s generic text parsers (most of `decode`'s time).
    /// Takes only lines of ASCII hex digits, colons, spaces, tabs and CRs before any `#`, on
    /// which Character and byte semantics agree; everything else is `.other`, so that errors
    /// and rarer forms keep `parseLine`'s one set of rules.
    ///
    /// The AD bytes are written into `buffer` (`ReportAssembler.maxLength` bytes: no more are
    /// taken), which the advertisement then shares. A caller that keeps one buffer for every line
    /// and lets each advertisement go before the next line reuses its storage: no array is
    /// allocated per line.
    static func plainLine(_ line: ArraySlice<UInt8>, buffer: inout [UInt8]) -> PlainLine {
        precondition(buffer.count == ReportAssembler.maxLength, "plainLine's buffer holds the most AD bytes allowed")
        let nibbles = hexNibbles  // read once: each read of a `static let` checks its initialization
        let table = nibbles.span
        let u = line.span
        func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D }
        var i = 0
        while i < u.count, isBlank(u[i]) { i += 1 }
        if i == u.count || u[i] == UInt8(ascii: "#") { return .blank }
        // The address: 17 bytes, colons between the pairs, then a blank, a comment or the end.
        guard u.count - i >= 17 else { return .other }
        var address: UInt64 = 0
        for k in 0..<6 {
            let p = i + 3 * k
            guard k == 0 || u[p - 1] == UInt8(ascii: ":") else { return .other }
            let high = table[Int(u[p])]
            let low = table[Int(u[p + 1])]
            guard high < 16, low < 16 else { return .other }
            address = address << 8 | UInt64(high << 4 | low)
        }
        i += 17
        guard i == u.count || isBlank(u[i]) || u[i] == UInt8(ascii: "#") else { return .other }
        var count = 0
        do {
            var out = buffer.mutableSpan
            while i < u.count {
                let high = table[Int(u[i])]
                if high < 16 {
                    // A pair of digits: a separator may not split it (as in `Hex.decode`).
                    guard i + 1 < u.count, count < out.count else { return .other }
                    let low = table[Int(u[i + 1])]
                    guard low < 16 else { return .other }
                    out[count] = high << 4 | low
                    count += 1
                    i += 2
                } else if u[i] == 0x0D {
                    // A CR only trails: nothing but blanks after it, up to the end or a comment.
                    i += 1
                    while i < u.count, isBlank(u[i]) { i += 1 }
                    guard i == u.count || u[i] == UInt8(ascii: "#") else { return .other }
                    break
                } else if high == plainSeparator {
                    i += 1
                } else if u[i] == UInt8(ascii: "#") {
                    break
                } else {
                    return .other
                }
            }
        }
        return .advertisement(Advertisement(address: BDAddress(rawValue: address), data: buffer[..<count]))
    }

    /// By byte: its value for a hex digit, `plainSeparator` for a space, tab, colon or CR, else
    /// `notPlain` (`plainLine`).
    static let hexNibbles: [UInt8] = (0...255).map { c -> UInt8 in
        switch UInt8(c) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(c) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(c) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(c) - UInt8(ascii: "A") + 10
        case 0x20, 0x09, 0x0D, UInt8(ascii: ":"): plainSeparator
        default: notPlain
        }
    }
    static let plainSeparator: UInt8 = 16
    static let notPlain: UInt8 = 255

    /// One input line → advertisements, or why the line is unusable.
    static func parseLine(_ text: Substring, extractor: inout AdvertisementExtractor) -> LineResult {
        let firstToken = text.prefix { $0 != " " && $0 != "\t" }
        if firstToken.count == 17, firstToken.contains(":") {
            guard let address = BDAddress(firstToken) else { return .failure("'\(firstToken)' is not a Bluetooth address") }
            let rest = text.dropFirst(firstToken.count)
            guard let data = Hex.decode(rest) else { return .failure("AD bytes are not valid hex") }
            guard data.count <= ReportAssembler.maxLength else { return .failure("\(data.count) AD bytes, at most 1650 allowed") }
            return .success([Advertisement(address: address, data: data)])
        }
        guard let packet = Hex.decode(text) else {
            return .failure("expected 'AA:BB:CC:DD:EE:FF <hex>' or the hex of an HCI event")
        }
        let event: ArraySlice<UInt8>
        switch HCIEvent.withoutIndicator(h4: packet) {
        case .failure(let e): return .failure("malformed HCI event: \(e)")
        case .success(let bytes): event = bytes
        }
        var ads: [Advertisement] = []
        let outcome = extractor.forEachAdvertisement(in: HCIPacket(type: .event, bytes: event, incoming: true, timeMicros: 0)) {
            ads.append(Advertisement(header: $0, data: $1))
        }
        switch outcome {
        case .advertisements: return .success(ads)
        case .malformed(let e): return .failure("malformed HCI event: \(e)")
        case .other(let other): return .failure("not an LE advertising report event (\(other.summary))")
        case .notAnEvent: return .failure("not an HCI event")  // the packet was made an event above
        }
    }
}

/// A file descriptor's lines, read in chunks of 64 KiB: memory stays bounded whatever the input.
/// A line longer than `maxLength` is reported (as `nil`) as soon as that many bytes have come,
/// and its rest is skipped up to the next newline. The last line may lack its newline.
///
/// A line that lies whole in the chunk is handed out as a slice of it, uncopied; only one split
/// by a refill is gathered in a second array. A caller that drops each line before asking for the
/// next leaves both arrays unshared, so neither is ever copied on the next read.
struct InputLines {
    let fd: Int32
    let maxLength: Int
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0
    private var atEnd = false
    /// The start of a line split by a refill, gathered across reads.
    private var line: [UInt8] = []
    private var lineNumber = 0
    /// Inside a line already reported as too long: drop bytes up to its newline.
    private var skipping = false

    init(fd: Int32, maxLength: Int) {
        self.fd = fd
        self.maxLength = maxLength
        line.reserveCapacity(maxLength)
    }

    /// One line read, numbered from 1.
    enum Line {
        /// Its bytes, without the newline.
        case text(number: Int, ArraySlice<UInt8>)
        /// Longer than `maxLength`: only reported, its bytes skipped.
        case tooLong(number: Int)

        var number: Int {
            switch self {
            case .text(let number, _), .tooLong(let number): number
            }
        }

        /// The bytes; `nil` for a line too long.
        var bytes: ArraySlice<UInt8>? {
            if case .text(_, let bytes) = self { bytes } else { nil }
        }
    }

    /// The next line; `nil` at the end of the input.
    mutating func next() throws(CLIError) -> Line? {
        // Only after a gathered line: emptying an empty array is still a call.
        if !line.isEmpty { line.removeAll(keepingCapacity: true) }
        while true {
            if start == end {
                if atEnd { break }
                let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw CLIError("cannot read standard input: \(String(cString: strerror(errno)))", code: ExitCode.ioError)
                }
                if n == 0 { atEnd = true; continue }
                start = 0
                end = n
            }
            // memchr: the C library's search, several bytes a step. The range is within `chunk`.
            let newline: Int? = chunk.withUnsafeBufferPointer { b in
                memchr(b.baseAddress! + start, 0x0A, end - start).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - b.baseAddress! }
            }
            let stop = newline ?? end
            if skipping {
                start = newline.map { $0 + 1 } ?? end
                if newline != nil { skipping = false }
                continue
            }
            if line.count + (stop - start) > maxLength {
                lineNumber += 1
                start = newline.map { $0 + 1 } ?? end
                skipping = newline == nil
                return .tooLong(number: lineNumber)
            }
            if let newline, line.isEmpty {
                lineNumber += 1
                let whole = chunk[start..<newline]
                start = newline + 1
                return .text(number: lineNumber, whole)
            }
            line.append(contentsOf: chunk[start..<stop])
            start = newline.map { $0 + 1 } ?? end
            if newline != nil {
                lineNumber += 1
                return .text(number: lineNumber, line[...])
            }
        }
        guard !line.isEmpty else { return nil }
        lineNumber += 1
        return .text(number: lineNumber, line[...])
    }
}

extension HCIEvent {
    /// A few words naming the event, for messages.
    var summary: String {
        switch self {
        case .commandComplete(_, let op, _): "Command Complete for opcode 0x\(String(op, radix: 16))"
        case .commandStatus(let st, _, let op): "Command Status 0x\(String(st, radix: 16)) for opcode 0x\(String(op, radix: 16))"
        case .hardwareError(let c): "Hardware Error 0x\(String(c, radix: 16))"
        case .advertisingReports(let r): "\(r.count) advertising reports"
        case .deviceEvent(let e, let d): "device event \(e) for hci\(d)"
        case .leMetaOther(let s, _): "LE Meta subevent 0x\(String(s, radix: 16))"
        case .unknown(let c, _): "event 0x\(String(c, radix: 16))"
        }
    }
}

/// `--key ADDR=HEX` options → `DeviceKeys`.
enum KeyOptions {
    static func parse(_ values: [String]) throws(CLIError) -> DeviceKeys {
        var keys = DeviceKeys()
        for v in values {
            let parts = v.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let a = BDAddress(parts[0]), let k = Hex.decode(parts[1]), k.count == 16 else {
                throw .usage("--key wants ADDR=HEX with a 16-byte key, got '\(v.prefix(20))…'")
            }
            keys.keys[a] = k
        }
        return keys
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and carriage returns.
    func trimmingWhitespace() -> SubSequence {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
        let end = lastIndex(where: { !isSpace($0) })!
        return self[start...end]
    }
}
