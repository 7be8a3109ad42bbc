import Foundation
import Testing

@testable import blesensor_log

/// `export --influx` (InfluxLine.swift): the protocol's escaping, and every stored row as a point.
@Suite struct InfluxLineTests {
    @Test func separatorsAreEscapedWhereTheProtocolSaysSo() {
        #expect(InfluxLine.escape("pvvx firmware,x=1", measurement: true) == "pvvx\\ firmware\\,x=1")
        #expect(InfluxLine.escape("kitchen, left=1", measurement: false) == "kitchen\\,\\ left\\=1")
        #expect(InfluxLine.escape("a\nb", measurement: false) == "a\\ b")
        #expect(InfluxLine.escape("ends\\", measurement: false) == "ends\\\\")
        #expect(InfluxLine.escape("µ°C", measurement: false) == "µ°C")
    }

    @Test(.enabled(if: CLI.isBuilt)) func everyStoredRowIsAPointWithItsValues() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("a.db")
        let demo = MQTTPublisherTests.demo
        #expect(try CLI.run(["replay", demo, "--db", db]).status == 0)
        #expect(try CLI.run(["sensors", "alias", "A4:C1:38:11:22:33", "living room, north", "--db", db]).status == 0)
        let rows = CLI.jsonObjects(try CLI.run(["export", "--jsonl", "--db", db]))
        let influx = try CLI.run(["export", "--influx", "--db", db])
        #expect(influx.status == 0, "\(influx.stderr)")
        #expect(influx.lines.count == rows.count)
        let first = try #require(influx.lines.first { $0.contains("alias=") })
        #expect(first.hasPrefix("pvvx\\ firmware,address=A4:C1:38:11:22:33,alias=living\\ room\\,\\ north,model=pvvx\\ firmware "), "\(first)")
        let row = try #require(rows.first { $0["alias"] as? String == "living room, north" })
        let parts = first.split(separator: " ").suffix(2)
        let time = Int64(parts.last!)!
        #expect(time == Int64(ISO8601DateFormatter().date(from: row["time"] as! String)!.timeIntervalSince1970) * 1_000_000_000)
        var fields: [String: String] = [:]
        for f in parts.first!.split(separator: ",") {
            let kv = f.split(separator: "=", maxSplits: 1)
            fields[String(kv[0])] = String(kv[1])
        }
        #expect(fields["battery_pct"] == "\(row["battery_pct"] as! Int)i")
        #expect(fields["samples"] == "\(row["samples"] as! Int)i")
        #expect(Double(fields["temperature_c"]!) == row["temperature_c"] as? Double)
        #expect(Double(fields["humidity_pct"]!) == row["humidity_pct"] as? Double)
        #expect(try CLI.run(["export", "--influx", "--csv", "--db", db]).status == 64)
    }
}
