import AdvScanner

/// The options that choose and tune the radio, shared by `scan` and `run`.
enum ScanOptions {
    static let specs: [OptionSpec] = [
        .value("hci", "SPEC", repeatable: true, help:
            "hciN, an adapter's address (AA:BB:CC:DD:EE:FF, whatever its hciN), tcp:HOST:PORT or serial:/dev/ttyACM0[:BAUD] "
            + "(default: first adapter); several --hci scan several adapters into one store."),
        .flag("unblock", help: "Unblock a soft-blocked (rfkill) adapter at start instead of only reporting it."),
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

    static func configuration(_ args: ParsedArguments) throws(CLIError) -> (ScanTargets, ScanConfig) {
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
        var targets = ScanTargets(transports: [], unblock: args.has("unblock"))
        for text in args.all("hci").isEmpty ? [nil] : args.all("hci").map(Optional.some) {
            switch TransportSpec.parse(text) {
            case .success(let spec):
                guard !targets.transports.contains(spec) else { throw .usage("--hci \(spec) is given twice") }
                targets.transports.append(spec)
            case .failure(let e): throw .usage(e.description)
            }
        }
        return (targets, config)
    }

    /// Opens the transports and makes their scanners, after saying (or with `--unblock` lifting)
    /// an rfkill block on each kernel adapter; an absent adapter or endpoint is 69.
    static func makeScanner(_ targets: ScanTargets, _ config: ScanConfig, log: ScanLog) throws(CLIError) -> ScannerGroup {
        do throws(ScanError) {
            var scanners: [LiveScanner] = []
            for spec in targets.transports {
                let transport = try spec.makeTransport()
                if let adapter = kernelAdapterName(transport),
                    let (level, line) = RfkillSysfs().prepare(adapter: adapter, unblock: targets.unblock).logLine
                {
                    log.write(level, line)
                }
                scanners.append(try LiveScanner(transport: transport, config: config, log: log))
            }
            return ScannerGroup(scanners)
        } catch {
            throw CLIError(error.description, code: error.exitCode, showUsage: error.exitCode == ExitCode.usage)
        }
    }

    /// `hciN` of a raw-socket transport (its rfkill switch has that name); `nil` for H4 streams
    /// and for an address no adapter has (starting then fails and says so).
    static func kernelAdapterName(_ transport: any ScanTransport) -> String? {
        if let t = transport as? HCISocketTransport { return t.name }
        if let t = transport as? AddressedAdapterTransport, case .success(let s) = t.resolve() { return s.name }
        return nil
    }
}

/// What `--hci` (each one) and `--unblock` ask for.
struct ScanTargets: Sendable, Equatable {
    var transports: [TransportSpec]
    var unblock: Bool
}
