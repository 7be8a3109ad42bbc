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
        ] + UnknownDevicesFile.options + [
            .value("duration", "D", help: "Stop after D (e.g. 10m, 24h); default: run until SIGTERM/SIGINT."),
            .value("capture", "FILE", help: "Also write every HCI packet to FILE (btsnoop, opens in Wireshark and btmon)."),
            ActionFile.option, PrometheusFile.option,
            .flag("verbose", short: "v", help: "Log every reading and the scanner's commands on standard error."),
        ] + MQTTOptions.specs,
        discussion: """
            Writes one start-up line, then one line per noteworthy event (adapter down and back,
            scanning re-armed, disk full and recovered) on standard error; nothing per advertisement
            unless -v. Readings are committed in batches (every 10 minutes or 1000 rows, to spare the
            SD card), so a crash loses at most the last 10 minutes and the open downsampling interval.
            EXIT STATUS: 0 after SIGTERM/SIGINT or --duration; 64 bad option; 65 the database is not
            ours or damaged (left untouched); 69 adapter unavailable; 73 cannot create the database;
            74 the pending readings (or the --keep-unknown file) could not be written at exit.
            Settings may also come from a config file (see --config; the command line wins).
            """, readsConfigFile: true)

    static let subcommand = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        let verbose = args.has("verbose")
        let log = EventLog(verbose: verbose)
        log.debug(args.configDescription)
        let (transportSpec, scanConfig) = try ScanOptions.configuration(args)
        var storeConfig = try StoreOptions.configuration(args)
        try NewSensorsOption.apply(args, to: &storeConfig)
        let only = try StoreOptions.onlyAddresses(args)
        let duration = try ScanOptions.duration(args)
        let dbPath = StoreAccess.databasePath(args)
        let keys = try KeyFile(databasePath: dbPath).load()
        var unknown = try UnknownDevicesFile.parse(args, databasePath: dbPath)
        try unknown?.start()
        // The rules are checked before anything starts.
        let actionFile = try args.value("actions").map { path throws(CLIError) in try ActionFile.load(path: path) }
        if let actionFile, !actionFile.remotes.isEmpty, !transportSpec.transports.contains(where: \.isKernelAdapter) {
            throw CLIError(
                "--actions: GATT remotes need the kernel's Bluetooth stack (--hci hciN); over tcp:/serial: there is no host stack to connect with",
                code: ExitCode.usage)
        }
        let mqttSettings = try MQTTOptions.settings(args)
        if mqttSettings != nil || args.has("prometheus-file") {
            // The outbox publishes committed rows, and the textfile shows them: a subscriber or
            // a scrape should see each row when its interval ends, not up to one SD-sparing batch later.
            storeConfig.batchSeconds = min(storeConfig.batchSeconds, Double(max(5, storeConfig.downsample.intervalSeconds)))
        }

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
        let events = EventFlow.open(path: dbPath, storeConfig, actionFile, whenFull: .drop, log: log)
        if let mqtt { events.onEvent = { mqtt.publish(event: $0) } }
        let prometheus = args.value("prometheus-file").map { PrometheusFile(path: $0, databasePath: dbPath, log: log) }
        let remotes = GATTRemoteOption.make(actionFile, transportSpec, events: events, log: scanLog)
        remotes?.onConnected = { [unowned scanner] in
            for s in scanner.scanners where ScanOptions.kernelAdapterName(s.transport) != nil {
                s.resumeScanning(reason: "a GATT remote connected")
            }
        }

        let stop: StopSignal
        do { stop = try StopSignal() } catch { throw CLIError(error.description, code: ExitCode.software) }
        StopSignal.installSignalHandlers(stop)

        var pipeline = Pipeline(registry: Registry.standard(keys: keys), only: only)
        // Readings wait for a clock to trust (a Pi boots at 1970 until NTP syncs): ClockTrust.swift.
        var clockTrust = ClockTrust(
            clock: SystemClock(), configuration: .init(settleSeconds: storeConfig.clockSettleSeconds),
            log: { log.warning($0) })
        pipeline.unknown = unknown
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
                        events.take(r, now: now)
                        guard !r.measurements.isEmpty else { return }
                        if verbose { log.debug(JSON.reading(r, includeTime: true)) }
                        clockTrust.admit(r) { r, flagged in store.add(r, now: now, unsynchronised: flagged) }
                    }
                },
                onTick: { now in
                    store.tick(now: now, wallMicros: Timestamp.nowMicros())
                    prometheus?.refresh(committedRows: store.statistics.committedRows)
                    clockTrust.tick { r, flagged in store.add(r, now: now, unsynchronised: flagged) }
                    capture?.tick(now: now)
                    pipeline.unknown?.tick(now: now, log: log)
                    events.tick(now: now, wallMicros: Timestamp.nowMicros())
                    remotes?.tick(now: now)
                    mqtt?.tick()
                    if let duration, now - started >= duration { stop.request() }
                }, also: remotes)
        } catch {
            // The scanner could not start: still commit anything pending, and say so if that fails.
            do { try store.close(now: Timestamp.monotonicSeconds()) } catch let storeError {
                log.error("\(store.pendingRows) rows could not be committed: \(storeError)")
            }
            events.finish()
            mqtt?.finish(within: MQTTPublisher.stopSeconds)
            throw CLIError(error.description, code: error.exitCode)
        }
        capture?.close()
        let closing = Timestamp.monotonicSeconds()
        clockTrust.releaseAll { r, flagged in store.add(r, now: closing, unsynchronised: flagged) }
        remotes?.close()
        events.finish()
        let s = store.statistics
        do throws(StoreError) {
            try store.close(now: Timestamp.monotonicSeconds())
        } catch {
            log.error("stopping: \(store.pendingRows) rows could not be committed: \(error)")
            mqtt?.finish(within: MQTTPublisher.stopSeconds)
            return ExitCode.ioError
        }
        mqtt?.finish(within: MQTTPublisher.stopSeconds)
        prometheus?.refresh(committedRows: store.statistics.committedRows)
        do throws(CLIError) { try pipeline.unknown?.close() } catch {
            log.error("stopping: \(error)")
            return ExitCode.ioError
        }
        let st = store.statistics
        log.info(
            "stopped: \(pipeline.advertisements) advertisements, \(pipeline.readings) readings, \(st.committedRows) rows stored"
                + " (\(st.downsample.duplicates) repeats within 1 s not counted twice)"
                + (s.droppedRows > 0 ? ", \(s.droppedRows) rows dropped while the database failed" : ""))
        if verbose { for line in pipeline.statistics.lines { log.debug("decoder \(line)") } }
        return ExitCode.ok
    }
}

/// The rules file's `remotes`, kept connected over the kernel's stack (`--hci hciN`; `run` refuses
/// them over H4 streams before this), their notifications `notify` events of their value's hex.
enum GATTRemoteOption {
    static func make(_ rules: ActionFile?, _ targets: ScanTargets, events: EventFlow, log: ScanLog) -> GATTRemotes? {
        guard let rules, !rules.remotes.isEmpty, targets.transports.contains(where: \.isKernelAdapter) else { return nil }
        let remotes = GATTRemotes(rules.remotes, log: log)
        remotes.onValue = { address, value in
            events.take(notification: EventContext(
                address: address, alias: nil, model: "GATT", event: DeviceEvent(.notify, Hex.encode(value)),
                timeMicros: Timestamp.nowMicros(), rssi: nil))
        }
        return remotes
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

    static func open(_ path: String?, scanner: ScannerGroup, log: EventLog) throws(CLIError) -> CaptureOption? {
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
