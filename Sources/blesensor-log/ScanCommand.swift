import AdvScanner
import SensorDecode

#if canImport(Glibc)
    import Glibc
#endif

/// `blesensor-log scan`: live readings from an adapter or an external controller, as JSON lines or
/// as a refreshing table on a terminal. Stores nothing (that is `run`).
enum ScanCommand {
    static let spec = CommandSpec(
        name: "scan",
        abstract: "Scan for sensors and print their readings live.",
        options: ScanOptions.specs + [
            .flag("json", help: "JSON lines, one per reading (the default when stdout is not a terminal)."),
            .flag("all", short: "a", help: "Also print advertisements nothing decodes (JSON only)."),
            .flag("unknown", help: "Print only advertisements nothing decodes, once per device and payload shape, as `decode` input."),
            .value("duration", "D", help: "Stop after D (e.g. 25, 90s, 5m)."),
            .value("capture", "FILE", help: "Also write every HCI packet to FILE (btsnoop, opens in Wireshark and btmon)."),
            .flag("verbose", short: "v", help: "Log HCI commands and recoveries in detail on standard error."),
        ],
        discussion: """
            One line on standard error says which adapter and which scanning (legacy or extended) is used.
            SIGINT/SIGTERM stop scanning (only if we switched it on) and exit 0.
            EXIT STATUS: 0; 64 on a bad option; 69 when the adapter or endpoint is unavailable.
            """)

    static let subcommand = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        let (spec, config) = try ScanOptions.configuration(args)
        let duration = try ScanOptions.duration(args)
        let keys = try KeyFile(databasePath: StoreAccess.databasePath(args)).load()
        let verbose = args.has("verbose")
        let log = ScanLog { level, line in
            if level >= .info || verbose { printError(line) }
        }
        let json = args.has("json") || isatty(1) == 0
        let includeAll = args.has("all")
        var unknown = try UnknownDevices.scanOption(args)

        let scanner = try ScanOptions.makeScanner(spec, config, log: log)
        let capture = try CaptureOption.open(args.value("capture"), scanner: scanner, log: EventLog(verbose: verbose))
        let stop: StopSignal
        do { stop = try StopSignal() } catch { throw CLIError(error.description, code: ExitCode.software) }
        StopSignal.installSignalHandlers(stop)

        let registry = Registry.standard(keys: keys)
        var statistics = DecoderStatistics()
        let out = OutputWriter(fd: 1)
        var table = LiveTable(capacity: 512)
        let started = Clock.monotonic()
        do throws(ScanError) {
            try scanner.run(
                stop: stop,
                onAdvertisement: { header, bytes in
                    let ad = Advertisement(header: header, data: bytes)
                    let result = registry.decode(ad, counting: &statistics)
                    if unknown != nil {
                        if result.readings.isEmpty, let line = unknown!.record(ad) { out.write(line + "\n") }
                    } else if json {
                        for r in result.readings { out.write(JSON.reading(r, includeTime: true) + "\n") }
                        if result.readings.isEmpty, includeAll {
                            out.write(JSON.undecoded(ad, ad.fields, includeTime: true) + "\n")
                        }
                    } else {
                        for r in result.readings { table.update(r, now: Clock.monotonic()) }
                    }
                    if verbose {
                        for m in result.malformed { printError("\(ad.address): \(m.decoder): \(m.reason)") }
                    }
                },
                onTick: { now in
                    if json || unknown != nil {
                        out.flush()
                    } else {
                        out.write(table.render(now: now))
                        out.flush()
                    }
                    capture?.tick(now: now)
                    if let duration, now - started >= duration { stop.request() }
                    if out.failed != nil { stop.request() }  // reader gone (| head): stop quietly
                })
        } catch {
            out.flush()
            throw CLIError(error.description, code: error.exitCode)
        }
        capture?.close()
        out.flush()
        if let unknown, unknown.turnedAway > 0 {
            printError("\(unknown.capacity) unknown advertisements printed; \(unknown.turnedAway) of further shapes were not")
        }
        if verbose {
            let s = scanner.stats
            printError(
                "\(scanner.name): \(s.advertisements) advertisements in \(s.events) events, "
                    + "\(s.malformedEvents) malformed, \(s.reconnects) reconnects, \(s.rearms) re-arms")
            for line in statistics.lines { printError("decoder \(line)") }
        }
        try out.finish()
        return ExitCode.ok
    }
}

extension ScanError {
    var exitCode: Int32 {
        switch self {
        case .unavailable: ExitCode.unavailable
        case .configuration: ExitCode.usage
        }
    }
}

/// The terminal view: one row per sensor, newest reading, age. At most `capacity` sensors; the one
/// heard longest ago is evicted first, so a busy street cannot grow memory.
struct LiveTable {
    struct Row {
        var reading: Reading
        var seen: Double
    }

    let capacity: Int
    private var rows: [BDAddress: Row] = [:]

    init(capacity: Int) { self.capacity = capacity }

    mutating func update(_ r: Reading, now: Double) {
        if rows[r.address] == nil, rows.count >= capacity,
            let oldest = rows.min(by: { $0.value.seen < $1.value.seen })?.key
        {
            rows.removeValue(forKey: oldest)
        }
        rows[r.address] = Row(reading: r, seen: now)
    }

    /// The whole screen: home + clear, header, rows sorted by address.
    func render(now: Double) -> String {
        func pad(_ s: String, _ n: Int) -> String {
            s.count >= n ? String(s.prefix(n)) : s + String(repeating: " ", count: n - s.count)
        }
        var s = "\u{1B}[H\u{1B}[2J"
        s += pad("ADDRESS", 18) + pad("MODEL", 20) + pad("NAME", 16) + pad("AGE", 7) + "MEASUREMENTS\n"
        for (address, row) in rows.sorted(by: { $0.key < $1.key }) {
            let r = row.reading
            let m = r.measurements.map { "\($0.quantity.key)=\(JSON.number($0.value, integer: $0.quantity.isInteger))" }
            let age = Int((now - row.seen).rounded(.down))
            // Names are radio text, already escaped with DisplayText by the decoders.
            s +=
                pad(address.description, 18) + pad(r.model, 20) + pad(r.name ?? "", 16) + pad("\(age)s", 7)
                + m.joined(separator: " ") + (r.rssi.map { " rssi=\($0)" } ?? "") + "\n"
        }
        if rows.isEmpty { s += "(no sensor heard yet)\n" }
        return s
    }
}
