#if canImport(Glibc)
import Glibc
#endif
import SensorDecode
import SensorStore

/// `blesensor-log summary`: per sensor, sample count, min/mean/max/last of each quantity, battery,
/// last seen; sensors silent longer than `--stale` or with a battery below `--battery-below` are
/// flagged, and the exit status says whether anything was (for cron).
enum SummaryCommand {
    static let spec = CommandSpec(
        name: "summary",
        abstract: "Summarize each sensor's readings and flag stale sensors and low batteries.",
        options: [
            .value("since", "T", help: "From T (default 24h): ISO 8601 date/time or 90m, 24h, 7d ago."),
            .value("until", "T", help: "Up to (not including) T (default: now)."),
            .value("day", "YYYY-MM-DD", help: "That local calendar day (instead of --since/--until)."),
            .value("by", "hour|day", help: "One summary per sensor and hour or local day."),
            .value("format", "text|csv|json", help: "Output format (default text)."),
            staleOption,
            batteryBelowOption,
            .value("sensor", "ADDR|ALIAS", repeatable: true, help: "Only this sensor (repeatable)."),
            StoreAccess.dbOption,
        ],
        discussion: """
            mean is over stored rows (each a downsampling interval); n counts the advertisements folded in.
            EXIT STATUS: 0 nothing flagged; 1 something flagged; 64 bad option; 66 no database.
            """, settingsFromRunsConfig: ["db"])

    static let subcommand = Subcommand(spec: spec, run: run)

    static let staleOption = OptionSpec.value("stale", "D", help: "Flag sensors not heard for D (default 30m).")
    static let batteryBelowOption = OptionSpec.value(
        "battery-below", "PCT", help: "Flag sensors whose last battery is below PCT % (default 20).")

    enum Format: String { case text, csv, json }

    /// When a sensor is flagged: `--stale` and `--battery-below` (`report` reads them too).
    struct Thresholds {
        var staleMicros: Int64 = 30 * 60_000_000
        var batteryBelow = 20.0

        init(_ args: ParsedArguments) throws(CLIError) {
            if let text = args.value("stale") {
                let d = try TimeArguments.duration(
                    text, option: "stale", in: 0...TimeArguments.maxDurationSeconds, positive: true, example: "30m")
                staleMicros = Int64(d * 1e6)  // below 2^57: see maxDurationSeconds
            }
            if let text = args.value("battery-below") {
                guard let v = Double(text), v >= 0, v <= 100 else { throw .usage("--battery-below wants 0–100, got '\(text)'") }
                batteryBelow = v
            }
        }
    }

    struct Flagged {
        var stale: Bool
        var lowBattery: Bool

        init(_ s: SensorInfo, now: Int64, thresholds t: Thresholds) {
            stale = now - s.lastSeenMicros > t.staleMicros
            lowBattery = (s.lastBatteryPercent.map { $0 < t.batteryBelow }) ?? false
        }

        var any: Bool { stale || lowBattery }
        var words: [String] { (stale ? ["stale"] : []) + (lowBattery ? ["low-battery"] : []) }
    }

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        let now = Timestamp.nowMicros()
        guard let format = Format(rawValue: args.value("format") ?? "text") else {
            throw .usage("--format wants text, csv or json, got '\(args.value("format")!)'")
        }
        var range: TimeRange
        if let day = args.value("day") {
            guard args.value("since") == nil, args.value("until") == nil else { throw .usage("--day excludes --since and --until") }
            guard day.count == 10, let start = TimeArguments.iso8601(day), let next = nextLocalDay(day) else {
                throw .usage("--day wants YYYY-MM-DD, got '\(day)'")
            }
            range = TimeRange(from: start, to: next)
        } else {
            range = try ExportCommand.timeRange(args, now: now)
            if range.from == nil { range.from = now - 24 * 3_600_000_000 }
        }
        let grouping: SummaryGrouping
        switch args.value("by") {
        case nil: grouping = .none
        case "hour": grouping = .hour
        case "day": grouping = .day(utcOffsetSeconds: Timestamp.localOffset(atSeconds: now / 1_000_000))
        case let other?: throw .usage("--by wants hour or day, got '\(other)'")
        }
        let thresholds = try Thresholds(args)

        let reader = try StoreAccess.openReader(path: StoreAccess.databasePath(args))
        let selectors = args.all("sensor").map(SensorSelector.init)
        let out = OutputWriter(fd: 1)
        var times = TimeFormatter(local: false)
        var anyFlagged = false
        if format == .text {
            out.write("Summary \(times.format(range.from ?? 0)) – \(times.format(range.to ?? now))\n")
        } else if format == .csv {
            out.write("period,address,alias,model,quantity,rows,samples,min,mean,max,last,last_time,flags" + CSV.recordEnd)
        }
        // One sensor at a time, by address (`forEachSensorSummary`): memory does not grow with the
        // number of sensors. Every known sensor is checked, also those with no rows in the range:
        // a sensor silent for the whole day is exactly what the flag is for.
        do throws(StoreError) {
            try reader.forEachSensorSummary(range: range, sensors: selectors, by: grouping) { s, rows in
                let f = Flagged(s, now: now, thresholds: thresholds)
                if f.any { anyFlagged = true }
                switch format {
                case .text: writeText(s, rows, f, now: now, &times, out)
                case .csv: writeCSV(s, rows, f, &times, out)
                case .json: writeJSON(s, rows, f, &times, out)
                }
            }
        } catch {
            out.flush()
            throw StoreAccess.cliError(error)
        }
        try out.finish()
        return anyFlagged ? ExitCode.flagged : ExitCode.ok
    }

    static func writeText(
        _ s: SensorInfo, _ rows: [SensorSummary], _ f: Flagged, now: Int64, _ times: inout TimeFormatter, _ out: OutputWriter
    ) {
        var head = "\n\(s.address)  \(s.model)"
        if let a = s.alias { head += "  \"\(DisplayText.escape(Array(a.utf8)))\"" }
        head += "  last seen \(times.format(s.lastSeenMicros)) (\(age(now - s.lastSeenMicros)) ago)"
        if let b = s.lastBatteryPercent { head += "  battery \(JSON.number(b, integer: true)) %" }
        if f.any { head += "  ** " + f.words.joined(separator: ", ").uppercased() + " **" }
        out.write(head + "\n")
        for sum in rows {
            let prefix = sum.periodStartMicros.map { "  " + times.format($0) + "\n" } ?? ""
            out.write(prefix)
            for q in sum.quantities {
                out.write("    " + q.quantity.key.padding(22) + "n=\(q.samples)".padding(10)
                    + "min " + number(q.min).padding(9) + "mean " + number(q.mean).padding(9)
                    + "max " + number(q.max).padding(9) + "last " + number(q.last) + "\n")
            }
        }
        if rows.isEmpty { out.write("    (no readings in this period)\n") }
    }

    static func writeCSV(_ s: SensorInfo, _ rows: [SensorSummary], _ flags: Flagged, _ times: inout TimeFormatter, _ out: OutputWriter) {
        let f = flags.words.joined(separator: " ")
        let who = "\(s.address)," + CSV.text(s.alias ?? "") + "," + CSV.text(s.model)
        if rows.isEmpty { out.write(",\(who),,0,0,,,,,\(times.format(s.lastSeenMicros)),\(f)" + CSV.recordEnd) }
        for sum in rows {
            let period = sum.periodStartMicros.map { times.format($0) } ?? ""
            for q in sum.quantities {
                out.write("\(period),\(who),\(q.quantity.key),\(q.rows),\(q.samples),\(number(q.min)),\(number(q.mean)),"
                    + "\(number(q.max)),\(number(q.last)),\(times.format(q.lastTimeMicros)),\(f)" + CSV.recordEnd)
            }
        }
    }

    static func writeJSON(_ s: SensorInfo, _ rows: [SensorSummary], _ f: Flagged, _ times: inout TimeFormatter, _ out: OutputWriter) {
        let periods: [SensorSummary?] = rows.isEmpty ? [nil] : rows
        for sum in periods {
            var o = "{\"address\":\"\(s.address)\",\"alias\":" + (s.alias.map(JSON.string) ?? "null")
                + ",\"model\":" + JSON.string(s.model)
            if let p = sum?.periodStartMicros { o += ",\"period\":\"\(times.format(p))\"" }
            o += ",\"rows\":\(sum?.rows ?? 0),\"samples\":\(sum?.samples ?? 0)"
            o += ",\"last_seen\":\"\(times.format(s.lastSeenMicros))\""
            if let b = s.lastBatteryPercent { o += ",\"battery_pct\":" + JSON.number(b, integer: true) }
            o += ",\"flags\":[" + f.words.map { "\"\($0)\"" }.joined(separator: ",") + "]"
            o += ",\"quantities\":{"
            o += (sum?.quantities ?? []).map { q in
                "\"\(q.quantity.key)\":{\"samples\":\(q.samples),\"rows\":\(q.rows),\"min\":\(JSON.number(q.min)),"
                    + "\"mean\":\(JSON.number(q.mean)),\"max\":\(JSON.number(q.max)),\"last\":\(JSON.number(q.last)),"
                    + "\"last_time\":\"\(times.format(q.lastTimeMicros))\"}"
            }.joined(separator: ",")
            out.write(o + "}}\n")
        }
    }

    /// Two decimals at most, for reading by people; CSV/JSON consumers get the same rounding.
    static func number(_ v: Double) -> String {
        guard v.isFinite else { return "" }
        return JSON.number((v * 100).rounded() / 100)
    }

    static func age(_ micros: Int64) -> String {
        let s = max(0, micros / 1_000_000)
        if s < 120 { return "\(s)s" }
        if s < 7200 { return "\(s / 60)m" }
        if s < 172_800 { return "\(s / 3600)h" }
        return "\(s / 86400)d"
    }

    /// Local midnight after the day `YYYY-MM-DD`, in µs.
    static func nextLocalDay(_ day: String) -> Int64? {
        let parts = day.split(separator: "-").compactMap { Int64($0) }
        guard parts.count == 3 else { return nil }
        let days = Timestamp.days(year: parts[0], month: parts[1], day: parts[2]) + 1
        let (y, m, d) = Timestamp.civil(fromDays: days)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return TimeArguments.iso8601("\(y)-\(two(m))-\(two(d))")
    }
}
