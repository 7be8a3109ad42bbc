#if canImport(Glibc)
import Glibc
#endif

/// Small tools the benchmarks share: a monotonic clock, whole-file reads, option lookup, medians.
/// Nothing here is measured; it only sets measurements up and reports them.

/// Why a benchmark could not run. One line, printed as "Error: …" with exit status 1.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Seconds on the monotonic clock: intervals only, never dates.
func monotonicSeconds() -> Double {
    var ts = timespec()
    // CLOCK_MONOTONIC cannot fail on Linux for a valid pointer; a failure would leave 0s, which
    // shows as an absurd rate rather than a wrong-but-plausible one.
    _ = clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU seconds (user + system) the process has used so far, all its threads included: the
/// store's checkpoint thread counts, as the Python reference's inline checkpoints do.
func processCPUSeconds() -> Double {
    var ts = timespec()
    _ = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The whole file as bytes.
func readWholeFile(_ path: String) throws(BenchError) -> [UInt8] {
    guard let f = fopen(path, "rb") else { throw BenchError("cannot open \(path): \(String(cString: strerror(errno)))") }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        if n > 0 { out += buffer[0..<n] }
        if n < buffer.count {
            if ferror(f) != 0 { throw BenchError("cannot read \(path)") }
            break
        }
    }
    return out
}

/// `--name value` options after the subcommand; bare words are positional.
struct Options {
    private(set) var positional: [String] = []
    private var values: [String: String] = [:]

    init(_ args: ArraySlice<String>) throws(BenchError) {
        var i = args.startIndex
        while i < args.endIndex {
            let a = args[i]
            if a.hasPrefix("--") {
                guard i + 1 < args.endIndex else { throw BenchError("\(a) needs a value") }
                values[String(a.dropFirst(2))] = args[i + 1]
                i += 2
            } else {
                positional.append(a)
                i += 1
            }
        }
    }

    func string(_ name: String) throws(BenchError) -> String {
        guard let v = values[name] else { throw BenchError("--\(name) is required") }
        return v
    }

    func int(_ name: String, default d: Int? = nil) throws(BenchError) -> Int {
        guard let text = values[name] else {
            if let d { return d }
            throw BenchError("--\(name) is required")
        }
        guard let v = Int(text.replacingUnderscores()) else { throw BenchError("--\(name) wants an integer, got '\(text)'") }
        return v
    }

    func double(_ name: String, default d: Double) throws(BenchError) -> Double {
        guard let text = values[name] else { return d }
        guard let v = Double(text) else { throw BenchError("--\(name) wants a number, got '\(text)'") }
        return v
    }
}

extension String {
    func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}

/// The median of a non-empty list.
func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// Prints `key=value` pairs on one line: the format scripts/bench reads.
func report(_ pairs: [(String, String)]) {
    print(pairs.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
}

/// `x` with `digits` decimals (0–6), rounded half away from zero.
func fixed(_ x: Double, _ digits: Int = 0) -> String {
    guard x.isFinite else { return "\(x)" }
    var scale = 1.0
    for _ in 0..<max(0, min(digits, 6)) { scale *= 10 }
    let scaled = (abs(x) * scale).rounded()
    let whole = Int(scaled / scale)
    let frac = Int(scaled - Double(whole) * scale)
    var text = (x < 0 && scaled > 0 ? "-" : "") + "\(whole)"
    if digits > 0 {
        let f = "\(frac)"
        text += "." + String(repeating: "0", count: max(0, digits - f.count)) + f
    }
    return text
}

/// One line on standard error (unbuffered, so it is never lost to an exit).
func printError(_ message: String) {
    var line = Array(message.utf8)
    line.append(UInt8(ascii: "\n"))
    line.withUnsafeBytes { p in _ = write(2, p.baseAddress!, p.count) }
}
