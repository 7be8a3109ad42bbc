#if canImport(Glibc)
import Glibc
#endif
import SensorDecode
import SensorReport
import SensorStore

/// `blesensor-log report`: one self-contained HTML page with each sensor's charts (last day,
/// week, month, year) drawn from the hourly rollups, written atomically so a web server can
/// serve the file while a timer rewrites it.
enum ReportCommand {
    static let spec = CommandSpec(
        name: "report",
        abstract: "Write an HTML report: per sensor, charts of every quantity over the last day, week, month and year.",
        options: [
            .value("html", "FILE", help: "Write the page to FILE (replaced atomically), or - for standard output."),
            .value("since", "T", help: "Leave out data before T (ISO 8601 date/time or 90m, 24h, 7d ago)."),
            .value("sensor", "ADDR|ALIAS", repeatable: true, help: "Only this sensor (repeatable; default: all)."),
            ChartData.unitOption,
            SummaryCommand.staleOption,
            SummaryCommand.batteryBelowOption,
            StoreAccess.dbOption,
        ],
        discussion: """
            Charts end at the newest stored reading, never after now: a replayed capture
            shows its own week. Buckets: hourly over a day and a week, 2-hourly over a month, local days over a
            year; each draws the mean as a line and the minimum to maximum as a band, and a bucket where
            nothing was stored breaks both. Times are local (TZ). Flags as in 'summary'.
            EXIT STATUS: 0; 64 bad option or unknown sensor; 66 no database; 73/74 the file cannot be written.
            """, settingsFromRunsConfig: ["db"])

    static let subcommand = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        guard let target = args.value("html") else { throw .usage("report wants --html FILE (or --html - for standard output)") }
        guard !target.isEmpty else { throw .usage("--html wants a file name or -") }
        let now = Timestamp.nowMicros()
        let fahrenheit = try ChartData.fahrenheit(args)
        let thresholds = try SummaryCommand.Thresholds(args)
        let since = try ExportCommand.timeRange(args, now: now).from
        let reader = try StoreAccess.openReader(path: StoreAccess.databasePath(args))
        let selectors = args.all("sensor").map(SensorSelector.init)
        let data = try ChartData.read(reader, selectors: selectors, now: now, since: since, ranges: ChartRange.allCases)

        var sections: [SensorSection] = []
        for s in data.sensors {
            let flags = SummaryCommand.Flagged(s, now: now, thresholds: thresholds)
            let address = s.address.description
            var quantities: [(display: QuantityDisplay, charts: [Chart])] = []
            for (key, series) in data.quantities(of: s) {
                let display = QuantityDisplay(key: key, fahrenheit: fahrenheit)
                let charts = series.charts(in: data.set, display: display, sensorName: nil, sensorAddress: address)
                if !charts.isEmpty { quantities.append((display, charts)) }
            }
            sections.append(
                SensorSection(
                    name: s.alias ?? address, address: address, model: s.model, lastSeenMicros: s.lastSeenMicros,
                    batteryPercent: s.lastBatteryPercent, flags: flags.words, quantities: quantities))
        }
        let page = HTMLPage.render(
            sections: sections, generatedMicros: now, newestMicros: data.endMicros, local: ChartData.local,
            empty: "No readings are stored yet: run 'blesensor-log run', or replay a capture.")
        try ChartData.emit(Array(page.utf8), to: target)
        return ExitCode.ok
    }
}

/// What `report` and `chart` share: which sensors, where the charts end, each quantity's rollups
/// folded into the charts' buckets, the unit option, and writing the result.
struct ChartData {
    var sensors: [SensorInfo]
    /// The end of the charts (µs): the newest stored reading of any sensor, or now if that is later.
    var endMicros: Int64
    var set: ChartSet
    /// By sensor id, then quantity key.
    var series: [Int64: [String: QuantitySeries]]

    static let unitOption = OptionSpec.value("unit", "C|F", help: "Temperatures in °C (default) or °F.")

    /// Local time as `localtime_r` has it (the TZ environment variable, else /etc/localtime).
    static let local = LocalTime { Timestamp.localOffset(atSeconds: $0) }

    static func fahrenheit(_ args: ParsedArguments) throws(CLIError) -> Bool {
        switch args.value("unit")?.uppercased() {
        case nil, "C": return false
        case "F": return true
        case let other?: throw .usage("--unit wants C or F, got '\(other)'")
        }
    }

    /// The quantities of a sensor that have data in some chart, in display order.
    func quantities(of s: SensorInfo) -> [(key: String, series: QuantitySeries)] {
        (series[s.id] ?? [:]).sorted { QuantityDisplay.order($0.key, $1.key) }.map { ($0.key, $0.value) }
    }

    /// Reads the selected sensors (all when none is named) and their rollups over every chart's window.
    static func read(
        _ reader: StoreReader, selectors: [SensorSelector], now: Int64, since: Int64?, ranges: [ChartRange]
    ) throws(CLIError) -> ChartData {
        do throws(StoreError) {
            let all = try reader.sensors()
            var sensors = selectors.isEmpty ? all : try selectors.map { s throws(StoreError) in try reader.sensor(s) }
            var seen = Set<Int64>()
            sensors = sensors.filter { seen.insert($0.id).inserted }.sorted { $0.address < $1.address }
            // A reading stamped in the future (a clock that jumped) must not push every chart past now.
            let newest = all.map(\.lastSeenMicros).max() ?? now
            let end = min(now, newest)
            let hour = Int64(3_600_000_000)
            let endHour = CivilDate.floorDiv(end, hour) + 1
            let sinceHour = since.map { CivilDate.floorDiv($0 + hour - 1, hour) }
            let set = ChartSet(endHour: endHour, sinceHour: sinceHour, ranges: ranges, local: local)
            var series: [Int64: [String: QuantitySeries]] = [:]
            if !sensors.isEmpty, !set.hours.isEmpty {
                let keys = try reader.quantityKeys()
                // Rollups come hour by hour, sensor by sensor, each sensor's quantities together:
                // its slots are looked up once per rollup row, then searched by quantity id.
                var slotsBySensor: [Int64: [(quantity: Int64, slot: Int)]] = [:]
                var current: (sensor: Int64, slots: [(quantity: Int64, slot: Int)]) = (-1, [])
                var store: [(sensor: Int64, key: String, series: QuantitySeries)] = []
                // Every sensor: no filter to test per row.
                let filter = selectors.isEmpty ? nil : Set(sensors.map(\.id))
                try reader.forEachHourlyRollup(hours: set.hours, sensors: filter) { r in
                    if r.sensorID != current.sensor {
                        if current.sensor >= 0 { slotsBySensor[current.sensor] = current.slots }
                        current = (r.sensorID, slotsBySensor[r.sensorID] ?? [])
                    }
                    let i: Int
                    if let found = current.slots.first(where: { $0.quantity == r.quantityID }) {
                        i = found.slot
                    } else {
                        i = store.count
                        current.slots.append((r.quantityID, i))
                        store.append((r.sensorID, keys[r.quantityID] ?? "quantity_\(r.quantityID)", QuantitySeries(set)))
                    }
                    store[i].series.add(
                        HourValue(hour: r.hour, rows: r.rows, sum: r.sum, min: r.min, max: r.max), last: r.last,
                        lastMicros: r.lastTimeMicros, in: set)
                }
                for e in store { series[e.sensor, default: [:]][e.key] = e.series }
            }
            return ChartData(sensors: sensors, endMicros: end, set: set, series: series)
        } catch {
            throw StoreAccess.cliError(error)
        }
    }

    /// Writes `bytes` to `target`: `-` is standard output, anything else a file replaced atomically.
    static func emit(_ bytes: [UInt8], to target: String) throws(CLIError) {
        if target == "-" {
            let out = OutputWriter(fd: 1)
            out.write(bytes: bytes)
            try out.finish()
        } else {
            try AtomicFile.replace(target, with: bytes)
        }
    }
}
