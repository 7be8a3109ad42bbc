/// What the page says about one sensor, above its charts.
public struct SensorSection: Sendable {
    /// The alias, else the address.
    public var name: String
    public var address: String
    public var model: String
    public var lastSeenMicros: Int64
    public var batteryPercent: Double?
    /// `stale`, `low-battery`: as `summary` flags them.
    public var flags: [String]
    /// Per quantity (in display order), the charts that have data.
    public var quantities: [(display: QuantityDisplay, charts: [Chart])]

    public init(
        name: String, address: String, model: String, lastSeenMicros: Int64, batteryPercent: Double?,
        flags: [String], quantities: [(display: QuantityDisplay, charts: [Chart])]
    ) {
        self.name = name
        self.address = address
        self.model = model
        self.lastSeenMicros = lastSeenMicros
        self.batteryPercent = batteryPercent
        self.flags = flags
        self.quantities = quantities
    }
}

/// The report: one self-contained HTML page. Inline CSS and SVG only: nothing is fetched (no
/// script, font or image from elsewhere), and it reads the same without JavaScript. Light or dark
/// follows `prefers-color-scheme`; charts scale to the width (one column on a phone).
public enum HTMLPage {
    static let css = """
        :root{color-scheme:light dark;--bg:#f5f7fa;--fg:#1f2933;--muted:#52606d;--card:#fff;--border:#dde3ea;--warn:#b91c1c}
        @media (prefers-color-scheme:dark){:root{--bg:#0f141a;--fg:#e4e7eb;--muted:#9aa5b1;--card:#161d26;--border:#273240;--warn:#f87171}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
        main{max-width:1200px;margin:0 auto;padding:12px}
        h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.2em;margin:0 0 .2em}h3{font-size:1em;margin:.8em 0 .3em}
        .muted,.meta{color:var(--muted)}
        nav a{margin-right:.8em;white-space:nowrap}
        a{color:inherit}
        .sensor{background:var(--card);border:1px solid var(--border);border-radius:8px;padding:12px;margin:14px 0}
        .flag{color:var(--warn);font-weight:600;text-transform:uppercase;margin-left:.4em}
        .charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,380px),1fr));gap:10px}
        svg.chart{display:block;width:100%;height:auto}
        """

    /// - Parameters:
    ///   - generatedMicros: when the page was made; `newestMicros`: the newest reading the charts show.
    ///   - empty: what the page says when there are no sections.
    public static func render(
        sections: [SensorSection], generatedMicros: Int64, newestMicros: Int64, local: LocalTime,
        empty: String = "No readings are stored yet."
    ) -> String {
        var s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        s += "<meta name=\"color-scheme\" content=\"light dark\">"
        s += "<title>Sensors — blesensor-log</title><style>" + css + "\n" + SVGChart.css + "</style></head>\n<body><main>"
        s += "<h1>Sensors</h1><p class=\"muted\">Made " + ReportText.localDateTime(micros: generatedMicros, local: local)
        s += " (" + ReportText.offsetName(atMicros: generatedMicros, local: local) + "); newest reading "
        s += ReportText.localDateTime(micros: newestMicros, local: local)
        s += ". Lines are means, bands the minimum to maximum, gaps where nothing was stored.</p>\n"
        if sections.isEmpty {
            s += "<p class=\"empty\">" + ReportText.escape(empty) + "</p>"
        } else if sections.count > 1 {
            s += "<nav>" + sections.map { "<a href=\"#\(anchor($0.address))\">" + ReportText.escape($0.name) + "</a>" }
                .joined(separator: " ") + "</nav>\n"
        }
        for sec in sections {
            s += "<section class=\"sensor\" id=\"\(anchor(sec.address))\" data-sensor=\"\(ReportText.escape(sec.address))\">"
            s += "<h2>" + ReportText.escape(sec.name)
            for f in sec.flags { s += "<span class=\"flag\">" + ReportText.escape(f) + "</span>" }
            s += "</h2><p class=\"meta\">" + ReportText.escape(sec.model)
            if sec.name != sec.address { s += " · " + ReportText.escape(sec.address) }
            s += " · last seen " + ReportText.localDateTime(micros: sec.lastSeenMicros, local: local)
            if let b = sec.batteryPercent { s += " · battery " + ReportText.number(b, maxDecimals: 0) + " %" }
            s += "</p>\n"
            if sec.quantities.isEmpty {
                s += "<p class=\"empty\">No readings stored in the last year.</p>"
            }
            for (display, charts) in sec.quantities {
                s += "<h3>" + ReportText.escape(display.name) + (display.unit.isEmpty ? "" : " (" + display.unit + ")")
                s += "</h3><div class=\"charts\">\n"
                for c in charts { s += SVGChart.render(c, local: local, standalone: false) + "\n" }
                s += "</div>\n"
            }
            s += "</section>\n"
        }
        s += "</main></body></html>\n"
        return s
    }

    /// An element id from an address: `s-a4c138bc0701`.
    static func anchor(_ address: String) -> String {
        "s-" + String(address.lowercased().unicodeScalars.filter { ("0"..."9").contains($0) || ("a"..."z").contains($0) })
    }
}
