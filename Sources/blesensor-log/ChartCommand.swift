import SensorReport
import SensorStore

/// `blesensor-log chart --svg SENSOR`: one chart as a standalone SVG on standard output, to embed
/// in another page or dashboard (the same drawing as the report's).
enum ChartCommand {
    static let spec = CommandSpec(
        name: "chart",
        abstract: "Print one sensor's chart of one quantity as a standalone SVG.",
        arguments: [("SENSOR", "The sensor's address or alias.")],
        options: [
            .flag("svg", help: "SVG on standard output (the only format)."),
            .value("range", "day|week|month|year", help: "The span charted, ending at the newest reading (default day)."),
            .value("quantity", "KEY", help: "The quantity, e.g. humidity_pct (default temperature_c)."),
            ChartData.unitOption,
            StoreAccess.dbOption,
        ],
        discussion: """
            A period without stored data gives a chart that says so. Times are local (TZ).
            EXIT STATUS: 0; 64 bad option, unknown sensor or quantity; 66 no database; 74 output error.
            """, settingsFromRunsConfig: ["db"])

    static let subcommand = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        guard args.has("svg") else { throw .usage("chart wants --svg (the only format)") }
        let rangeName = args.value("range") ?? "day"
        guard let range = ChartRange(rawValue: rangeName) else {
            throw .usage("--range wants day, week, month or year, got '\(rangeName)'")
        }
        let key = args.value("quantity") ?? "temperature_c"
        let fahrenheit = try ChartData.fahrenheit(args)
        let reader = try StoreAccess.openReader(path: StoreAccess.databasePath(args))
        let known: [Int64: String]
        do { known = try reader.quantityKeys() } catch { throw StoreAccess.cliError(error) }
        guard known.values.contains(key) else {
            let some = known.values.sorted().prefix(12).joined(separator: ", ")
            throw CLIError("no quantity '\(key)' is stored" + (some.isEmpty ? "" : " (stored: \(some))"), code: ExitCode.usage)
        }
        let now = Timestamp.nowMicros()
        let data = try ChartData.read(
            reader, selectors: [SensorSelector(args.positionals[0])], now: now, since: nil, ranges: [range])
        let sensor = data.sensors[0]
        let address = sensor.address.description
        let display = QuantityDisplay(key: key, fahrenheit: fahrenheit)
        let series = data.series[sensor.id]?[key] ?? QuantitySeries(data.set)
        guard !data.set.plans.isEmpty else { throw CLIError("nothing to chart", code: ExitCode.dataError) }
        let chart = series.chart(0, in: data.set, display: display, sensorName: sensor.alias ?? address, sensorAddress: address)
        let svg = SVGChart.render(chart, local: ChartData.local, standalone: true) + "\n"
        try ChartData.emit(Array(svg.utf8), to: "-")
        return ExitCode.ok
    }
}
