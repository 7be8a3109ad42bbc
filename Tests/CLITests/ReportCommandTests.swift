import AdvScanner
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `report --html` and `chart --svg` through the real binary, on a database replayed from the demo
/// week (`DemoCapture`); the page's drawing is checked in a browser by `ReportBrowserTests`.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct ReportCommandTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/captures/demo-week.btsnoop")

    /// The demo database: the committed capture replayed (so the README's command is what is tested).
    static func demoDatabase(_ dir: TempDir) throws -> String {
        let db = dir.file("demo.db")
        let out = try CLI.run(["replay", fixture.path, "--db", db])
        try #require(out.status == 0, "replay failed: \(out.stderr)")
        return db
    }

    @Test("fixtures/captures/demo-week.btsnoop is what DemoCapture builds (REGENERATE_FIXTURES=1 rewrites it)")
    func demoCaptureIsCurrent() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let built = dir.file("demo.btsnoop")
        try DemoCapture().write(to: built)
        if ProcessInfo.processInfo.environment["REGENERATE_FIXTURES"] == "1" {
            try? FileManager.default.removeItem(at: Self.fixture)
            try FileManager.default.copyItem(atPath: built, toPath: Self.fixture.path)
        }
        let committed = try Data(contentsOf: Self.fixture)
        #expect(committed == (try Data(contentsOf: URL(fileURLWithPath: built))), "demo-week.btsnoop is stale: regenerate it")
        #expect(committed.count < 1 << 20)
    }

    @Test func theReportNamesBothSensorsWithTheirChartsAndFlags() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try Self.demoDatabase(dir)
        #expect(try CLI.run(["sensors", "alias", "A4:C1:38:BC:07:01", "Garden <shed>", "--db", db]).status == 0)
        let out = try CLI.run(["report", "--html", "-", "--db", db], environment: ["TZ": "UTC"])
        #expect(out.status == 0, "\(out.stderr)")
        let page = out.stdout
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("<h2>Garden &lt;shed&gt;<span class=\"flag\">stale</span></h2>"))
        #expect(page.contains("data-sensor=\"A4:C1:38:11:22:33\""))
        // A week of data: a day and a week chart of each quantity, nothing longer.
        for q in ["temperature_c", "humidity_pct", "battery_pct"] {
            for sensor in ["A4:C1:38:BC:07:01", "A4:C1:38:11:22:33"] {
                for range in ["day", "week"] {
                    #expect(page.contains("data-sensor=\"\(sensor)\" data-quantity=\"\(q)\" data-range=\"\(range)\""), "\(sensor) \(q) \(range)")
                }
                #expect(!page.contains("data-sensor=\"\(sensor)\" data-quantity=\"\(q)\" data-range=\"month\""))
            }
        }
        // The charts end at the capture's last hour; its last temperature is in the title.
        #expect(page.contains("newest reading 2026-11-29 23:55"))
        let last = DemoCapture().samples.last { $0.address == DemoCapture.minew }!
        #expect(page.contains("<tspan class=\"latest\">\(Self.text(last.temperature)) °C</tspan>"))
        // Nothing fetched from elsewhere, no script needed.
        #expect(!page.contains("http") && !page.contains("<script") && !page.contains("src="))
    }

    static func text(_ v: Double) -> String {
        var s = String(format: "%.2f", v)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    @Test func theFileIsReplacedAtomicallyAndFahrenheitShowsDegreesF() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try Self.demoDatabase(dir)
        let page = dir.file("report.html")
        try "old".write(toFile: page, atomically: false, encoding: .utf8)
        let out = try CLI.run(["report", "--html", page, "--unit", "F", "--db", db])
        #expect(out.status == 0 && out.stdout.isEmpty, "\(out.stderr)")
        let text = try String(contentsOfFile: page, encoding: .utf8)
        #expect(text.hasPrefix("<!DOCTYPE html>") && text.hasSuffix("</html>\n"))
        #expect(text.contains("Temperature (°F)") && !text.contains("°C"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp") }.isEmpty)
    }

    @Test func sinceLeavesOutEarlierData() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try Self.demoDatabase(dir)
        let out = try CLI.run(["report", "--html", "-", "--since", "2026-11-29T12:00Z", "--db", db])
        #expect(out.status == 0)
        // The week chart now starts at --since: its first time tick is Mon 30 00:00 at the earliest.
        #expect(!out.stdout.contains("data-time=\"2026-11-28"))
    }

    @Test func anEmptyDatabaseGivesAPageThatSaysSo() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("empty.db")
        let empty = dir.file("empty.btsnoop")
        try CaptureWriter(path: empty).close()
        #expect(try CLI.run(["replay", empty, "--db", db]).status == 0)
        let out = try CLI.run(["report", "--html", "-", "--db", db])
        #expect(out.status == 0)
        #expect(out.stdout.contains("No readings are stored yet"))
    }

    static let badInput: [([String], Int32)] = [
        (["report"], 64), (["report", "--html", "-", "--unit", "K"], 64),
        (["report", "--html", "-", "--since", "yesterday"], 64),
        (["report", "--html", "-", "--sensor", "nobody"], 64), (["report", "--html", "-", "--stale", "x"], 64),
        (["chart", "A4:C1:38:BC:07:01"], 64), (["chart", "--svg"], 64),
        (["chart", "--svg", "A4:C1:38:BC:07:01", "--range", "decade"], 64),
        (["chart", "--svg", "A4:C1:38:BC:07:01", "--quantity", "temprature_c"], 64),
        (["chart", "--svg", "nobody"], 64),
        (["report", "--html", "/nonexistent-dir/r.html"], 73),
    ]

    @Test(arguments: badInput)
    func badInputIsOneLineAndASysexitsCode(args: [String], code: Int32) throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try Self.demoDatabase(dir)
        let out = try CLI.run(args + ["--db", db])
        #expect(out.status == code, "\(args): \(out.stderr)")
        #expect(out.stderr.hasPrefix("Error: "))
        #expect(out.stderr.split(separator: "\n").count <= 2)  // the message, and the usage line for usage errors
        #expect(out.stdout.isEmpty)
    }

    @Test func noDatabaseIsNoInput() throws {
        let out = try CLI.run(["report", "--html", "-", "--db", "/nonexistent/readings.db"])
        #expect(out.status == 66)
        #expect(try CLI.run(["chart", "--svg", "x", "--db", "/nonexistent/readings.db"]).status == 66)
    }
}
