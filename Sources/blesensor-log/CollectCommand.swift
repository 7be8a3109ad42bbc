#if canImport(Glibc)
    import Glibc
#endif
import AdvScanner
import SensorDecode
import SensorMQTT
import SensorStore

/// `blesensor-log collect`: the hub of many receivers. Subscribes to every receiver's state
/// topics (`<prefix>/+/+`, what `run --mqtt` publishes) and stores the rows into one database,
/// so `export`, `summary` and the report cover the whole house.
///
/// Rows are stored as their loggers stored them (not folded again: the loggers' `--interval`
/// governs). One sensor heard by several receivers is one row per interval: the copy of the
/// receiver that heard it strongest, whatever the order in which the copies arrive
/// (RowReceivers.swift in the store). The session is persistent (clean session off), so the
/// broker keeps the rows published while the hub is away.
enum CollectCommand {
    static let spec = CommandSpec(
        name: "collect",
        abstract: "Store the rows other loggers publish over MQTT into one database.",
        options: [
            StoreAccess.dbOption, StoreOptions.keep,
            .value("duration", "D", help: "Stop after D (e.g. 10m); default: run until SIGTERM/SIGINT."),
            .flag("verbose", short: "v", help: "Log every stored reading on standard error."),
        ] + MQTTOptions.specs.compactMap(collectingSpec),
        discussion: """
            --mqtt is required; --receiver names the hub's own MQTT session (default: the host name).
            A payload that is not a row (not JSON, no address or time) is skipped with a warning (the
            first 10 a minute) and counted.
            EXIT STATUS: 0 after SIGTERM/SIGINT or --duration; 64 bad option; 65 the database is not
            ours; 69 the broker was never reached (or refused us) all the while; 73 cannot create the
            database; 74 the pending rows could not be committed at exit.
            """)

    static let subcommand = Subcommand(spec: spec, run: run)

    /// The MQTT options as a hub reads them: the URL and password rules of `run --mqtt`, said of
    /// subscribing; no discovery, which a hub does not publish.
    private static func collectingSpec(_ option: OptionSpec) -> OptionSpec? {
        switch option.name {
        case "ha-discovery": nil
        case "mqtt":
            .value(
                "mqtt", "URL",
                help: "The broker whose loggers' rows are collected: mqtt://[user[:password]@]host[:port] or mqtts://…")
        case "receiver": .value("receiver", "NAME", help: "The hub's name as an MQTT client (default: the host name).")
        default: option
        }
    }

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        let log = EventLog(verbose: args.has("verbose"))
        guard let settings = try MQTTOptions.settings(args) else { throw .usage("collect needs --mqtt URL") }
        let storeConfig = try StoreOptions.configuration(args)
        let duration = try ScanOptions.duration(args)
        let dbPath = StoreAccess.databasePath(args)
        let store = try StoreAccess.openWriter(path: dbPath, configuration: storeConfig, log: { log.warning($0) })

        var c = MQTTOptions.clientConfiguration(settings)
        c.clientID = "blesensor-log-collect-\(settings.receiver)"
        c.cleanSession = false
        c.will = nil
        c.birth = nil
        c.subscriptions = [settings.prefix + "/+/+"]
        c.maxPayloadBytes = MQTTStateRow.maxPayloadBytes
        let client: MQTTClient
        do {
            client = try MQTTClient(c)
            try client.start()
        } catch {
            throw CLIError("mqtt: \(error)", code: ExitCode.usage)
        }
        let stop: StopSignal
        do { stop = try StopSignal() } catch { throw CLIError(error.description, code: ExitCode.software) }
        StopSignal.installSignalHandlers(stop)
        log.info("collecting \(settings.prefix)/+/+ from \(settings.broker.redacted) into \(dbPath)")

        let started = Timestamp.monotonicSeconds()
        var lastTick = started
        var problem: String? = nil
        var everConnected = false
        var rows = 0
        var skipped = 0
        // A stranger can publish thousands a second: the first few a minute are said, all counted.
        var skipWarnings = EventRateLimit(maxPerWindow: 10, windowSeconds: 60)
        func skip(topic: String, why: String, now: Double) {
            skipped += 1
            if skipWarnings.admit(now: now) {
                log.warning("mqtt: skipped the payload on \(DisplayText.escape(topic.utf8.prefix(200))): \(why)")
            } else if skipWarnings.droppedInWindow == 1 {
                log.warning("mqtt: more payloads that are not rows this minute: counted, not logged")
            }
        }
        func take(_ events: [MQTTEvent], now: Double) {
            for event in events {
                switch event {
                case .message(let topic, let payload):
                    guard !topic.hasSuffix("/status") else { continue }
                    let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
                    let topicReceiver = levels.count >= 2 ? String(levels[levels.count - 2]) : ""
                    let r: MQTTStateRow
                    do throws(MQTTStateRow.Refusal) {
                        r = try MQTTStateRow.parse(payload, topicReceiver: topicReceiver)
                    } catch {
                        skip(topic: topic, why: error.description, now: now)
                        continue
                    }
                    rows += 1
                    if log.verbose { log.debug(JSON.reading(r.reading, includeTime: true) + " from " + r.receiver) }
                    store.add(published: r.reading, samples: r.samples, receiver: r.receiver, now: now)
                case .oversized(let topic, let bytes):
                    guard !topic.hasSuffix("/status") else { continue }
                    skip(topic: topic, why: MQTTStateRow.Refusal.tooLarge(bytes: bytes).description, now: now)
                case .connected:
                    everConnected = true
                    if problem != nil { log.info("mqtt: connected to \(settings.broker.redacted)") }
                    problem = nil
                case .connectFailed(let why), .refused(let why), .connectionLost(let why):
                    if why != problem { log.error("mqtt: \(why); retrying (at most 10 s apart)") }
                    problem = why
                case .acknowledged: break
                }
            }
        }
        while !stop.isRequested {
            let now = Timestamp.monotonicSeconds()
            let events = client.drainEvents()
            take(events, now: now)
            if now - lastTick >= 1 {
                store.tick(now: now, wallMicros: Timestamp.nowMicros())
                lastTick = now
                if let duration, now - started >= duration { stop.request() }
            }
            // While rows flow, straight back for more: the client holds at most
            // `CallbackState.maxQueuedMessages` and its network thread waits while that is full,
            // so a 50 ms nap per turn capped a hub at ~5,000 rows/s.
            var pfd = pollfd(fd: stop.readFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, events.isEmpty ? 50 : 0)
        }
        client.stop()
        // What the network thread took before it stopped: acknowledged to the broker already.
        take(client.drainEvents(), now: Timestamp.monotonicSeconds())
        do throws(StoreError) {
            try store.close(now: Timestamp.monotonicSeconds())
        } catch {
            log.error("stopping: \(store.pendingRows) rows could not be committed: \(error)")
            return ExitCode.ioError
        }
        // Retrying is right for a hub that starts before its broker; a whole run without one
        // collected nothing, and says so in its status.
        guard everConnected else {
            log.error("stopped: never connected to \(settings.broker.redacted) (\(problem ?? "no answer yet")); nothing collected")
            return ExitCode.unavailable
        }
        log.info(
            "stopped: \(rows) rows received, \(store.statistics.committedRows) stored"
                + (skipped > 0 ? ", \(skipped) payloads that were not rows skipped" : ""))
        return ExitCode.ok
    }
}

/// A state payload (`JSON.storedRow` with a receiver) read back as the row it publishes.
/// Strangers may publish anything on a broker: anything that is not such a JSON object of at
/// most `maxPayloadBytes`, with an address, a full time with its offset, numbers under
/// quantity-like keys, and a model and receiver a logger could have published, is refused with
/// the reason (`Refusal`).
struct MQTTStateRow {
    /// The row's sensor, model, time and measurements, with the RSSI its receiver published.
    var reading: Reading
    var samples: Int
    /// The receiver that published it: its `receiver` field, else `topicReceiver`.
    var receiver: String

    /// The largest payload read; a row is a few hundred bytes.
    static let maxPayloadBytes = 65536
    /// Measurements in one row, at most (a sensor has a dozen).
    static let maxMeasurements = 64

    /// Why a payload is not a row, in a line of the hub's log (a stranger's text escaped).
    enum Refusal: Error, Equatable, CustomStringConvertible {
        case tooLarge(bytes: Int)
        case notJSON(JSONSyntaxError)
        case notAnObject
        case noAddress
        /// Missing, or not `YYYY-MM-DDTHH:MM:SS[.ffffff]` with `Z` or `±HH:MM`: without an offset
        /// the time would be read in the hub's zone, not the logger's.
        case noTime
        case badKey(String)
        case tooManyMeasurements
        case noMeasurements
        /// The model or receiver holds control characters or direction overrides, or the receiver
        /// is not a name `--receiver` takes (1 to 64 bytes, no `/`, `+`, `#`).
        case badText(field: String)

        var description: String {
            switch self {
            case .tooLarge(let bytes): "\(bytes) bytes, more than \(MQTTStateRow.maxPayloadBytes)"
            // The parser's reason can quote a key of the payload's: cut, as `badKey`'s.
            case .notJSON(let e): "not JSON (\(DisplayText.escape(e.description.utf8.prefix(160))))"
            case .notAnObject: "not a JSON object"
            case .noAddress: "no \"address\" that is a Bluetooth address"
            case .noTime: "no \"time\" in ISO 8601 with its offset (e.g. 2026-11-23T00:00:00Z)"
            case .badKey(let key): "a number under \"\(DisplayText.escape(key.utf8.prefix(40)))\", not a quantity key"
            case .tooManyMeasurements: "more than \(MQTTStateRow.maxMeasurements) measurements"
            case .noMeasurements: "no measurements"
            case .badText(let field): "a \"\(field)\" no logger publishes"
            }
        }
    }

    /// - Parameter topicReceiver: the receiver's level of the topic it came on
    ///   (`<prefix>/<receiver>/<ADDRESS>`), for a payload that does not name one.
    static func parse(_ payload: [UInt8], topicReceiver: String = "") throws(Refusal) -> MQTTStateRow {
        guard payload.count <= maxPayloadBytes else { throw .tooLarge(bytes: payload.count) }
        let root: JSONNode
        do { root = try JSONParser.parse(payload) } catch { throw .notJSON(error) }
        guard case .object(let members) = root.value else { throw .notAnObject }
        var address: BDAddress? = nil
        var time: Int64? = nil
        var model = ""
        var rssi: Int8? = nil
        var samples = 1
        var receiver = topicReceiver
        var measurements: [Measurement] = []
        for (key, node) in members {
            switch (key, node.value) {
            case ("address", .string(let s)): address = BDAddress(s)
            case ("time", .string(let s)): time = TimeArguments.iso8601(s, form: .published)
            case ("model", .string(let s)):
                guard DisplayText.isPrintable(s) else { throw .badText(field: "model") }
                model = String(s.prefix(64))
            case ("receiver", .string(let s)): receiver = s
            case ("rssi_dbm", .number(let v, _)): rssi = (-128...127).contains(v) ? Int8(v) : nil
            case ("samples", .number(let v, true)): samples = (1...1_000_000).contains(v) ? Int(v) : 1
            case ("samples", _), ("alias", _), ("receiver", _): break
            case (_, .number(let v, let integer)):
                guard key.utf8.count <= 64, key.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == 95 })
                else { throw .badKey(key) }
                guard measurements.count < maxMeasurements else { throw .tooManyMeasurements }
                measurements.append(Measurement(Quantity(key, integer: integer), v))
            default: break
            }
        }
        guard let address else { throw .noAddress }
        guard let time else { throw .noTime }
        guard !measurements.isEmpty else { throw .noMeasurements }
        // The rule `run --receiver` names are held to: a logger cannot have published another.
        guard !receiver.isEmpty, receiver.utf8.count <= 64, MQTTOptions.isTopicText(receiver, allowingSlash: false),
            DisplayText.isPrintable(receiver)
        else { throw .badText(field: "receiver") }
        let reading = Reading(
            address: address, decoderID: "mqtt", model: model.isEmpty ? "?" : model, measurements: measurements,
            timeMicros: time, rssi: rssi)
        return MQTTStateRow(reading: reading, samples: samples, receiver: receiver)
    }
}
