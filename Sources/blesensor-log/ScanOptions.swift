import AdvScanner

/// The options that choose and tune the radio, shared by `scan` and `run`.
enum ScanOptions {
    static let specs: [OptionSpec] = [
        .value("hci", "SPEC", help: "hciN, tcp:HOST:PORT or serial:/dev/ttyACM0[:BAUD] (default: first adapter)."),
        .value("interval-ms", "N", help: "Scan interval in ms, 2.5–10240 (default 100)."),
        .value("window-ms", "N", help: "Scan window in ms, ≤ interval (default: the interval, i.e. continuous)."),
        .value("silence-timeout", "D", help: "Switch scanning on again after D without advertisements (default 60s)."),
    ]

    static func number(_ args: ParsedArguments, _ name: String) throws(CLIError) -> Double? {
        guard let text = args.value(name) else { return nil }
        guard let v = Double(text), v.isFinite else { throw .usage("--\(name) wants a number, got '\(text)'") }
        return v
    }

    /// `--duration D` → seconds, `nil` when absent.
    static func duration(_ args: ParsedArguments) throws(CLIError) -> Double? {
        guard let d = args.value("duration") else { return nil }
        return try TimeArguments.duration(
            d, option: "duration", in: 0...TimeArguments.maxDurationSeconds, positive: true, example: "25, 90s, 5m, 2h")
    }

    static func configuration(_ args: ParsedArguments) throws(CLIError) -> (TransportSpec, ScanConfig) {
        var config = ScanConfig()
        if let i = try number(args, "interval-ms") {
            config.intervalMs = i
            config.windowMs = i
        }
        if let w = try number(args, "window-ms") { config.windowMs = w }
        if let text = args.value("silence-timeout") {
            config.silenceTimeout = try TimeArguments.duration(
                text, option: "silence-timeout", in: 1...TimeArguments.maxDurationSeconds, example: "60s, 5m")
        }
        if case .failure(let e) = config.slots() { throw .usage(e.description) }
        switch TransportSpec.parse(args.value("hci")) {
        case .success(let s): return (s, config)
        case .failure(let e): throw .usage(e.description)
        }
    }

    /// Opens the transport and makes the scanner; an absent adapter or endpoint is 69.
    static func makeScanner(_ spec: TransportSpec, _ config: ScanConfig, log: ScanLog) throws(CLIError) -> LiveScanner {
        do throws(ScanError) {
            return try LiveScanner(transport: try spec.makeTransport(), config: config, log: log)
        } catch {
            throw CLIError(error.description, code: error.exitCode, showUsage: error.exitCode == ExitCode.usage)
        }
    }
}
