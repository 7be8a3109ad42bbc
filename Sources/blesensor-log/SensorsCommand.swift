#if canImport(Glibc)
import Glibc
#endif
import SensorDecode
import SensorStore

/// `blesensor-log sensors`: list the stored sensors; give one an alias; forget one; set its key.
enum SensorsCommand {
    static let spec = CommandSpec(
        name: "sensors",
        abstract: "List stored sensors, or: alias ADDR NAME | forget ADDR | key ADDR HEX|--remove.",
        arguments: [("ACTION?", "list (default), alias, forget or key"), ("ARGS...", "the action's arguments")],
        options: [
            StoreAccess.dbOption,
            .flag("json", help: "List as JSON lines."),
            .flag("remove", help: "With 'key': remove the device's key."),
        ],
        discussion: """
              sensors                        list: address, alias, model, last seen, battery, RSSI, name
              sensors alias ADDR NAME        name a sensor ('' removes the alias); export/summary accept it
              sensors forget ADDR|ALIAS      delete a sensor and all its readings
              sensors key ADDR HEX           set the 16-byte key of an encrypted device (BTHome v2, MiBeacon);
                                             kept in the file 'keys' next to the database, mode 0600
            EXIT STATUS: 0; 64 bad usage or unknown sensor; 66 no database.
            """, settingsFromRunsConfig: ["db"])

    static let subcommand = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        let dbPath = StoreAccess.databasePath(args)
        let action = args.positionals.first ?? "list"
        let rest = Array(args.positionals.dropFirst())
        switch action {
        case "list":
            guard rest.isEmpty else { throw .usage("'sensors list' takes no arguments") }
            return try list(dbPath, json: args.has("json"))
        case "alias":
            guard rest.count == 2 else { throw .usage("usage: sensors alias ADDR|ALIAS NAME") }
            let reader = try StoreAccess.openReader(path: dbPath)
            let name = rest[1].trimmingWhitespace()
            guard name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }), name.count <= 64 else {
                throw .usage("an alias is at most 64 printable characters")
            }
            do { try reader.setAlias(name.isEmpty ? nil : String(name), for: SensorSelector(rest[0])) } catch {
                throw StoreAccess.cliError(error)
            }
            return ExitCode.ok
        case "forget":
            guard rest.count == 1 else { throw .usage("usage: sensors forget ADDR|ALIAS") }
            let reader = try StoreAccess.openReader(path: dbPath)
            do {
                let n = try reader.forget(SensorSelector(rest[0]))
                printError("forgot \(rest[0]) and its \(n) readings")
            } catch { throw StoreAccess.cliError(error) }
            return ExitCode.ok
        case "key":
            let remove = args.has("remove")
            guard rest.count == (remove ? 1 : 2), let address = BDAddress(rest[0]) else {
                throw .usage("usage: sensors key ADDR HEX  |  sensors key ADDR --remove")
            }
            var key: [UInt8]? = nil
            if !remove {
                guard let k = Hex.decode(rest[1]), k.count == 16 else { throw .usage("a key is 16 bytes: 32 hex digits") }
                key = k
            }
            try Paths.ensureParentDirectory(of: dbPath)
            try KeyFile(databasePath: dbPath).set(key, for: address)
            printError(remove ? "key of \(address) removed" : "key of \(address) stored (not shown)")
            return ExitCode.ok
        default:
            throw .usage("unknown action '\(action)': list, alias, forget or key")
        }
    }

    /// Streams the sensors (`forEachSensor`): memory does not grow with their number.
    static func list(_ dbPath: String, json: Bool) throws(CLIError) -> Int32 {
        let reader = try StoreAccess.openReader(path: dbPath)
        let now = Timestamp.nowMicros()
        let out = OutputWriter(fd: 1)
        var times = TimeFormatter(local: false)
        if !json {
            out.write("ADDRESS".padding(19) + "ALIAS".padding(16) + "MODEL".padding(20) + "LAST SEEN".padding(26)
                + "BATTERY".padding(9) + "RSSI".padding(6) + "NAME\n")
        }
        var count = 0
        do throws(StoreError) {
            try reader.forEachSensor { (s: SensorInfo) throws(StoreError) in
                count += 1
                if json {
                    var o = "{\"address\":\"\(s.address)\",\"alias\":" + (s.alias.map(JSON.string) ?? "null")
                    o += ",\"model\":" + JSON.string(s.model) + ",\"decoder\":" + JSON.string(s.decoderID)
                    o += ",\"first_seen\":\"\(times.format(s.firstSeenMicros))\",\"last_seen\":\"\(times.format(s.lastSeenMicros))\""
                    if let b = s.lastBatteryPercent { o += ",\"battery_pct\":" + JSON.number(b, integer: true) }
                    if let r = s.lastRSSI { o += ",\"rssi_dbm\":\(r)" }
                    if let n = s.radioName { o += ",\"name\":" + JSON.string(n) }
                    out.write(o + "}\n")
                } else {
                    // Alias and name may hold anything: escape for the terminal and cut to the column.
                    let alias = DisplayText.escape(Array((s.alias ?? "").utf8))
                    out.write(s.address.description.padding(19) + String(alias.prefix(15)).padding(16)
                        + String(s.model.prefix(19)).padding(20)
                        + (times.format(s.lastSeenMicros) + " (" + SummaryCommand.age(now - s.lastSeenMicros) + ")").padding(26)
                        + (s.lastBatteryPercent.map { JSON.number($0, integer: true) + " %" } ?? "-").padding(9)
                        + (s.lastRSSI.map { "\($0)" } ?? "-").padding(6) + String((s.radioName ?? "").prefix(30)) + "\n")
                }
                // Ends the walk: nothing more can be written (the catch below tells why).
                if out.failed != nil { throw StoreError.invalidArgument("output closed") }
            }
        } catch {
            // A closed pipe (`| head`) ends the listing; `finish` tells it from a real failure.
            if out.failed == nil { throw StoreAccess.cliError(error) }
        }
        if !json, count == 0 { out.write("(no sensors stored yet)\n") }
        try out.finish()
        return ExitCode.ok
    }
}
