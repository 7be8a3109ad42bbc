#if canImport(Glibc)
import Glibc
#endif
import SensorDecode
import SensorStore

/// `blesensor-log export`: stored readings as CSV (RFC 4180), JSON lines or InfluxDB line protocol, streamed in constant
/// memory from one read snapshot (the logger keeps writing meanwhile).
enum ExportCommand {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Export stored readings as CSV or JSON lines.",
        options: [
            .flag("csv", help: "CSV with a header: time,address,alias,model,<one column per quantity> (default)."),
            .flag("jsonl", help: "One JSON object per row."),
            .flag("influx", help: "InfluxDB line protocol: a point per row (for influx write, Telegraf)."),
            .flag("prometheus", help: "Prometheus text format: each sensor's last values and last_seen (textfile collector)."),
            .value("since", "T", help: "From T: ISO 8601 date/time (local unless it has an offset) or 90m, 24h, 7d ago."),
            .value("until", "T", help: "Up to (not including) T; same forms as --since."),
            .value("sensor", "ADDR|ALIAS", repeatable: true, help: "Only this sensor (repeatable)."),
            StoreAccess.dbOption,
            .flag("local", help: "Times in local time with their offset (default: UTC with Z)."),
            EventExport.option,
        ],
        discussion: """
            Cells of text that a spreadsheet would run as a formula (=, +, -, @) are prefixed with '.
            EXIT STATUS: 0; 64 bad option or unknown sensor; 66 no database; 74 output or read error.
            """, settingsFromRunsConfig: ["db"])

    static let subcommand = Subcommand(spec: spec, run: run)

    /// `--since`/`--until` → a half-open range in µs.
    static func timeRange(_ args: ParsedArguments, now: Int64) throws(CLIError) -> TimeRange {
        var range = TimeRange()
        for (name, keyPath) in [("since", \TimeRange.from), ("until", \TimeRange.to)] {
            guard let text = args.value(name) else { continue }
            guard let t = TimeArguments.time(text, nowMicros: now) else {
                throw .usage(
                    "--\(name) wants an ISO 8601 date/time or a duration ago like 24h (at most "
                        + "\(TimeArguments.describe(TimeArguments.maxDurationSeconds))), got '\(text)'")
            }
            range[keyPath: keyPath] = t
        }
        if let f = range.from, let t = range.to, f > t { throw .usage("--until is before --since") }
        return range
    }

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        if [args.has("csv"), args.has("jsonl"), args.has("influx"), args.has("prometheus")].filter({ $0 }).count > 1 {
            throw .usage("--csv, --jsonl, --influx and --prometheus exclude each other")
        }
        let influx = args.has("influx")
        let jsonl = args.has("jsonl")
        let range = try timeRange(args, now: Timestamp.nowMicros())
        if args.has("events") { return try EventExport.run(args, range: range, jsonl: jsonl) }
        let reader = try StoreAccess.openReader(path: StoreAccess.databasePath(args))
        let selectors = args.all("sensor").map(SensorSelector.init)
        if args.has("prometheus") {
            let summaries: [SensorSummary]
            do { summaries = try reader.summary(range: range, sensors: selectors) } catch { throw StoreAccess.cliError(error) }
            let out = OutputWriter(fd: 1)
            out.write(PrometheusText.page(summaries))
            try out.finish()
            return ExitCode.ok
        }
        let cursor: ExportCursor
        do { cursor = try reader.export(range: range, sensors: selectors) } catch { throw StoreAccess.cliError(error) }
        let out = OutputWriter(fd: 1, capacity: 1 << 18)
        var times = TimeFormatter(local: args.has("local"))
        let columns = cursor.quantities
        // A hub's file (rows by receiver) has a `receiver` column after `model`; a logger's own
        // keeps the header it always had.
        let receivers = cursor.hasReceivers
        if !jsonl, !influx {
            out.write(
                "time,address,alias,model" + (receivers ? ",receiver" : "") + columns.map { "," + CSV.text($0.key) }.joined()
                    + CSV.recordEnd)
        }
        // ",address,alias,model" per sensor, escaped once: a direct-mapped cache by sensor id
        // (rowids, so 64 sensors never collide), bounded whatever the number of sensors.
        var sensorText = [(id: Int64, text: [UInt8])](repeating: (-1, []), count: 64)
        // Rows stamped by a clock not known to be right: said once at the end, on stderr, so
        // that the columns stay what scripts expect; JSON lines also flag each such row.
        var unsynchronised = UnsynchronisedRows()
        do throws(StoreError) {
            while try cursor.step() {
                let flagged = cursor.current.clockUnsynchronised
                if flagged { unsynchronised.add(rowAt: cursor.current.timeMicros) }
                if influx {
                    if let line = InfluxLine.point(try cursor.row()) { out.write(line + "\n") }
                } else if jsonl {
                    let row = try cursor.row()
                    out.write(JSON.storedRow(row, time: times.format(row.timeMicros), clockUnsynced: flagged) + "\n")
                } else {
                    let sid = cursor.current.sensorID
                    let slot = Int(UInt64(bitPattern: sid) & 63)
                    if sensorText[slot].id != sid {
                        let s = try cursor.sensor
                        let text = ",\(s.address)," + CSV.text(s.alias ?? "") + "," + CSV.text(s.model)
                        sensorText[slot] = (sid, Array(text.utf8))
                    }
                    let values = cursor.current.values
                    let time = cursor.current.timeMicros
                    let sensorAndReceiver =
                        receivers
                        ? sensorText[slot].text + Array(("," + CSV.text(cursor.receiver ?? "")).utf8) : sensorText[slot].text
                    // The time and the sensor's text are copied whole; the numbers written in place,
                    // in room for a comma and a number per column, and CRLF.
                    out.write(bytes: times.text(time))
                    out.write(bytes: sensorAndReceiver)
                    out.write(atMost: values.count * (1 + NumberText.maxBytes) + 2) { record in
                        for v in values {
                            record.append(UInt8(ascii: ","))
                            NumberText.write(v, to: &record)
                        }
                        record.append(UInt8(ascii: "\r"))
                        record.append(UInt8(ascii: "\n"))
                    }
                }
                if out.failed != nil { break }
            }
        } catch {
            out.flush()
            throw StoreAccess.cliError(error)
        }
        cursor.close()
        try out.finish()
        if let note = unsynchronisedNote(unsynchronised, times: &times) { printError(note) }
        return ExitCode.ok
    }

    /// The one stderr line about exported rows stamped while the clock was unsynchronised.
    static func unsynchronisedNote(_ u: UnsynchronisedRows, times: inout TimeFormatter) -> String? {
        guard u.rows > 0, let first = u.firstMicros, let last = u.lastMicros else { return nil }
        let when = first == last ? "at \(times.format(first))" : "between \(times.format(first)) and \(times.format(last))"
        return "export: \(u.rows) row\(u.rows == 1 ? "" : "s") \(when) \(u.rows == 1 ? "was" : "were") stamped while the clock "
            + "was unsynchronised (times may be off)"
    }
}

/// ISO 8601 time stamps for many rows: UTC with `Z`, or local time with the offset in force at
/// each instant (looked up once per hour of data, not per row).
struct TimeFormatter {
    let local: Bool
    private var cachedHour: Int64 = .min
    private var cachedOffset: Int64 = 0
    /// The date-and-hour and offset texts of the local hour `textHour` (with `textOffset`): rows
    /// come in time order, so a whole hour of them shares both.
    private var textHour: Int64 = .min
    private var textOffset: Int64? = nil
    private var dateAndHour: [UInt8] = []
    private var offsetText: [UInt8] = []

    /// The whole text of `lastMicros`: a minute's rows of every sensor share one time stamp.
    private var lastMicros: Int64? = nil
    private var lastText: [UInt8] = []

    init(local: Bool) { self.local = local }

    /// The time stamp's bytes, for the hot export loop (same text as `format`).
    mutating func text(_ micros: Int64) -> [UInt8] {
        if micros != lastMicros {
            lastMicros = micros
            var text = lastText
            lastText = []  // so that `text` is the only reference and grows in place
            text.removeAll(keepingCapacity: true)
            append(micros, to: &text)
            lastText = text
        }
        return lastText
    }

    /// Appends the time stamp as bytes (same text as `format`).
    mutating func append(_ micros: Int64, to buffer: inout [UInt8]) {
        var offset: Int64? = nil
        if local {
            let hour = micros / 3_600_000_000
            if hour != cachedHour {
                cachedHour = hour
                cachedOffset = Timestamp.localOffset(atSeconds: micros / 1_000_000)
            }
            offset = cachedOffset
        }
        let parts = ISO8601Parts(micros: micros, localOffsetSeconds: offset)
        if parts.hour != textHour || offset != textOffset {
            textHour = parts.hour
            textOffset = offset
            dateAndHour.removeAll(keepingCapacity: true)
            parts.appendDateAndHour(to: &dateAndHour)
            offsetText.removeAll(keepingCapacity: true)
            parts.appendOffset(to: &offsetText)
        }
        buffer.append(contentsOf: dateAndHour)
        parts.appendMinuteAndSecond(to: &buffer)
        buffer.append(contentsOf: offsetText)
    }

    mutating func format(_ micros: Int64) -> String {
        guard local else { return Timestamp.iso8601(micros: micros, localOffsetSeconds: nil) }
        let hour = micros / 3_600_000_000
        if hour != cachedHour {
            cachedHour = hour
            cachedOffset = Timestamp.localOffset(atSeconds: micros / 1_000_000)
        }
        return Timestamp.iso8601(micros: micros, localOffsetSeconds: cachedOffset)
    }
}
