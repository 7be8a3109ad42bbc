/// One chart: a quantity of a sensor over a range, in buckets, ready to draw.
public struct Chart: Sendable {
    public var range: ChartRange
    public var display: QuantityDisplay
    /// The window drawn, µs since the epoch: `[start, end)`.
    public var startMicros: Int64
    public var endMicros: Int64
    public var buckets: [Bucket]
    /// The sensor's latest value of the quantity (stored units), for the title.
    public var latest: Double?
    /// Shown in the title when the chart stands alone (`chart --svg`); `nil` in a page, whose
    /// section names the sensor.
    public var sensorName: String?
    /// The sensor's address, for `data-sensor` (what tests and scripts select charts by).
    public var sensorAddress: String

    public init(
        range: ChartRange, display: QuantityDisplay, startMicros: Int64, endMicros: Int64, buckets: [Bucket],
        latest: Double?, sensorName: String?, sensorAddress: String
    ) {
        self.range = range
        self.display = display
        self.startMicros = startMicros
        self.endMicros = endMicros
        self.buckets = buckets
        self.latest = latest
        self.sensorName = sensorName
        self.sensorAddress = sensorAddress
    }

    /// Whether any bucket holds data: a report draws only charts that do.
    public var hasData: Bool { buckets.contains { $0.value != nil } }
}

/// Draws a `Chart` as SVG: a min–max band and a mean line per run of buckets with data (a gap
/// breaks both: each run is its own subpath), value gridlines with labels and the unit, time
/// gridlines labelled in local time, and a title with the latest value.
///
/// Sized by its viewBox only (`width: 100%` in CSS), so it fits any screen; colours come from
/// CSS variables that `css` sets for light and dark schemes. Ticks carry `data-value` /
/// `data-time` (UTC), so a script can read the scales back from the drawing.
public enum SVGChart {
    /// The drawing's size in viewBox units and the plot area inside it.
    public static let width = 480.0
    public static let height = 200.0
    public static let plotLeft = 44.0
    public static let plotRight = 472.0
    public static let plotTop = 30.0
    public static let plotBottom = 176.0
    /// Half the widest time label (`Wed 25`), plus the margin: how far from the right edge a label may sit.
    static let labelRoom = 16.0

    /// The charts' style sheet: put once in a page's head, or inside a standalone SVG.
    public static let css = """
        .chart{--fg:#1f2933;--muted:#52606d;--grid:#d9dee5;--line:#c2410c;--band:#f97316;\
        font:11px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
        .chart.q-humidity{--line:#1d4ed8;--band:#3b82f6}
        .chart.q-battery{--line:#4d7c0f;--band:#84cc16}
        .chart.q-other{--line:#0f766e;--band:#14b8a6}
        @media (prefers-color-scheme:dark){.chart{--fg:#e4e7eb;--muted:#9aa5b1;--grid:#323f4b;--line:#fb923c;--band:#fdba74}
        .chart.q-humidity{--line:#60a5fa;--band:#93c5fd}.chart.q-battery{--line:#a3e635;--band:#bef264}
        .chart.q-other{--line:#2dd4bf;--band:#5eead4}}
        .chart text{fill:var(--muted)}
        .chart .title{fill:var(--fg);font-size:13px;font-weight:600}
        .chart .latest{fill:var(--line)}
        .chart .grid line{stroke:var(--grid);stroke-width:1}
        .chart .band{fill:var(--band);fill-opacity:.3;stroke:none}
        .chart .mean{fill:none;stroke:var(--line);stroke-width:1.6;stroke-linejoin:round;stroke-linecap:round}
        .chart .dot{fill:var(--line)}
        .chart .empty{font-size:13px}
        """

    /// The SVG element. `standalone` adds the namespace, an XML-free style element and the
    /// sensor's name: a file of its own that a browser or an `<img>` shows as it is.
    public static func render(_ chart: Chart, local: LocalTime, standalone: Bool) -> String {
        var s = ""
        s.reserveCapacity(256 + chart.buckets.count * 40)
        let q = chart.display
        s += "<svg class=\"chart \(q.colourClass)\" viewBox=\"0 0 \(Int(width)) \(Int(height))\""
        // Standalone, it has an intrinsic size (an `<img>` shows it at 480 × 200 unless told otherwise).
        if standalone { s += " width=\"\(Int(width))\" height=\"\(Int(height))\" xmlns=\"http://www.w3.org/2000/svg\"" }
        s += " role=\"img\" data-sensor=\"\(ReportText.escape(chart.sensorAddress))\" data-quantity=\""
        s += ReportText.escape(q.key) + "\" data-range=\"\(chart.range.rawValue)\">"
        if standalone { s += "<style>" + css + "</style>" }
        var title = ""
        if let name = chart.sensorName { title += name + " · " }
        title += q.name + " · " + chart.range.caption
        let latest = chart.latest.map { q.text($0) }
        s += "<title>" + ReportText.escape(title + (latest.map { ", latest " + $0 } ?? "")) + "</title>"
        s += "<text class=\"title\" x=\"\(Int(plotLeft))\" y=\"15\">" + ReportText.escape(title)
        if let latest { s += " · <tspan class=\"latest\">" + ReportText.escape(latest) + "</tspan>" }
        s += "</text>"

        // Value axis over every bucket's band, in the unit shown.
        var lo = Double.infinity
        var hi = -Double.infinity
        for b in chart.buckets {
            guard let v = b.value else { continue }
            lo = min(lo, q.convert(v.min))
            hi = max(hi, q.convert(v.max))
        }
        let hasData = lo <= hi
        let ticks = NiceTicks(min: hasData ? lo : 0, max: hasData ? hi : 1, target: 5)
        let y = LinearScale(domain: (ticks.lower, ticks.upper), range: (plotBottom, plotTop))
        let x = LinearScale(domain: (Double(chart.startMicros), Double(chart.endMicros)), range: (plotLeft, plotRight))

        s += "<g class=\"grid\">"
        if hasData {
            for v in ticks.values {
                let yy = ReportText.coordinate(y(v))
                s += "<g class=\"ytick\" data-value=\"" + ReportText.number(v, maxDecimals: 6) + "\">"
                s += "<line x1=\"\(Int(plotLeft))\" x2=\"\(Int(plotRight))\" y1=\"\(yy)\" y2=\"\(yy)\"/>"
                s += "<text x=\"\(Int(plotLeft) - 4)\" y=\"\(yy)\" dy=\"0.32em\" text-anchor=\"end\">"
                s += ReportText.fixed(v, decimals: ticks.decimals) + "</text></g>"
            }
        }
        for t in TimeTicks.ticks(from: chart.startMicros, to: chart.endMicros, range: chart.range, local: local) {
            let position = x(Double(t.micros))
            let xx = ReportText.coordinate(position)
            s += "<g class=\"xtick\" data-time=\"" + ReportText.isoUTC(micros: t.micros) + "\">"
            s += "<line x1=\"\(xx)\" x2=\"\(xx)\" y1=\"\(Int(plotTop))\" y2=\"\(Int(plotBottom))\"/>"
            // A label centred this close to the right edge would be cut off: the line stays.
            if position <= plotRight - labelRoom {
                s += "<text x=\"\(xx)\" y=\"\(Int(plotBottom) + 15)\" text-anchor=\"middle\">" + ReportText.escape(t.label)
                s += "</text>"
            }
            s += "</g>"
        }
        s += "</g>"
        if !q.unit.isEmpty {
            s += "<text class=\"unit\" x=\"\(Int(plotLeft) - 4)\" y=\"\(Int(plotTop) - 9)\" text-anchor=\"end\">"
            s += ReportText.escape(q.unit) + "</text>"
        }
        guard hasData else {
            s += "<text class=\"empty\" x=\"\(Int((plotLeft + plotRight) / 2))\" y=\"\(Int((plotTop + plotBottom) / 2))\""
            s += " text-anchor=\"middle\">No data stored in this period</text></svg>"
            return s
        }

        let runs = Segments.split(chart.buckets)
        var band = PathData()
        var mean = PathData()
        var dots = ""
        for run in runs {
            let xs = run.map { x(Double($0.midMicros)) }
            if run.count == 1, let v = run[0].value {
                // A lone bucket between gaps: a dot (a line needs two points).
                dots += "<circle class=\"dot\" cx=\"\(ReportText.coordinate(xs[0]))\" cy=\""
                dots += ReportText.coordinate(y(q.convert(v.mean))) + "\" r=\"2\"/>"
                continue
            }
            // The band: along the maxima, back along the minima, closed.
            for (i, b) in run.enumerated() { band.add(i == 0 ? "M" : "L", xs[i], y(q.convert(b.value!.max))) }
            for (i, b) in run.enumerated().reversed() { band.add("L", xs[i], y(q.convert(b.value!.min))) }
            band.close()
            for (i, b) in run.enumerated() { mean.add(i == 0 ? "M" : "L", xs[i], y(q.convert(b.value!.mean))) }
        }
        if !band.isEmpty { s += "<path class=\"band\" d=\"" + band.text + "\"/>" }
        if !mean.isEmpty { s += "<path class=\"mean\" d=\"" + mean.text + "\"/>" }
        s += dots
        s += "</svg>"
        return s
    }
}

/// The `d` attribute of a path, written as bytes: a page of 50 sensors has a few hundred thousand
/// points, and text made number by number through `String` was most of a report's time.
struct PathData {
    private var bytes: [UInt8] = []

    var isEmpty: Bool { bytes.isEmpty }
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// `M`/`L` and a point, each coordinate to a tenth (as `ReportText.coordinate` writes it).
    mutating func add(_ command: Unicode.Scalar, _ x: Double, _ y: Double) {
        bytes.append(UInt8(command.value))
        coordinate(x)
        bytes.append(UInt8(ascii: " "))
        coordinate(y)
    }

    mutating func close() { bytes.append(UInt8(ascii: "Z")) }

    private mutating func coordinate(_ v: Double) {
        // Drawing coordinates are within a few thousand units of the viewBox; a non-finite or
        // absurd one (a damaged value) is clamped rather than trapping in the conversion.
        let tenths = Int(Swift.max(-1e12, Swift.min(1e12, (v.isFinite ? v : 0) * 10)).rounded())
        if tenths < 0 { bytes.append(UInt8(ascii: "-")) }
        let a = tenths.magnitude
        var whole = a / 10
        // The whole part's digits from the right: at most 12 (it is at most 10^11).
        var digits = InlineArray<12, UInt8>(repeating: 0)
        var n = 0
        repeat {
            digits[n] = UInt8(ascii: "0") + UInt8(whole % 10)
            whole /= 10
            n += 1
        } while whole > 0
        for k in stride(from: n - 1, through: 0, by: -1) { bytes.append(digits[k]) }
        if a % 10 != 0 {
            bytes.append(UInt8(ascii: "."))
            bytes.append(UInt8(ascii: "0") + UInt8(a % 10))
        }
    }
}
