#if canImport(Glibc)
import Glibc
#endif
import AdvScanner
import SensorDecode
import SensorStore

/// `blesensor-log run`: the logger. Radio → decoders → downsampling → SQLite, for months.
///
/// One thread of control: the scanner's poll loop calls back with advertisements and once a second
/// with a tick that drives the store's batch commits and retention. SIGTERM/SIGINT stop scanning,
/// commit what is pending, and exit 0.
enum RunCommand {
    static let spec = CommandSpec(
        name: "run",
        abstract: "Log sensor readings to the database until stopped.",
        options: ScanOptions.specs + [
            StoreAccess.dbOption, StoreOptions.interval, StoreOptions.keep, StoreOptions.only, NewSensorsOption.spec,
            .value("duration", "D", help: "Stop after D (e.g. 10m, 24h); default: run until SIGTERM/SIGINT."),
            .value("capture", "FILE", help: "Also write every HCI packet to FILE (btsnoop, opens in Wireshark and btmon)."),
            .flag("verbose", short: "v", help: "Log every reading and the scanner's commands on standard error."),
        ] + MQTTOptions.specs,
        discussion: """
            Writes one start-up line, then one line per noteworthy event (adapter down and back,
            scanning re-armed, disk full and recovered) on standard error; nothing per advertisement
            unless -v. Readings are committed in batches (every 5 s or 1000 rows), so a crash loses at
            most the last few seconds and the open downsampling interval.
            EXIT STATUS: 0 after SIGTERM/SIGINT or --duration; 64 bad option; 65 the database is not
            ours or damaged (left untouched); 69 adapter unavailable; 73 cannot create the database;
            74 the pending readings could not be committed at exit.
            """)

    static let subcommand = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        let verbose = args.has("verbose")
        let log = EventLog(verbose: verbose)
        let (transportSpec, scanConfig) = try ScanOptions.configuration(args)
        var storeConfig = try StoreOptions.configuration(args)
        try NewSensorsOption.apply(args, to: &storeConfig)
        let only = try StoreOptions.onlyAddresses(args)
        let duration = try ScanOptions.duration(args)
        let dbPath = StoreAccess.databasePath(args)
        let keys = try KeyFile(databasePath: dbPath).load()
        let mqttSettings = try MQTTOptions.settings(args)

        let store = try StoreAccess.openWriter(path: dbPath, configuration: storeConfig, log: { log.warning($0) })
        let mqtt = try MQTTPublisher.open(mqttSettings, store: store, configuration: storeConfig, log: log)
        let scanLog = ScanLog { level, line in
            switch level {
            case .debug: log.debug(line)
            case .info: log.info(line)
            case .warning: log.warning(line)
            }
        }
        let scanner = try ScanOptions.makeScanner(transportSpec, scanConfig, log: scanLog)
        let capture = try CaptureOption.open(args.value("capture"), scanner: scanner, log: log)

        let stop: StopSignal
        do { stop = try StopSignal() } catch { throw CLIError(error.description, code: ExitCode.software) }
        StopSignal.installSignalHandlers(stop)

        var pipeline = Pipeline(registry: Registry.standard(keys: keys), only: only)
        let interval = storeConfig.downsample.intervalSeconds
        scanner.startupNote = "logging to \(dbPath), interval \(interval == 0 ? "off (every advertisement)" : "\(interval) s")"
            + (storeConfig.retentionSeconds.map { ", keeping \($0 / 86400) d" } ?? "")
            + (only.isEmpty ? "" : ", only \(only.count) device(s)")
        let started = Timestamp.monotonicSeconds()
        do throws(ScanError) {
            try scanner.run(
                stop: stop,
                onAdvertisement: { header, bytes in
                    let now = Timestamp.monotonicSeconds()
                    pipeline.process(header, bytes, onProblem: { log.warning($0) }) { r in
                        guard !r.measurements.isEmpty else { return }
                        if verbose { log.debug(JSON.reading(r, includeTime: true)) }
                        store.add(consume r, now: now)
                    }
                },
                onTick: { now in
                    store.tick(now: now, wallMicros: Timestamp.nowMicros())
                    capture?.tick(now: now)
                    mqtt?.tick()
                    if let duration, now - started >= duration { stop.request() }
                })
        } catch {
            // The scanner could not start: still commit anything pending, and say so if that fails.
            do { try store.close(now: Timestamp.monotonicSeconds()) } catch let storeError {
                log.error("\(store.pendingRows) rows could not be committed: \(storeError)")
            }
            mqtt?.finish(within: MQTTPublisher.stopSeconds)
            throw CLIError(error.description, code: error.exitCode)
        }
        capture?.close()
        let s = store.statistics
        do throws(StoreError) {
            try store.close(now: Timestamp.monotonicSeconds())
        } catch {
            log.error("stopping: \(store.pendingRows) rows could not be committed: \(error)")
            mqtt?.finish(within: MQTTPublisher.stopSeconds)
            return ExitCode.ioError
        }
        mqtt?.finish(within: MQTTPublisher.stopSeconds)
        let st = store.statistics
        log.info(
            "stopped: \(pipeline.advertisements) advertisements, \(pipeline.readings) readings, \(st.committedRows) rows stored"
                + (s.droppedRows > 0 ? ", \(s.droppedRows) rows dropped while the database failed" : ""))
        if verbose { for line in pipeline.statistics.lines { log.debug("decoder \(line)") } }
        return ExitCode.ok
    }
}

/// `--capture FILE`: every HCI packet the scanner sees and sends, in a btsnoop file.
final class CaptureOption {
    let writer: CaptureWriter
    let log: EventLog
    private var failed = false

    init(writer: CaptureWriter, log: EventLog) {
        self.writer = writer
        self.log = log
    }

    static func open(_ path: String?, scanner: LiveScanner, log: EventLog) throws(CLIError) -> CaptureOption? {
        guard let path else { return nil }
        let writer: CaptureWriter
        do { writer = try CaptureWriter(path: path) } catch {
            throw CLIError("--capture: \(error)", code: ExitCode.cantCreate)
        }
        let option = CaptureOption(writer: writer, log: log)
        scanner.packetObserver = { [option] packet in option.write(packet) }
        return option
    }

    func write(_ packet: HCIPacket) {
        guard !failed else { return }
        do { try writer.write(packet) } catch {
            failed = true  // logged once; the logger goes on without the capture
            log.warning("capture \(writer.path): \(error); no longer writing it")
        }
    }

    func tick(now: Double) {
        guard !failed else { return }
        do { try writer.flush() } catch {
            failed = true
            log.warning("capture \(writer.path): \(error); no longer writing it")
        }
    }

    func close() {
        do { try writer.close() } catch { log.warning("capture \(writer.path): \(error)") }
    }
}
