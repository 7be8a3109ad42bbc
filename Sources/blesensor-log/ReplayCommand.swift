#if canImport(Glibc)
import Glibc
#endif
import AdvScanner
import SensorDecode
import SensorStore

/// `blesensor-log replay FILE`: a capture through the same pipeline as `run` (decoders,
/// downsampling, store), with the times recorded in the capture.
enum ReplayCommand {
    static let spec = CommandSpec(
        name: "replay",
        abstract: "Feed a btsnoop/pcap/pcapng capture through the logger's pipeline.",
        arguments: [("FILE", "A capture: btsnoop (btmon -w, Android), pcap or pcapng (tcpdump -i bluetooth0).")],
        options: [
            StoreAccess.dbOption,
            .flag("jsonl", help: "Print the readings as JSON lines instead of storing them."),
            StoreOptions.interval, StoreOptions.keep, StoreOptions.only, NewSensorsOption.spec,
        ] + UnknownDevicesFile.options + [
            .flag("verbose", short: "v", help: "Log every reading on standard error."),
            ActionFile.option,
        ] + MQTTOptions.specs,
        discussion: """
            EXIT STATUS: 0; 64 bad option; 65 the capture is truncated or corrupt (what came before the
            damage is still stored) or the database is not ours; 66 the capture cannot be opened; 74 the
            database refused writes (disk full): what was committed stays, and replaying again adds the rest;
            74 also when the --keep-unknown file (written at the end) could not be written.
            """, settingsFromRunsConfig: ["db"])

    static let subcommand = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        let path = args.positionals[0]
        let verbose = args.has("verbose")
        let log = EventLog(verbose: verbose)
        // A `db` from run's config file is a default, not a request: --jsonl simply stores nothing.
        if args.has("jsonl"), args.value("db") != nil, args.configOrigins["db"] == nil {
            throw .usage("--jsonl and --db exclude each other")
        }
        var storeConfig = try StoreOptions.configuration(args)
        // A replay can be run again (it stores nothing twice): at the pending bound it stops
        // rather than drop rows.
        storeConfig.pendingOverflow = .refuseReadings
        try NewSensorsOption.apply(args, to: &storeConfig)
        let only = try StoreOptions.onlyAddresses(args)
        var unknown = try UnknownDevicesFile.parse(args, databasePath: StoreAccess.databasePath(args))
        if args.has("jsonl"), args.value("actions") != nil {
            throw .usage("--actions needs the database (aliases, the events table): it excludes --jsonl")
        }
        // The rules are checked before anything starts.
        let actionFile = try args.value("actions").map { path throws(CLIError) in try ActionFile.load(path: path) }
        let mqttSettings = try MQTTOptions.settings(args)
        if mqttSettings != nil, args.has("jsonl") { throw .usage("--mqtt publishes stored rows: it needs --db, not --jsonl") }

        let source: any HCIPacketSource
        // A capture's errors name the file themselves (CaptureReader, CaptureInput).
        do { source = try openCapture(path: path) } catch {
            if case .system = error { throw CLIError("\(error)", code: ExitCode.noInput) }
            throw CLIError("\(error)", code: ExitCode.dataError)
        }
        let dbPath = StoreAccess.databasePath(args)
        let keys = try KeyFile(databasePath: dbPath).load()
        try unknown?.start()
        var pipeline = Pipeline(registry: Registry.standard(keys: keys), only: only)
        pipeline.unknown = unknown
        var extractor = AdvertisementExtractor()

        let out = args.has("jsonl") ? OutputWriter(fd: 1) : nil
        let store = out == nil
            ? try StoreAccess.openWriter(path: dbPath, configuration: storeConfig, log: { log.warning($0) }) : nil
        // Replay runs the commands one at a time, in the capture's order, and waits for them.
        let events = store.map { _ in EventFlow.open(path: dbPath, storeConfig, actionFile, whenFull: .wait, log: log) }
        let mqtt = try store.flatMap { s throws(CLIError) in
            try MQTTPublisher.open(mqttSettings, store: s, configuration: storeConfig, log: log)
        }
        if let mqtt { events?.onEvent = { mqtt.publish(event: $0) } }

        // The store's batch timer runs on the capture's clock, ticked once a second of it as the
        // logger's loop ticks it live, so a replay commits in the batches a live run would have.
        // (Ticked every 4,096 packets instead, a replay of the real captures at their own pace
        // committed a few times an hour: 1,282 bytes written a row over 4.3 h, against 6,476 with
        // a live run's commits; scripts/bench's scene, session-6 measurement.) The store's clock
        // never goes back: where the capture's does (captures joined end to end, a bad stamp),
        // it stands still, and the store's timers keep their order.
        // SIGTERM, SIGINT and SIGHUP stop the replay as they stop `run`: what is pending is
        // committed and the summary says how far it got. Checked every 1,024 packets (a poll of
        // the pipe each), so a stop comes within a fraction of a second.
        let stop: StopSignal
        do { stop = try StopSignal() } catch { throw CLIError(error.description, code: ExitCode.software) }
        StopSignal.installSignalHandlers(stop)
        var stopped = false
        var lastPacketMicros: Int64? = nil

        var captureError: SourceError? = nil
        var packets = 0
        var clock = 0.0
        var captureTime: Double? = nil
        var lastTick = -Double.infinity
        var stoppedFull = false
        loop: while true {
            let event: SourceEvent
            do { event = try source.next(timeout: 0) } catch {
                captureError = error
                break
            }
            switch consume event {
            case .end, .timeout: break loop
            case .packet(let packet):
                if packets & 1023 == 1023, stop.isRequested {
                    stopped = true
                    break loop
                }
                packets += 1
                lastPacketMicros = packet.timeMicros
                let t = Double(packet.timeMicros) / 1e6
                clock = captureTime.map { clock + max(0, t - $0) } ?? t
                captureTime = t
                extractor.forEachAdvertisement(in: packet) { header, bytes in
                    pipeline.process(header, bytes, onProblem: { log.warning($0) }) { r in
                        if let out {
                            out.write(JSON.reading(r, includeTime: true) + "\n")
                        } else {
                            events?.take(r, now: clock)
                        }
                        if out == nil, !r.measurements.isEmpty {
                            if verbose { log.debug(JSON.reading(r, includeTime: true)) }
                            store!.add(consume r, now: clock)
                        }
                    }
                }
                if let store, clock - lastTick >= 1 {
                    store.tick(now: clock)
                    mqtt?.tick()
                    lastTick = clock
                }
                if let out, out.failed != nil { break loop }
                if let store, store.isRefusingReadings {
                    log.error(
                        "\(path): stopped at packet \(packets): \(store.pendingRows) rows wait while the database "
                            + "refuses writes; nothing committed is lost, and replaying the capture again once it "
                            + "accepts writes stores what is missing")
                    stoppedFull = true
                    break loop
                }
            }
        }
        events?.finish()
        var status = stoppedFull ? ExitCode.ioError : ExitCode.ok
        if let out {
            try out.finish()
        }
        if let store {
            do { try store.close(now: clock) } catch {
                log.error("\(store.pendingRows) rows could not be committed: \(error)")
                status = ExitCode.ioError
            }
        }
        do throws(CLIError) { try pipeline.unknown?.close() } catch {
            log.error("\(error)")
            status = ExitCode.ioError
        }
        // A replay waits for the broker as long as it keeps acknowledging; what it does not take
        // stays in the outbox for the next `run --mqtt` or `replay --mqtt` on this database.
        mqtt?.finish(within: .infinity)
        if extractor.malformedEvents > 0 {
            log.warning("\(path): \(extractor.malformedEvents) malformed HCI events skipped (first: \(extractor.firstMalformed!))")
        }
        let stored = store.map {
            ", \($0.statistics.committedRows) rows stored in \(dbPath) in \($0.statistics.committedBatches) commits"
                + ($0.statistics.failedCommits > 0 ? ", \($0.statistics.failedCommits) failed commit attempts" : "")
        } ?? ""
        if stopped {
            // A capture's stamp can be anything (they wrap): shown only when it is a plausible time.
            let upTo = lastPacketMicros.flatMap { t in
                (0...(Int64(1) << 53)).contains(t) ? ", the last stamped \(Timestamp.iso8601(micros: t, localOffsetSeconds: nil))" : nil
            }
            log.info("\(path): stopped by a signal after \(packets) packets\(upTo ?? "")")
        }
        if store != nil || verbose || stopped {
            log.info("\(path): \(packets) packets, \(pipeline.advertisements) advertisements, \(pipeline.readings) readings\(stored)")
        }
        if let captureError {
            printError("Error: \(captureError)")
            return status == ExitCode.ok ? ExitCode.dataError : status
        }
        return status
    }
}
