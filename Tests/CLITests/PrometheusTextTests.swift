import Foundation
import Testing

@testable import blesensor_log

/// `export --prometheus` (PrometheusText.swift).
@Suite struct PrometheusTextTests {
    @Test func labelValuesAreEscapedAsTheFormatSays() {
        #expect(PrometheusText.escape("a\\b\"c\nd") == "a\\\\b\\\"c\\nd")
    }

    @Test(.enabled(if: CLI.isBuilt)) func eachSensorsLastValuesAndLastSeen() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("a.db")
        #expect(try CLI.run(["replay", MQTTPublisherTests.demo, "--db", db]).status == 0)
        #expect(try CLI.run(["sensors", "alias", "A4:C1:38:11:22:33", "say \"hi\"", "--db", db]).status == 0)
        let out = try CLI.run(["export", "--prometheus", "--db", db])
        #expect(out.status == 0, "\(out.stderr)")
        let lines = out.lines
        // One HELP and TYPE per metric, before its samples, never repeated.
        let types = lines.filter { $0.hasPrefix("# TYPE ") }
        #expect(Set(types).count == types.count && types.contains("# TYPE blesensor_temperature_c gauge"))
        var seen: Set<String> = []
        for l in lines where !l.hasPrefix("#") {
            let metric = String(l.prefix { $0 != "{" })
            #expect(types.contains("# TYPE \(metric) gauge"), "\(l)")
            seen.insert(metric)
        }
        #expect(seen.contains("blesensor_last_seen_seconds"))
        // The last stored row of each sensor gives its gauges.
        let rows = CLI.jsonObjects(try CLI.run(["export", "--jsonl", "--db", db]))
        for address in ["A4:C1:38:11:22:33", "A4:C1:38:BC:07:01"] {
            let last = try #require(rows.last { $0["address"] as? String == address })
            let line = try #require(lines.first { $0.hasPrefix("blesensor_temperature_c{address=\"\(address)\"") })
            #expect(Double(line.split(separator: " ").last!) == last["temperature_c"] as? Double, "\(line)")
        }
        #expect(lines.contains { $0.contains("alias=\"say \\\"hi\\\"\"") })
    }
}
