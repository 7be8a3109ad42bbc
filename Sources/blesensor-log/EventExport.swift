import SensorStore

/// `export --events`: the events table as CSV (`time,address,alias,model,event,value`) or JSON
/// lines, with the same time range, sensor selection and cell escaping as readings.
enum EventExport {
    static let option = OptionSpec.flag("events", help: "Export button presses and notifications instead: time,address,alias,model,event,value.")

    static func run(_ args: ParsedArguments, range: TimeRange, jsonl: Bool) throws(CLIError) -> Int32 {
        let reader = try StoreAccess.openReader(path: StoreAccess.databasePath(args))
        let selectors = args.all("sensor").map(SensorSelector.init)
        let out = OutputWriter(fd: 1, capacity: 1 << 16)
        var times = TimeFormatter(local: args.has("local"))
        if !jsonl { out.write("time,address,alias,model,event,value" + CSV.recordEnd) }
        do throws(StoreError) {
            try reader.forEachEvent(range: range, sensors: selectors) { e in
                guard out.failed == nil else { return }
                let time = times.format(e.timeMicros)
                if jsonl {
                    out.write(JSON.event(time: time, address: e.address, alias: e.alias, model: e.model, event: e.event, rssi: e.rssi) + "\n")
                } else {
                    out.write(
                        "\(time),\(e.address),\(CSV.text(e.alias ?? "")),\(CSV.text(e.model)),\(e.event.kind.rawValue),"
                            + CSV.text(e.event.value) + CSV.recordEnd)
                }
            }
        } catch {
            out.flush()
            throw StoreAccess.cliError(error)
        }
        try out.finish()
        return ExitCode.ok
    }
}
