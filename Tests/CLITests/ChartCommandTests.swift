import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `chart --svg` through the real binary, on the demo week (bad arguments: `ReportCommandTests`).
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct ChartCommandTests {
    @Test func chartPrintsOneStandaloneSVG() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = try ReportCommandTests.demoDatabase(dir)
        let out = try CLI.run(["chart", "--svg", "A4:C1:38:BC:07:01", "--range", "week", "--quantity", "humidity_pct", "--db", db])
        #expect(out.status == 0, "\(out.stderr)")
        let svg = out.stdout
        #expect(svg.hasPrefix("<svg class=\"chart q-humidity\" viewBox=\"0 0 480 200\" width=\"480\" height=\"200\" xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("A4:C1:38:BC:07:01 · Humidity · last 7 days · <tspan class=\"latest\">65 %</tspan>"))
        // A well-formed XML document, as an <img> or a file viewer needs.
        let parsed = XMLParser(data: Data(svg.utf8))
        #expect(parsed.parse(), "\(parsed.parserError.map { "\($0)" } ?? "")")
        // The gap of the week: one break in the hourly line.
        let mean = try #require(svg.firstMatch(of: /class="mean" d="([^"]*)"/)).1
        #expect(mean.filter { $0 == "M" }.count == 2)
    }
}
