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
/// One sensor heard by several receivers is one row per interval: the rows are readings of the
/// same sensor and interval to the store's downsampler, which folds them into one (a mean of
/// their values; their samples added), and a row of an interval already committed is merged or
/// taken for a replay by the store (invariant 3 of SensorStore.swift). The session is persistent
/// (clean session off), so the broker keeps the rows published while the hub is away.
enum CollectCommand {
    static let spec = CommandSpec(
        name: "collect",
        abstract: "Store the rows other loggers publish over MQTT into one database.",
        options: [
            StoreAccess.dbOption, StoreOptions.interval, StoreOptions.keep,
            .value("duration", "D", help: "Stop after D (e.g. 10m); default: run until SIGTERM/SIGINT."),
            .flag("verbose", short: "v", help: "Log every stored reading on standard error."),
        ] + MQTTOptions.specs.filter { $0.name != "ha-discovery" },
        discussion: """
            --mqtt is required; --receiver names the hub's own MQTT session (default: the host name).
            A payload that is not a row (not JSON, no address or time) is skipped and counted.
            EXIT STATUS: 0 after SIGTERM/SIGINT or --duration; 64 bad option; 65 the database is not
            ours; 73 cannot create the database; 74 the pending rows could not be committed at exit.
            """)

    static let subcommand = Subcommand(spec: spec, run: run)

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
        var rows = 0
        var skipped = 0
        func take(_ events: [MQTTEvent], now: Double) {
            for event in events {
                switch event {
                case .message(let topic, let payload):
                    guard !topic.hasSuffix("/status") else { continue }
                    guard let r = MQTTStateRow.reading(payload) else {
                        skipped += 1
                        continue
                    }
                    rows += 1
                    if log.verbose { log.debug(JSON.reading(r, includeTime: true)) }
                    store.add(r, now: now)
                case .connected:
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
            take(client.drainEvents(), now: now)
            if now - lastTick >= 1 {
                store.tick(now: now, wallMicros: Timestamp.nowMicros())
                lastTick = now
                if let duration, now - started >= duration { stop.request() }
            }
            var pfd = pollfd(fd: stop.readFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, 50)
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
        log.info(
            "stopped: \(rows) rows received, \(store.statistics.committedRows) stored"
                + (skipped > 0 ? ", \(skipped) payloads that were not rows skipped" : ""))
        return ExitCode.ok
    }
}

/// A state payload (`JSON.storedRow` with a receiver) read back as a reading for the store.
/// Strangers may publish anything on a broker: anything that is not such an object of at most
/// 64 KiB, with an address, a time and numbers under quantity-like keys, is refused.
enum MQTTStateRow {
    static func reading(_ payload: [UInt8]) -> Reading? {
        guard payload.count <= 65536, let object = FlatJSON.object(payload) else { return nil }
        var address: BDAddress? = nil
        var time: Int64? = nil
        var model = ""
        var rssi: Int8? = nil
        var measurements: [Measurement] = []
        for (key, value) in object {
            switch (key, value) {
            case ("address", .string(let s)): address = BDAddress(s)
            case ("time", .string(let s)): time = TimeArguments.iso8601(s)
            case ("model", .string(let s)): model = String(s.prefix(64))
            case ("rssi_dbm", .number(let v, _)): rssi = (-128...127).contains(v) ? Int8(v) : nil
            case ("samples", _), ("alias", _), ("receiver", _): break
            case (_, .number(let v, let integer)):
                guard key.utf8.count <= 64, key.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == 95 }),
                    measurements.count < 64
                else { return nil }
                measurements.append(Measurement(Quantity(key, integer: integer), v))
            default: break
            }
        }
        // A time without an offset is local in `iso8601`; ours always end in Z.
        guard let address, let time, !measurements.isEmpty else { return nil }
        return Reading(
            address: address, decoderID: "mqtt", model: model.isEmpty ? "?" : model, measurements: measurements,
            timeMicros: time, rssi: rssi)
    }
}

/// A JSON object of strings, numbers, booleans and nulls (no nesting): what the state payloads
/// hold. `nil` for anything else or anything malformed.
enum FlatJSON {
    enum Value: Equatable {
        case string(String)
        /// The value, and whether its text was a whole number (no fraction or exponent).
        case number(Double, integer: Bool)
        case other
    }

    static func object(_ bytes: [UInt8]) -> [(String, Value)]? {
        var i = 0
        func skipSpace() { while i < bytes.count, [9, 10, 13, 32].contains(bytes[i]) { i += 1 } }
        func expect(_ c: UInt8) -> Bool {
            skipSpace()
            guard i < bytes.count, bytes[i] == c else { return false }
            i += 1
            return true
        }
        func string() -> String? {
            guard expect(UInt8(ascii: "\"")) else { return nil }
            var out: [UInt8] = []
            while i < bytes.count {
                let b = bytes[i]
                i += 1
                switch b {
                case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard i < bytes.count else { return nil }
                    let e = bytes[i]
                    i += 1
                    switch e {
                    case UInt8(ascii: "n"): out.append(10)
                    case UInt8(ascii: "r"): out.append(13)
                    case UInt8(ascii: "t"): out.append(9)
                    case UInt8(ascii: "b"): out.append(8)
                    case UInt8(ascii: "f"): out.append(12)
                    case UInt8(ascii: "u"):
                        guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16)
                        else { return nil }
                        i += 4
                        // Surrogates (a pair for one scalar) are not in our payloads: U+FFFD.
                        out += Array(String(Unicode.Scalar(v).map(Character.init) ?? "\u{FFFD}").utf8)
                    default: out.append(e)
                    }
                case 0..<0x20: return nil
                default: out.append(b)
                }
            }
            return nil
        }
        func value() -> Value? {
            skipSpace()
            guard i < bytes.count else { return nil }
            if bytes[i] == UInt8(ascii: "\"") { return string().map(Value.string) }
            for word in ["null", "true", "false"] where bytes[i...].starts(with: word.utf8) {
                i += word.utf8.count
                return .other
            }
            let start = i
            while i < bytes.count, "+-0123456789.eE".utf8.contains(bytes[i]) { i += 1 }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            guard i - start <= 40, let v = Double(text), v.isFinite else { return nil }
            return .number(v, integer: !text.contains { ".eE".contains($0) })
        }
        guard expect(UInt8(ascii: "{")) else { return nil }
        var out: [(String, Value)] = []
        if expect(UInt8(ascii: "}")) { return out }
        repeat {
            guard let k = string(), expect(UInt8(ascii: ":")), let v = value() else { return nil }
            out.append((k, v))
        } while expect(UInt8(ascii: ","))
        guard expect(UInt8(ascii: "}")) else { return nil }
        skipSpace()
        return i == bytes.count ? out : nil
    }
}
