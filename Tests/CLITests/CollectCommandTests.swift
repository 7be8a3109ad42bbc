import Foundation
import Testing

@testable import blesensor_log

/// `collect`: three loggers publish one capture to one broker; the hub stores one row per sensor
/// and interval, with the values every logger stored.
@Suite(.enabled(if: MQTTBroker.isAvailable && CLI.isBuilt, "needs mosquitto, mosquitto-clients and a built blesensor-log"))
struct CollectCommandTests {
    @Test func threeLoggersAndOneHubGiveOneDeduplicatedDatabase() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let broker = MQTTBroker(dir: dir.path)
        try broker.start()
        let hubDB = dir.file("hub.db")
        let hub = try MQTTPublisherTests.Background(["collect", "--mqtt", broker.url, "--db", hubDB, "--receiver", "hub", "-v"], dir: dir)
        Thread.sleep(forTimeInterval: 1)
        // A stranger's payloads on the same topics are skipped, not stored, and do not stop the hub.
        for junk in ["not json", "{\"address\":\"zz\"}", "{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"2026-11-23T00:00:00Z\"}", "[1,2]"] {
            try Child("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "blesensor/x/y", "-q", "1", "-m", junk])
                .wait()
        }
        for pi in ["pi1", "pi2", "pi3"] {
            let out = try CLI.run(["replay", MQTTPublisherTests.demo, "--db", dir.file("\(pi).db"), "--mqtt", broker.url, "--receiver", pi])
            #expect(out.status == 0, "\(out.stderr)")
        }
        let one = try MQTTPublisherTests.exported(dir.file("pi1.db"))
        // The broker may still be delivering when the replays end (a loaded machine): wait until
        // the hub has taken every row of the three loggers (-v logs each), then stop it; a clean
        // stop commits its open batch and intervals.
        let deadline = Date().addingTimeInterval(60)
        func taken() -> Int { hub.stderr.split(separator: "\n").filter { $0.contains("\"address\":") }.count }
        while taken() < 3 * one.count, Date() < deadline { Thread.sleep(forTimeInterval: 0.5) }
        #expect(hub.terminate() == 0, "\(hub.stderr)")
        #expect(hub.stderr.contains("4 payloads that were not rows skipped"), "\(hub.stderr)")
        let stored = try MQTTPublisherTests.exported(hubDB)
        #expect(stored.count == one.count, "hub \(stored.count) rows, one logger \(one.count)")
        var differ: [String] = []
        for (key, row) in one {
            guard let h = stored[key] else {
                differ.append("\(key): missing")
                continue
            }
            for (k, v) in row where !["alias", "samples"].contains(k) {
                if let a = v as? Double, let b = h[k] as? Double, abs(a - b) < 1e-9 { continue }
                if "\(v)" != "\(h[k] ?? "absent")" { differ.append("\(key) \(k): \(v) vs \(h[k] ?? "absent")") }
            }
        }
        #expect(differ.isEmpty, "\(differ.prefix(5))")
    }

    @Test func payloadsThatAreNotRowsAreRefused() {
        #expect(MQTTStateRow.reading(Array("{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"2026-11-23T00:00:00Z\",\"temperature_c\":-4.5,\"battery_pct\":100,\"rssi_dbm\":-60}".utf8))?
            .measurements.map(\.quantity.key).sorted() == ["battery_pct", "temperature_c"])
        for bad in ["", "{", "{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"2026-11-23T00:00:00Z\"}",
            "{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"2026-11-23T00:00:00Z\",\"Bad Key\":1}",
            "{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"yesterday\",\"temperature_c\":1}",
            "{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"2026-11-23T00:00:00Z\",\"temperature_c\":1e999}",
            "{\"a\":{\"nested\":1}}", "{\"address\":\"A4:C1:38:BC:07:01\"} trailing"]
        {
            #expect(MQTTStateRow.reading(Array(bad.utf8)) == nil, "\(bad)")
        }
        #expect(FlatJSON.object(Array("{\"s\":\"a\\\"b\\u00e9\\n\",\"n\":null}".utf8))?.first?.1 == .string("a\"bé\n"))
    }
}
