import Foundation
import Testing

@testable import blesensor_log

/// `collect`: three loggers publish one capture to one broker; the hub stores one row per sensor
/// and interval, with the values every logger stored.
@Suite(.enabled(if: MQTTBroker.isAvailable && CLI.isBuilt, "needs mosquitto, mosquitto-clients and a built blesensor-log"))
struct CollectCommandTests {
    /// The hub's MQTT client id, as `collect --receiver hub` names it.
    static let hubClient = "blesensor-log-collect-hub"

    @Test func threeLoggersAndOneHubGiveOneDeduplicatedDatabase() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let broker = MQTTBroker(dir: dir.path)
        try broker.start()
        let hubDB = dir.file("hub.db")
        let hub = try MQTTPublisherTests.Background(["collect", "--mqtt", broker.url, "--db", hubDB, "--receiver", "hub", "-v"], dir: dir)
        broker.awaitSubscription(by: Self.hubClient, to: "blesensor/+/+")
        // A stranger's payloads on the same topics are skipped, not stored, and do not stop the hub.
        for junk in ["not json", "{\"address\":\"zz\"}", "{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"2026-11-23T00:00:00Z\"}", "[1,2]"] {
            try Child(MQTTBroker.pub, ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "blesensor/x/y", "-q", "1", "-m", junk])
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

    /// MQTT 5 end to end: a logger publishes state, discovery and availability, and the hub's
    /// session outlives its connection (MQTT 5 needs a session expiry interval for that), so
    /// what the logger published while the hub was away is stored once it is back.
    @Test func overMQTT5AHubTakesWhatCameWhileItWasAway() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let broker = MQTTBroker(dir: dir.path)
        try broker.start()
        let hubDB = dir.file("hub.db")
        let hubArgs = ["collect", "--mqtt", broker.url, "--db", hubDB, "--receiver", "hub", "--mqtt-protocol", "5", "-v"]
        // The hub's first visit makes its session and subscription; then it goes away.
        let first = try MQTTPublisherTests.Background(hubArgs, dir: dir)
        broker.awaitSubscription(by: Self.hubClient, to: "blesensor/+/+")
        #expect(broker.log.contains("as \(Self.hubClient) (p5, c0"), "a persistent session: \(broker.log.suffix(1500))")
        #expect(first.terminate() == 0, "\(first.stderr)")
        let sub = try MQTTBroker.Subscriber(broker: broker, topics: ["blesensor/#"])
        let db = dir.file("pi5.db")
        let out = try CLI.run(["replay", MQTTPublisherTests.demo, "--db", db, "--mqtt", broker.url, "--receiver", "pi5", "--mqtt-protocol", "5"])
        #expect(out.status == 0, "\(out.stderr)")
        let stored = try MQTTPublisherTests.exported(db)
        let messages = sub.wait(seconds: 20) { MQTTPublisherTests.states($0, base: "blesensor/pi5").count >= stored.count }
        MQTTPublisherTests.expectStatesMatch(stored, MQTTPublisherTests.states(messages, base: "blesensor/pi5"), receiver: "pi5")
        #expect(try broker.retained("blesensor/pi5/status").map(\.payload) == ["offline"])
        #expect(!(try broker.retained("homeassistant/#")).isEmpty)
        sub.stop()
        #expect(broker.log.contains("as blesensor-log-pi5 (p5,"), "\(broker.log.suffix(1500))")
        // Back: the broker hands over the rows it kept for the hub's session.
        let hub = try MQTTPublisherTests.Background(hubArgs, dir: dir)
        let until = Date().addingTimeInterval(60)
        func taken() -> Int { hub.stderr.split(separator: "\n").filter { $0.contains("\"address\":") }.count }
        while taken() < stored.count, Date() < until { Thread.sleep(forTimeInterval: 0.5) }
        #expect(hub.terminate() == 0, "\(hub.stderr)")
        let collected = try MQTTPublisherTests.exported(hubDB)
        #expect(Set(collected.keys) == Set(stored.keys), "hub \(collected.count) rows, logger \(stored.count)")
        #expect(collected.values.allSatisfy { $0["receiver"] as? String == "pi5" })
    }

    /// One hub session: `publish` while it runs, then a clean stop once it took `expected` rows;
    /// returns what the hub logged.
    @discardableResult
    static func hubSession(
        _ broker: MQTTBroker, db: String, dir: TempDir, expected: Int, publish: () throws -> Void
    ) throws -> String {
        let subscribed = broker.subscriptions(by: hubClient, to: "blesensor/+/+")
        let hub = try MQTTPublisherTests.Background(["collect", "--mqtt", broker.url, "--db", db, "--receiver", "hub", "-v"], dir: dir)
        broker.awaitSubscription(by: hubClient, to: "blesensor/+/+", before: subscribed)
        try publish()
        let deadline = Date().addingTimeInterval(30)
        func taken() -> Int { hub.stderr.split(separator: "\n").filter { $0.contains("\"address\":") }.count }
        while taken() < expected, Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        #expect(taken() == expected, "\(hub.stderr)")
        #expect(hub.terminate() == 0, "\(hub.stderr)")
        return hub.stderr
    }

    /// `payload` on `topic`, by `mosquitto_pub`; `repeat` times in one connection.
    static func publish(_ broker: MQTTBroker, topic: String, _ payload: String, retain: Bool = false, repeat: Int = 1) throws {
        var args = ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", topic, "-q", "1", "-m", payload]
        if retain { args.append("-r") }
        if `repeat` > 1 { args += ["--repeat", "\(`repeat`)"] }
        try Child(MQTTBroker.pub, args).wait()
    }

    /// What a stranger on the broker publishes on the state topics (too long, not JSON, times
    /// without a real date or offset, terminal escapes): each payload is skipped with
    /// a warning that says why (the first 10 a minute; a flood is counted, not logged), and
    /// nothing of it is stored: no time moved to another day or zone, no model or receiver that
    /// would act on a terminal. The one real row among them is stored as it was published.
    @Test func aStrangersPayloadsAreSkippedWithTheirReasonAndNothingOfThemIsStored() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let broker = MQTTBroker(dir: dir.path)
        try broker.start()
        let db = dir.file("hub.db")
        let topic = "blesensor/pi1/A4:C1:38:00:00:01"
        func row(time: String = "2026-11-23T00:05:00Z", model: String = "TH", receiver: String = "pi1") -> String {
            "{\"time\":\"\(time)\",\"address\":\"A4:C1:38:00:00:01\",\"model\":\"\(model)\",\"temperature_c\":-4.5,"
                + "\"receiver\":\"\(receiver)\",\"rssi_dbm\":-60}"
        }
        // Present before the hub subscribes: delivered to it as retained.
        try Self.publish(broker, topic: "blesensor/evil/A4:C1:38:00:00:09", "retained garbage", retain: true)
        let hostile: [(topic: String, payload: String, reason: String)] = [
            (topic, String(repeating: " ", count: 70000), "70000 bytes, more than 65536"),
            (topic, "{\"time\":\"2026-11-23T00:05:00Z\",\"address\":\"A4:C1:3", "not JSON"),
            (topic, row(time: "2026-02-31T10:00:00Z"), "no \"time\""),
            (topic, row(time: "2026-11-23"), "no \"time\""),
            (topic, row(time: "2026-11-23T00:06:00"), "no \"time\""),
            (topic, row(model: "\\u001b]0;pwned\\u0007\\u001b[31mEVIL\\n\\u0000"), "a \"model\" no logger publishes"),
            (topic, row(receiver: "\\u001b[2Jpi\\r\\n"), "a \"receiver\" no logger publishes"),
            (topic, row(receiver: String(repeating: "r", count: 65)), "a \"receiver\" no logger publishes"),
            ("blesensor//A4:C1:38:00:00:01", row().replacingOccurrences(of: ",\"receiver\":\"pi1\"", with: ""),
                "a \"receiver\" no logger publishes"),
        ]
        let log = try Self.hubSession(broker, db: db, dir: dir, expected: 1) {
            for h in hostile { try Self.publish(broker, topic: h.topic, h.payload) }
            try Self.publish(broker, topic: "blesensor/pi1/x", "not a row either", repeat: 25)
            try Self.publish(broker, topic: topic, row())
        }
        let warnings = log.split(separator: "\n").filter { $0.contains("mqtt: skipped the payload on ") }
        #expect(warnings.count == 10, "\(log)")
        #expect(warnings.first?.hasSuffix("on blesensor/evil/A4:C1:38:00:00:09: not JSON (line 1: unexpected text "
            + "(a value is an object, array, string, number, true, false or null))") == true, "\(log)")
        for (warning, h) in zip(warnings.dropFirst(), hostile) {
            #expect(warning.contains("skipped the payload on \(h.topic): \(h.reason)"), "\(warning)")
        }
        #expect(log.split(separator: "\n").filter { $0.hasSuffix("more payloads that are not rows this minute: counted, not logged") }.count == 1, "\(log)")
        #expect(log.contains("stopped: 1 rows received, 1 stored, 35 payloads that were not rows skipped"), "\(log)")
        #expect(!log.contains("\u{1B}") && !log.contains("pwned"), "\(log)")
        let rows = try MQTTPublisherTests.exported(db)
        #expect(rows.count == 1, "\(rows)")
        let stored = rows["A4:C1:38:00:00:01 2026-11-23T00:05:00Z"]
        #expect(stored?["model"] as? String == "TH" && stored?["receiver"] as? String == "pi1", "\(rows)")
        #expect(stored?["temperature_c"] as? Double == -4.5 && stored?["rssi_dbm"] as? Int == -60, "\(rows)")
    }

    /// A row as `run --mqtt` publishes it, by `mosquitto_pub` (a real process) on its topic.
    static func publish(_ broker: MQTTBroker, receiver: String, minute: Int, rssi: Int, temperature: Double, battery: Int) throws {
        let payload = "{\"time\":\"2026-11-23T00:0\(minute):00Z\",\"address\":\"A4:C1:38:00:00:01\",\"alias\":null,"
            + "\"model\":\"TH\",\"samples\":3,\"temperature_c\":\(temperature),\"battery_pct\":\(battery),"
            + "\"receiver\":\"\(receiver)\",\"rssi_dbm\":\(rssi)}"
        try Child(
            MQTTBroker.pub,
            ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "blesensor/\(receiver)/A4:C1:38:00:00:01", "-q", "1", "-m", payload]
        ).wait()
    }

    /// Three receivers publish their copies of one sensor's rows with different RSSIs and values,
    /// the strongest first, last and in the middle, in one batch and after the weakest was
    /// committed (a hub restart between): each stored row is the strongest copy, its receiver
    /// shown by every export format.
    @Test func theStrongestReceiversCopyIsKeptWhateverTheOrder() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let broker = MQTTBroker(dir: dir.path)
        try broker.start()
        let db = dir.file("hub.db")
        // Minute 1: the weakest copy first, committed alone; the stronger (pi2) and a weaker one
        // come in the next session. Minute 2: the strongest first. Minute 3: the strongest last.
        try Self.hubSession(broker, db: db, dir: dir, expected: 4) {
            try Self.publish(broker, receiver: "pi1", minute: 1, rssi: -80, temperature: 1.5, battery: 81)
            try Self.publish(broker, receiver: "pi3", minute: 3, rssi: -75, temperature: 3.25, battery: 83)
            try Self.publish(broker, receiver: "pi2", minute: 3, rssi: -90, temperature: 3.5, battery: 82)
            try Self.publish(broker, receiver: "pi1", minute: 3, rssi: -50, temperature: 3.75, battery: 81)
        }
        try Self.hubSession(broker, db: db, dir: dir, expected: 5) {
            try Self.publish(broker, receiver: "pi2", minute: 1, rssi: -60, temperature: 1.25, battery: 82)
            try Self.publish(broker, receiver: "pi3", minute: 1, rssi: -70, temperature: 1.75, battery: 83)
            try Self.publish(broker, receiver: "pi3", minute: 2, rssi: -40, temperature: 2.5, battery: 83)
            try Self.publish(broker, receiver: "pi1", minute: 2, rssi: -45, temperature: 2.25, battery: 81)
            try Self.publish(broker, receiver: "pi2", minute: 2, rssi: -99, temperature: 2.75, battery: 82)
        }
        let rows = try MQTTPublisherTests.exported(db)
        let expected: [(minute: Int, receiver: String, rssi: Int, temperature: Double, battery: Int)] = [
            (1, "pi2", -60, 1.25, 82), (2, "pi3", -40, 2.5, 83), (3, "pi1", -50, 3.75, 81),
        ]
        #expect(rows.count == 3, "\(rows)")
        for e in expected {
            let row = rows["A4:C1:38:00:00:01 2026-11-23T00:0\(e.minute):00Z"]
            #expect(row?["receiver"] as? String == e.receiver, "minute \(e.minute): \(row ?? [:])")
            #expect(row?["rssi_dbm"] as? Int == e.rssi, "minute \(e.minute): \(row ?? [:])")
            #expect(row?["temperature_c"] as? Double == e.temperature, "minute \(e.minute): \(row ?? [:])")
            #expect(row?["battery_pct"] as? Int == e.battery, "minute \(e.minute): \(row ?? [:])")
            #expect(row?["samples"] as? Int == 3, "minute \(e.minute): \(row ?? [:])")
        }
        let csv = try CLI.run(["export", "--csv", "--db", db])
        #expect(csv.status == 0, "\(csv.stderr)")
        let lines = csv.stdout.split(separator: "\r\n").map(String.init)
        #expect(lines.first == "time,address,alias,model,receiver,battery_pct,temperature_c", "\(lines)")
        #expect(lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[4] } == ["pi2", "pi3", "pi1"], "\(lines)")
        let influx = try CLI.run(["export", "--influx", "--db", db])
        #expect(influx.status == 0, "\(influx.stderr)")
        #expect(influx.stdout.split(separator: "\n").map { $0.contains(",receiver=pi2 ") || $0.contains(",receiver=pi3 ") || $0.contains(",receiver=pi1 ") } == [true, true, true], "\(influx.stdout)")
        #expect(influx.stdout.split(separator: "\n").first?.contains(",receiver=pi2 ") == true, "\(influx.stdout)")
        // The summary of the whole hour (its rollup, invariant 4 of SensorStore.swift) agrees with
        // the rows kept: the minute-1 row was replaced after its commit.
        let summary = try CLI.run(["summary", "--db", db, "--format", "json", "--since", "2026-11-23T00:00:00Z", "--until", "2026-11-23T01:00:00Z"])
        #expect(
            summary.stdout.contains("\"temperature_c\":{\"samples\":9,\"rows\":3,\"min\":1.25,\"mean\":2.5,\"max\":3.75,"),
            "\(summary.stdout) \(summary.stderr)")
    }

    /// A hub that never reached its broker collected nothing: one line says why (not one per
    /// retry), and the run ends with 69 (EX_UNAVAILABLE), not 0, so a script or systemd sees it.
    @Test func aHubThatNeverConnectedSaysWhyOnceAndExitsUnavailable() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try Child("/usr/bin/mosquitto_passwd", ["-c", "-b", dir.file("passwd"), "u", "right"]).wait()
        let broker = MQTTBroker(dir: dir.path, listenerConfig: "allow_anonymous false\npassword_file \(dir.file("passwd"))")
        try broker.start()
        let nothing = MQTTBroker.freePort()
        let cases = [
            ("mqtt://127.0.0.1:\(nothing)", "mqtt: connect to 127.0.0.1:\(nothing): Connection refused"),
            ("mqtt://u:wrong@127.0.0.1:\(broker.port)", "mqtt: Connection Refused: not authorised."),
        ]
        for (url, reason) in cases {
            let out = try CLI.run(["collect", "--mqtt", url, "--db", dir.file("hub.db"), "--receiver", "hub", "--duration", "3s"])
            #expect(out.status == ExitCode.unavailable, "\(url): \(out.stderr)")
            let lines = out.stderr.split(separator: "\n")
            #expect(lines.filter { $0.contains(reason) }.count == 1, "\(url): \(out.stderr)")
            #expect(lines.last?.hasSuffix("stopped: never connected to \(url.replacingOccurrences(of: "u:wrong@", with: "u@")) (\(reason.dropFirst(6))); nothing collected") == true, "\(url): \(out.stderr)")
        }
        // With the right password: a normal end.
        let ok = try CLI.run(["collect", "--mqtt", "mqtt://u:right@127.0.0.1:\(broker.port)", "--db", dir.file("hub.db"), "--receiver", "hub", "--duration", "2s"])
        #expect(ok.status == 0, "\(ok.stderr)")
    }

    @Test func payloadsThatAreNotRowsAreRefused() {
        let row = try? MQTTStateRow.parse(
            Array("{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"2026-11-23T00:00:00Z\",\"temperature_c\":-4.5,\"battery_pct\":100,\"rssi_dbm\":-60,\"samples\":7}".utf8),
            topicReceiver: "pi9")
        #expect(row?.reading.measurements.map(\.quantity.key).sorted() == ["battery_pct", "temperature_c"])
        // The number's text decides the quantity's kind, as the publisher's store had it.
        #expect(row?.reading.measurements.map(\.quantity.isInteger).sorted { !$0 && $1 } == [false, true])
        #expect(row?.reading.measurements.first { $0.quantity.key == "battery_pct" }?.quantity.isInteger == true)
        #expect(row?.reading.rssi == -60 && row?.samples == 7 && row?.receiver == "pi9")
        #expect((try? MQTTStateRow.parse(Array("{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"2026-11-23T00:00:00Z\",\"t_c\":1,\"receiver\":\"pi1\"}".utf8), topicReceiver: "x"))?.receiver == "pi1")
        for bad in ["", "{", "{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"2026-11-23T00:00:00Z\"}",
            "{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"2026-11-23T00:00:00Z\",\"Bad Key\":1}",
            "{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"yesterday\",\"temperature_c\":1}",
            "{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"2026-11-23T00:00:00Z\",\"temperature_c\":1e999}",
            "{\"a\":{\"nested\":1}}", "{\"address\":\"A4:C1:38:BC:07:01\"} trailing"]
        {
            #expect((try? MQTTStateRow.parse(Array(bad.utf8), topicReceiver: "pi1")) == nil, "\(bad)")
        }
        let withoutOffset = "{\"address\":\"A4:C1:38:BC:07:01\",\"time\":\"2026-11-23T00:00:00\",\"t_c\":1}"
        #expect(throws: MQTTStateRow.Refusal.noTime) { try MQTTStateRow.parse(Array(withoutOffset.utf8), topicReceiver: "pi1") }
        #expect(throws: MQTTStateRow.Refusal.tooLarge(bytes: 65537)) { try MQTTStateRow.parse([UInt8](repeating: 0x20, count: 65537)) }
        // A stranger's key quoted in a reason is cut short: one warning line stays a line.
        let longKey = String(repeating: "k", count: 10_000)
        for payload in ["{\"\(longKey)\":1,\"\(longKey)\":2}", "{\"\(longKey)\":1}"] {
            do throws(MQTTStateRow.Refusal) {
                _ = try MQTTStateRow.parse(Array(payload.utf8))
                Issue.record("a payload without an address was taken")
            } catch {
                #expect(error.description.utf8.count < 200, "\(error.description.utf8.count) bytes")
            }
        }
        guard case .object(let members) = (try? JSONParser.parse(Array("{\"s\":\"a\\\"b\\u00e9\\n\",\"n\":null}".utf8)))?.value else {
            Issue.record("not an object")
            return
        }
        #expect(members.first?.value.value == .string("a\"bé\n"))
    }
}

/// `collect --help`: the MQTT options it shares with `run` are said of a hub, which subscribes.
@Suite struct CollectCommandSpecTests {
    @Test func itsMQTTOptionsSpeakOfCollectingNotPublishing() {
        let options = CollectCommand.spec.options
        #expect(options.first { $0.name == "mqtt" }?.help.hasPrefix("The broker whose loggers' rows are collected") == true)
        #expect(options.first { $0.name == "receiver" }?.help.contains("hub") == true)
        #expect(!options.contains { $0.help.contains("publish every stored row") || $0.name == "ha-discovery" })
        // The rest are `run`'s own, word for word.
        let shared = Set(["mqtt-ca", "mqtt-password-file", "mqtt-prefix", "mqtt-protocol"])
        for spec in MQTTOptions.specs where shared.contains(spec.name) {
            #expect(options.first { $0.name == spec.name }?.help == spec.help)
        }
    }
}
