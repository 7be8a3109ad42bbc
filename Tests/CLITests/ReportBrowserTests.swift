import Foundation
import Testing

/// `report --html` rendered by a real browser (Debian's chromium, headless; `scripts/setup-deps`
/// installs it): the page loads without console errors, its screenshot is a picture (light and
/// dark), it fits a phone's width, and the SVG that Chromium parsed puts each point of the demo
/// week (`DemoCapture`: a sine, a step, a negative stretch, a 6-hour gap) where its value and
/// time say, read against the axes' own ticks.
@Suite(
    .enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"),
    .enabled(if: Chromium.path != nil, "chromium is not installed (scripts/setup-deps installs it): browser tests skipped"),
    .serialized)
struct ReportBrowserTests {
    /// India's offset, written as a POSIX rule (no tz database needed): local midnight is 18:30 UTC,
    /// so the time ticks cannot be right by accident of being whole UTC hours.
    static let zone = "IST-5:30"
    static let offset: Int64 = 19800
    let demo = DemoCapture()

    /// The report of the replayed demo week, as a file.
    func report(_ dir: TempDir) throws -> String {
        let db = try ReportCommandTests.demoDatabase(dir)
        let page = dir.file("report.html")
        let out = try CLI.run(["report", "--html", page, "--db", db], environment: ["TZ": Self.zone])
        try #require(out.status == 0, "report failed: \(out.stderr)")
        return page
    }

    @Test func thePageLoadsWithoutConsoleErrorsAndItsScreenshotsArePictures() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let page = try report(dir)
        let dom = try Chromium.run(["--dump-dom", "file://" + page])
        #expect(dom.status == 0)
        let console = dom.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }
        #expect(console.isEmpty, "console messages: \(console)")
        #expect(dom.stdout.contains("<svg class=\"chart q-temperature\""))

        for (scheme, flags) in [("light", [String]()), ("dark", ["--force-dark-mode"])] {
            let png = dir.file("report-\(scheme).png")
            let shot = try Chromium.run(flags + ["--hide-scrollbars", "--window-size=1200,1800", "--screenshot=" + png, "file://" + page])
            try #require(shot.status == 0 && FileManager.default.fileExists(atPath: png), "no screenshot: \(shot.stderr)")
            let stats = try PNGStats.of(png)
            // A blank or single-colour page has a handful of colours; charts with anti-aliased lines
            // and bands have hundreds, and their lines cover a fair share of the pixels.
            #expect(stats.colours > 200, "\(scheme): \(stats)")
            #expect(stats.notBackground > 0.05, "\(scheme): \(stats)")
            if scheme == "dark" { #expect(stats.backgroundLuma < 60, "\(stats)") } else { #expect(stats.backgroundLuma > 200, "\(stats)") }
            if let keep = ProcessInfo.processInfo.environment["REPORT_SCREENSHOT_DIR"] {
                try? FileManager.default.removeItem(atPath: keep + "/report-\(scheme).png")
                try FileManager.default.copyItem(atPath: png, toPath: keep + "/report-\(scheme).png")
            }
        }
    }

    @Test func itFitsAPhoneScreen() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let page = try report(dir)
        // A test page (not part of the report) that measures the report inside a 360-pixel frame.
        let harness = dir.file("harness.html")
        try """
            <!DOCTYPE html><html><body><iframe id="f" src="report.html" style="width:360px;height:640px;border:0"></iframe>
            <script>f.onload = () => { const d = f.contentDocument.documentElement;
              const svgs = [...d.querySelectorAll('svg.chart')].map(s => s.getBoundingClientRect());
              document.body.dataset.result = JSON.stringify({scroll: d.scrollWidth, client: d.clientWidth,
                svgs: svgs.length, widest: Math.max(...svgs.map(r => r.right)), narrowest: Math.min(...svgs.map(r => r.width))}); };
            </script></body></html>
            """.write(toFile: harness, atomically: true, encoding: .utf8)
        _ = page
        let out = try Chromium.run(["--allow-file-access-from-files", "--dump-dom", "file://" + harness])
        let json = try #require(out.stdout.firstMatch(of: #/data-result="([^"]*)"/#)?.1, "no measurement: \(out.stderr)")
        let r = try JSONSerialization.jsonObject(with: Data(String(json).replacingOccurrences(of: "&quot;", with: "\"").utf8)) as! [String: Any]
        func number(_ key: String) -> Double { (r[key] as? NSNumber)?.doubleValue ?? .nan }
        let client = number("client")
        #expect(number("scroll") <= client, "the page scrolls sideways on a phone: \(r)")
        #expect(number("svgs") >= 8)
        #expect(number("widest") <= client, "a chart is wider than the phone: \(r)")
        #expect(number("narrowest") >= 0.75 * client, "charts do not take the phone's width: \(r)")
    }

    @Test func pointsSitWhereTheirValuesAndTimesSayAndTheGapIsNotBridged() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let page = try report(dir)
        let dom = try Chromium.run(["--dump-dom", "file://" + page]).stdout
        for (address, gap) in [(DemoCapture.minew, true), (DemoCapture.pvvx, false)] {
            for (key, path) in [("temperature_c", \DemoCapture.Sample.temperature), ("humidity_pct", \DemoCapture.Sample.humidity)] {
                let chart = try DrawnChart(dom, sensor: address.description, quantity: key, range: "week")
                let expected = demo.hourlyMeans(address, path)
                try check(chart, expected: expected, gap: gap, what: "\(address) \(key)")
            }
        }
        // The negative stretch lies below the zero line, the cold day's means at their values.
        let cold = try DrawnChart(dom, sensor: DemoCapture.minew.description, quantity: "temperature_c", range: "week")
        let coldest = cold.meanPoints.flatMap { $0 }.max { $0.y < $1.y }!
        #expect(cold.value(atY: coldest.y) < -10)
        #expect(coldest.y > cold.y(forValue: 0))
        // The step: humidity is 40 % before it and 65 % from it on.
        let step = try DrawnChart(dom, sensor: DemoCapture.minew.description, quantity: "humidity_pct", range: "week")
        for p in step.meanPoints.flatMap({ $0 }) {
            let t = step.time(atX: p.x)
            #expect(abs(step.value(atY: p.y) - (t < DemoCapture.humidityStep ? 40 : 65)) < 0.1)
        }
    }

    func check(_ chart: DrawnChart, expected: [Int64: (mean: Double, min: Double, max: Double)], gap: Bool, what: String) throws {
        // Time ticks are at local midnights and say the local weekday and date.
        #expect(chart.timeTicks.count >= 6, "\(what)")
        for t in chart.timeTicks {
            #expect((t.micros / 1_000_000 + Self.offset) % 86400 == 0, "\(what): tick \(t)")
            if let label = t.label { #expect(label == Self.localDayLabel(t.micros), "\(what)") }
        }
        let hoursInWindow = expected.keys.filter { chart.hourWindow.contains($0) }.sorted()
        let points = chart.meanPoints.flatMap { $0 }
        #expect(points.count == hoursInWindow.count, "\(what): \(points.count) points for \(hoursInWindow.count) hours")
        // Each point at its hour's middle and its hour's mean, to the drawing's rounding.
        for (p, hour) in zip(points, hoursInWindow) {
            let mid = hour * DemoCapture.hour + DemoCapture.hour / 2
            #expect(abs(p.x - chart.x(forMicros: mid)) < 0.11, "\(what): hour \(hour) at x \(p.x)")
            #expect(abs(p.y - chart.y(forValue: expected[hour]!.mean)) < 0.11, "\(what): hour \(hour) at y \(p.y)")
        }
        // No segment of the line spans more than one hour: the gap is not bridged.
        let hourWidth = chart.x(forMicros: DemoCapture.hour) - chart.x(forMicros: 0)
        for run in chart.meanPoints {
            for (a, b) in zip(run, run.dropFirst()) { #expect(b.x - a.x < hourWidth + 0.11, "\(what): a line from \(a) to \(b)") }
        }
        #expect(chart.meanPoints.count == (gap ? 2 : 1), "\(what): \(chart.meanPoints.count) runs")
        if gap {
            let before = chart.meanPoints[0].last!, after = chart.meanPoints[1].first!
            #expect(chart.time(atX: before.x) < DemoCapture.gap.lowerBound)
            #expect(chart.time(atX: after.x) > DemoCapture.gap.upperBound)
            #expect(abs(after.x - before.x - 7 * hourWidth) < 0.11, "\(what): the break spans the 6 empty hours")
        }
        // The band: one closed run per line run, its upper edge on the maxima and lower on the
        // minima, enclosing the mean at every point.
        #expect(chart.bandRuns.count == chart.meanPoints.count)
        for (band, line) in zip(chart.bandRuns, chart.meanPoints) {
            try #require(band.count == 2 * line.count, "\(what): band of \(band.count) points for \(line.count)")
            let upper = band.prefix(line.count), lower = band.suffix(line.count).reversed()
            for (i, (u, l)) in zip(upper, lower).enumerated() {
                let m = line[i]
                #expect(u.x == m.x && l.x == m.x)
                #expect(u.y <= m.y + 1e-9 && m.y <= l.y + 1e-9, "\(what): band \(u.y)…\(l.y) around \(m.y)")
                let hour = chart.time(atX: m.x) / DemoCapture.hour
                if let e = expected[hour] {
                    #expect(abs(u.y - chart.y(forValue: e.max)) < 0.11 && abs(l.y - chart.y(forValue: e.min)) < 0.11, "\(what)")
                }
            }
        }
    }

    static func localDayLabel(_ micros: Int64) -> String {
        let days = (micros / 1_000_000 + offset) / 86400
        let date = Date(timeIntervalSince1970: Double(days * 86400))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let weekday = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][calendar.component(.weekday, from: date) - 1]
        return "\(weekday) \(calendar.component(.day, from: date))"
    }
}

/// One chart as the browser's DOM has it: its ticks (value and time, with their positions) and
/// the points of its mean line and band, subpath by subpath.
struct DrawnChart {
    struct Point: CustomStringConvertible {
        var x: Double
        var y: Double
        var description: String { "(\(x), \(y))" }
    }

    var valueTicks: [(value: Double, y: Double)] = []
    var timeTicks: [(micros: Int64, x: Double, label: String?)] = []
    var meanPoints: [[Point]] = []
    var bandRuns: [[Point]] = []
    /// Hours the chart spans, from its first to its last tick's neighbourhood (the window the
    /// report drew: the x scale read back at the plot's edges).
    var hourWindow: Range<Int64> = 0..<0

    init(_ dom: String, sensor: String, quantity: String, range: String) throws {
        let head = "data-sensor=\"\(sensor)\" data-quantity=\"\(quantity)\" data-range=\"\(range)\">"
        let start = try #require(dom.range(of: head), "no \(range) chart of \(quantity) for \(sensor)")
        let svg = String(dom[start.upperBound..<dom[start.upperBound...].range(of: "</svg>")!.lowerBound])
        for m in svg.matches(of: #/<g class="ytick" data-value="([-0-9.]+)"><line x1="[-0-9.]+" x2="[-0-9.]+" y1="([-0-9.]+)"/#) {
            valueTicks.append((Double(m.1)!, Double(m.2)!))
        }
        for m in svg.matches(of: #/<g class="xtick" data-time="([^"]+)"><line x1="([-0-9.]+)"[^>]*><\/line>(?:<text[^>]*>([^<]*)<\/text>)?/#) {
            let t = ISO8601DateFormatter().date(from: String(m.1))!
            timeTicks.append((Int64(t.timeIntervalSince1970) * 1_000_000, Double(m.2)!, m.3.map(String.init)))
        }
        try #require(valueTicks.count >= 2 && timeTicks.count >= 2, "\(quantity): too few ticks to read the scales")
        if let d = svg.firstMatch(of: #/class="mean" d="([^"]*)"/#)?.1 { meanPoints = Self.subpaths(String(d)) }
        if let d = svg.firstMatch(of: #/class="band" d="([^"]*)"/#)?.1 { bandRuns = Self.subpaths(String(d)) }
        let left = time(atX: SVGPlot.left), right = time(atX: SVGPlot.right)
        hourWindow = Int64((Double(left) / 3_600_000_000).rounded())..<Int64((Double(right) / 3_600_000_000).rounded())
    }

    /// `M x y L x y … [Z]` into its subpaths' points.
    static func subpaths(_ d: String) -> [[Point]] {
        d.split(separator: "M").map { run in
            run.replacingOccurrences(of: "Z", with: "").split(separator: "L").map { pair in
                let xy = pair.split(separator: " ").map { Double($0)! }
                return Point(x: xy[0], y: xy[1])
            }
        }
    }

    // The scales, read back from the first and last tick of each axis.
    func y(forValue v: Double) -> Double {
        let (a, b) = (valueTicks.first!, valueTicks.last!)
        return a.y + (v - a.value) / (b.value - a.value) * (b.y - a.y)
    }
    func value(atY y: Double) -> Double {
        let (a, b) = (valueTicks.first!, valueTicks.last!)
        return a.value + (y - a.y) / (b.y - a.y) * (b.value - a.value)
    }
    func x(forMicros t: Int64) -> Double {
        let (a, b) = (timeTicks.first!, timeTicks.last!)
        return a.x + Double(t - a.micros) / Double(b.micros - a.micros) * (b.x - a.x)
    }
    func time(atX x: Double) -> Int64 {
        let (a, b) = (timeTicks.first!, timeTicks.last!)
        return a.micros + Int64(((x - a.x) / (b.x - a.x) * Double(b.micros - a.micros)).rounded())
    }
}

/// The plot area's edges in the chart's viewBox (SVGChart's layout).
enum SVGPlot {
    static let left = 44.0
    static let right = 472.0
}

/// Runs Debian's chromium headless.
enum Chromium {
    static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static func run(_ args: [String]) throws -> CLI.Output {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path!)
        // A profile of its own per run, no sandbox (tests run as root in containers), logs on stderr.
        let profile = NSTemporaryDirectory() + "chromium-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: profile) }
        p.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile,
                       "--enable-logging=stderr", "--v=0", "--no-first-run", "--timeout=20000"] + args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        p.waitUntilExit()
        group.wait()
        return CLI.Output(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                          stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// Colour statistics of a PNG, decoded by Python's zlib (stdlib only).
struct PNGStats: CustomStringConvertible {
    var colours: Int
    /// The share of pixels that differ from the most common colour (the background).
    var notBackground: Double
    var backgroundLuma: Double
    var description: String { "\(colours) colours, \(Int(notBackground * 100)) % not background, background luma \(Int(backgroundLuma))" }

    static let script = #"""
        import struct, sys, zlib, collections
        data = open(sys.argv[1], 'rb').read()
        pos, idat, w, h, ctype = 8, b'', 0, 0, 0
        while pos < len(data):
            n, kind = struct.unpack('>I4s', data[pos:pos + 8]); body = data[pos + 8:pos + 8 + n]; pos += 12 + n
            if kind == b'IHDR': w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
            elif kind == b'IDAT': idat += body
        bpp = {2: 3, 6: 4}[ctype]; raw = zlib.decompress(idat); stride = w * bpp
        prev, counts = bytearray(stride), collections.Counter()
        for y in range(h):
            f = raw[y * (stride + 1)]; line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
                if f == 1: line[i] = (line[i] + a) & 255
                elif f == 2: line[i] = (line[i] + b) & 255
                elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
                elif f == 4:
                    p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            counts.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp)); prev = line
        bg, n = counts.most_common(1)[0]
        print(len(counts), 1 - n / (w * h), 0.299 * bg[0] + 0.587 * bg[1] + 0.114 * bg[2])
        """#

    static func of(_ path: String) throws -> PNGStats {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script, path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let f = String(decoding: data, as: UTF8.self).split(separator: " ").map { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
        try #require(p.terminationStatus == 0 && f.count == 3, "could not decode \(path)")
        return PNGStats(colours: Int(f[0]), notBackground: f[1], backgroundLuma: f[2])
    }
}
