import Foundation
import Testing

/// `run --mqtt` and `replay --mqtt` against a real Mosquitto on loopback: what a subscriber
/// receives is compared with what `export` says is stored.
@Suite(.enabled(if: MQTTBroker.isAvailable && CLI.isBuilt, "needs mosquitto and mosquitto-clients (scripts/setup-deps), and a built blesensor-log"))
struct MQTTPublisherTests {
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/captures/demo-week.btsnoop").path

    /// `blesensor-log args…` in the background, its standard error collected in a file.
    final class Background {
        let process = Process()
        let stderrPath: String

        init(_ args: [String], dir: TempDir, environment: [String: String] = [:]) throws {
            stderrPath = dir.file("stderr-\(UUID().uuidString).txt")
            _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = args
            var env = ProcessInfo.processInfo.environment
            for (k, v) in environment { env[k] = v }
            process.environment = env
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
            try process.run()
        }

        var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

        /// SIGTERM, then the exit status (or nil if it did not exit within `seconds`).
        func terminate(within seconds: Double = 15) -> Int32? {
            process.terminate()
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return nil
            }
            return process.terminationStatus
        }
    }

    /// Stored rows by "address time".
    static func exported(_ db: String) throws -> [String: [String: Any]] {
        let out = try CLI.run(["export", "--jsonl", "--db", db])
        #expect(out.status == 0, "\(out.stderr)")
        var rows: [String: [String: Any]] = [:]
        // Without export's own mark of a row stamped by an unsynchronised clock (as `run` on a
        // machine without NTP stamps them): not a value of the row, and not in MQTT payloads.
        for var r in CLI.jsonObjects(out) {
            r["clock_unsynced"] = nil
            rows["\(r["address"] ?? "?") \(r["time"] ?? "?")"] = r
        }
        return rows
    }

    /// State payloads by "address time", from the messages on `<prefix>/<receiver>/<ADDRESS>`.
    static func states(_ messages: [MQTTBroker.Message], base: String) -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for m in messages where m.topic.hasPrefix(base + "/") && !m.topic.hasSuffix("/status") && !m.topic.hasSuffix("/event") {
            guard let j = m.json else { continue }
            out["\(j["address"] ?? "?") \(j["time"] ?? "?")"] = j
        }
        return out
    }

    /// Every stored row has its state message with the same values (and nothing else came).
    static func expectStatesMatch(_ stored: [String: [String: Any]], _ states: [String: [String: Any]], receiver: String) {
        let missing = Set(stored.keys).subtracting(states.keys).sorted()
        let extra = Set(states.keys).subtracting(stored.keys).sorted()
        #expect(missing.isEmpty && extra.isEmpty,
            "stored \(stored.count), published \(states.count); missing \(missing.prefix(5)), not stored \(extra.prefix(5))")
        var differ: [String] = []
        for (key, row) in stored {
            guard let s = states[key] else { continue }
            for (k, v) in row where "\(v)" != "\(s[k] ?? "absent")" { differ.append("\(key) \(k): \(v) vs \(s[k] ?? "absent")") }
            if s["receiver"] as? String != receiver || !(s["rssi_dbm"] is Int) { differ.append("\(key): receiver/rssi \(s)") }
        }
        #expect(differ.isEmpty, "\(differ.prefix(5))")
    }

    /// A folder, a radio for `run` and a broker (not started).
    /// Waits until `run` has logged `count` lines containing `text` (a minute at most).
    static func awaitLine(_ run: Background, _ text: String, count: Int) {
        let deadline = Date().addingTimeInterval(60)
        func seen() -> Int { run.stderr.split(separator: "\n").filter { $0.contains(text) }.count }
        while seen() < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(seen() >= count, "\(count)× '\(text)' expected: \(run.stderr.suffix(2000))")
    }

    static func liveScene() throws -> (TempDir, FakeH4Controller, MQTTBroker) {
        let dir = try TempDir()
        return (dir, try FakeH4Controller(), MQTTBroker(dir: dir.path))
    }

    static func end(_ dir: TempDir, _ radio: FakeH4Controller) {
        radio.stop()
        dir.cleanup()
    }

    @Test func replayPublishesEveryStoredRowWithDiscoveryAndAvailability() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let broker = MQTTBroker(dir: dir.path)
        try broker.start()
        let sub = try MQTTBroker.Subscriber(broker: broker, topics: ["blesensor/#"])
        let db = dir.file("a.db")
        let out = try CLI.run(["replay", Self.demo, "--db", db, "--mqtt", broker.url, "--receiver", "pi-test"])
        #expect(out.status == 0, "\(out.stderr)")
        let stored = try Self.exported(db)
        #expect(stored.count > 1000)
        let messages = sub.wait(seconds: 20) { Self.states($0, base: "blesensor/pi-test").count >= stored.count }
        Self.expectStatesMatch(stored, Self.states(messages, base: "blesensor/pi-test"), receiver: "pi-test")
        #expect(!messages.contains { $0.retained }, "state messages are not retained")

        // Availability: online at the start, offline (retained) after the clean end.
        #expect(messages.first { $0.topic == "blesensor/pi-test/status" }?.payload == "online")
        #expect(try broker.retained("blesensor/pi-test/status").map(\.payload) == ["offline"])

        // Discovery: a retained config per sensor and quantity, as Home Assistant wants it.
        let configs = try broker.retained("homeassistant/#")
        #expect(configs.allSatisfy { $0.retained })
        var expected: Set<String> = []
        for row in stored.values {
            let address = row["address"] as! String
            let id = address.lowercased().filter { $0 != ":" }
            for key in row.keys where !["time", "address", "alias", "model", "samples"].contains(key) {
                expected.insert("homeassistant/sensor/pi-test/\(id)_\(key)/config")
            }
        }
        let sensorConfigs = configs.filter { $0.topic.hasPrefix("homeassistant/sensor/") }
        #expect(Set(sensorConfigs.map(\.topic)) == expected)
        #expect(Set(sensorConfigs.compactMap { $0.json?["unique_id"] as? String }).count == expected.count)
        for c in sensorConfigs {
            guard let j = c.json, let device = j["device"] as? [String: Any] else {
                Issue.record("not a JSON object with a device: \(c.payload)")
                continue
            }
            let object = c.topic.split(separator: "/")[3]
            let key = String(object.dropFirst(13))
            let addressHex = String(object.prefix(12))
            #expect(j["value_template"] as? String == "{{ value_json.\(key) }}")
            #expect((j["state_topic"] as? String)?.hasPrefix("blesensor/pi-test/") == true)
            #expect(j["state_class"] as? String == "measurement")
            #expect(j["expire_after"] as? Int == 180)
            #expect(j["name"] is String && j["unique_id"] is String)
            #expect(((j["availability"] as? [[String: Any]])?.first?["topic"] as? String) == "blesensor/pi-test/status")
            let connections = device["connections"] as? [[String]]
            #expect(connections?.first?.first == "mac" && connections?.first?.last?.filter { $0 != ":" } == addressHex)
            #expect(device["identifiers"] is [String] && device["manufacturer"] is String && device["model"] is String)
            #expect(device["via_device"] as? String == "blesensor_receiver_pi-test")
            let units = ["temperature_c": ("temperature", "°C"), "humidity_pct": ("humidity", "%"), "battery_pct": ("battery", "%"),
                "voltage_v": ("voltage", "V")]
            if let (deviceClass, unit) = units[key] {
                #expect(j["device_class"] as? String == deviceClass && j["unit_of_measurement"] as? String == unit, "\(c.payload)")
            }
        }
        let receiver = configs.first { $0.topic == "homeassistant/binary_sensor/pi-test/status/config" }?.json
        #expect(((receiver?["device"] as? [String: Any])?["identifiers"] as? [String]) == ["blesensor_receiver_pi-test"])
        sub.stop()
    }

    @Test func aRestartPublishesTheBacklogFromTheCursor() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let broker = MQTTBroker(dir: dir.path)
        let db = dir.file("a.db")
        // The broker is not there yet: every row is stored, none acknowledged.
        let first = try CLI.run(["replay", Self.demo, "--db", db, "--mqtt", broker.url, "--receiver", "pi"])
        #expect(first.status == 0)
        let errors = first.stderr.split(separator: "\n").filter { $0.contains("mqtt:") && $0.contains("still logging") }
        #expect(errors.count == 1, "\(first.stderr)")
        #expect(first.stderr.contains("wait in the outbox"))
        let stored = try Self.exported(db)
        let doctor = try CLI.run(["doctor", "--db", db])
        #expect(doctor.stdout.contains("\(stored.count) rows not yet acknowledged"), "\(doctor.stdout)")

        try broker.start()
        let sub = try MQTTBroker.Subscriber(broker: broker, topics: ["blesensor/pi/+"])
        // The same capture again stores nothing; the outbox still holds every row.
        let second = try CLI.run(["replay", Self.demo, "--db", db, "--mqtt", broker.url, "--receiver", "pi", "--ha-discovery", "off"])
        #expect(second.status == 0, "\(second.stderr)")
        let messages = sub.wait(seconds: 20) { Self.states($0, base: "blesensor/pi").count >= stored.count }
        Self.expectStatesMatch(stored, Self.states(messages, base: "blesensor/pi"), receiver: "pi")
        #expect(try broker.retained("homeassistant/#").isEmpty, "--ha-discovery off")
        let after = try CLI.run(["doctor", "--db", db])
        #expect(after.stdout.contains("0 rows not yet acknowledged"), "\(after.stdout)")
        sub.stop()
    }

    @Test func aBrokerOutageDuringRunLosesNoRow() throws {
        let (dir, radio, broker) = try Self.liveScene()
        defer { Self.end(dir, radio) }
        // A persistent session, registered while the broker is briefly up: the broker then keeps
        // every message for it, across its restart, whenever the subscriber is connected.
        try broker.start()
        try MQTTBroker.Subscriber(broker: broker, topics: ["blesensor/#"], session: "outage-test").stop()
        broker.stop()

        let db = dir.file("a.db")
        let run = try Background(
            ["run", "--hci", radio.spec, "--db", db, "--interval", "1s", "--mqtt", broker.url, "--receiver", "pi", "-v"],
            dir: dir)
        Thread.sleep(forTimeInterval: 4)  // the broker starts late
        try broker.start()
        Self.awaitLine(run, "mqtt: connected to", count: 1)
        Thread.sleep(forTimeInterval: 2)  // some rows go out
        broker.stop()  // and stops mid-run
        Thread.sleep(forTimeInterval: 4)
        try broker.start()
        let sub = try MQTTBroker.Subscriber(broker: broker, topics: ["blesensor/#"], session: "outage-test")
        Self.awaitLine(run, "mqtt: connected to", count: 2)  // the reconnect backoff is capped at 10 s
        Thread.sleep(forTimeInterval: 2)  // the backlog goes out
        let status = run.terminate()
        #expect(status == 0, "\(run.stderr.suffix(2000))")
        let stored = try Self.exported(db)
        #expect(stored.count >= 10, "rows stored: \(stored.count)")
        let messages = sub.wait(seconds: 10) { Self.states($0, base: "blesensor/pi").count >= stored.count }
        Self.expectStatesMatch(stored, Self.states(messages, base: "blesensor/pi"), receiver: "pi")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.filter { $0.contains("lost the connection") }.count == 1, "\(run.stderr.suffix(3000))")
        #expect(lines.contains { $0.contains("rows wait in the outbox") }, "run -v shows the backlog")
        sub.stop()
    }

    @Test func aRowReachesTheBrokerWhenItsIntervalEndsNotAtTheNextSDBatch() throws {
        // The store commits every 10 minutes to spare the SD card; with --mqtt it commits at each
        // interval's end, so a subscriber sees rows while the logger runs.
        let (dir, radio, broker) = try Self.liveScene()
        defer { Self.end(dir, radio) }
        try broker.start()
        let sub = try MQTTBroker.Subscriber(broker: broker, topics: ["blesensor/pi/+"])
        let run = try Background(
            ["run", "--hci", radio.spec, "--db", dir.file("a.db"), "--interval", "2s", "--mqtt", broker.url, "--receiver", "pi"],
            dir: dir)
        let messages = sub.wait(seconds: 20) { !Self.states($0, base: "blesensor/pi").isEmpty }
        #expect(!Self.states(messages, base: "blesensor/pi").isEmpty, "no row published while running: \(run.stderr.suffix(1500))")
        #expect(run.terminate() == 0, "\(run.stderr.suffix(1500))")
        sub.stop()
    }

    @Test(arguments: ["3.1.1", "5"])
    func availabilityIsOfflineAfterACleanStopAndAfterKill9(mqttProtocol: String) throws {
        let (dir, radio, broker) = try Self.liveScene()
        defer { Self.end(dir, radio) }
        try broker.start()
        let sub = try MQTTBroker.Subscriber(broker: broker, topics: ["blesensor/pi/status", "homeassistant/#"])
        for signal in [SIGTERM, SIGKILL] {
            let online = sub.messages.count
            let run = try Background(
                ["run", "--hci", radio.spec, "--db", dir.file("a.db"), "--mqtt", broker.url, "--receiver", "pi",
                 "--mqtt-protocol", mqttProtocol], dir: dir)
            sub.wait(seconds: 10) { $0.dropFirst(online).contains { $0.topic == "blesensor/pi/status" && $0.payload == "online" } }
            #expect(try broker.retained("blesensor/pi/status").map(\.payload) == ["online"])
            if signal == SIGTERM {
                #expect(run.terminate() == 0, "\(run.stderr)")
            } else {
                kill(run.process.processIdentifier, SIGKILL)
                run.process.waitUntilExit()
            }
            // The clean stop says offline itself; after kill -9 the broker publishes the will.
            let m = sub.wait(seconds: 10) { $0.last?.topic == "blesensor/pi/status" && $0.last?.payload == "offline" }
            #expect(m.last?.payload == "offline", "signal \(signal): \(m.suffix(3).map(\.payload))")
            #expect(try broker.retained("blesensor/pi/status").map(\.payload) == ["offline"])
        }
        // The broker logs which protocol each client spoke (p2: 3.1.1, p5: 5).
        let log = (try? String(contentsOfFile: broker.dir + "/mosquitto.log", encoding: .utf8)) ?? ""
        #expect(log.contains("as blesensor-log-pi (p\(mqttProtocol == "5" ? 5 : 2),"), "\(log.suffix(1500))")
        sub.stop()
    }

    @Test func homeAssistantComingOnlineGetsTheConfigsAgain() throws {
        let (dir, radio, broker) = try Self.liveScene()
        defer { Self.end(dir, radio) }
        try broker.start()
        let run = try Background(
            ["run", "--hci", radio.spec, "--db", dir.file("a.db"), "--interval", "1s", "--mqtt", broker.url, "--receiver", "pi"],
            dir: dir)
        let first = try MQTTBroker.Subscriber(broker: broker, topics: ["homeassistant/sensor/#"])
        first.wait(seconds: 15) { !$0.isEmpty }
        first.stop()
        // A subscriber that already has the retained configs: what comes next is a new publish.
        let sub = try MQTTBroker.Subscriber(broker: broker, topics: ["homeassistant/sensor/#"])
        let retained = sub.wait(seconds: 5) { !$0.isEmpty }.count
        #expect(retained > 0)
        try Child(MQTTBroker.pub, ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "homeassistant/status", "-m", "online"])
            .wait()
        let m = sub.wait(seconds: 10) { $0.dropFirst(retained).contains { !$0.retained } }
        #expect(m.dropFirst(retained).contains { !$0.retained && $0.topic.hasSuffix("_humidity_pct/config") })
        #expect(run.terminate() == 0)
        sub.stop()
    }

    @Test(arguments: [
        "http://127.0.0.1", "mqtt://", "mqtt://host:0", "mqtt://host:65536", "mqtt://host:12ab", "mqtt://host/path",
        "mqtt://:pw@host",
    ])
    func aBadURLIsOneUsageLine(url: String) throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let out = try CLI.run(["replay", Self.demo, "--db", dir.file("a.db"), "--mqtt", url])
        #expect(out.status == 64)
        #expect(out.stderr.contains("--mqtt wants"), "\(out.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("a.db")), "nothing is stored on a usage error")
    }

    @Test(arguments: ["4", "3", "v5", "", "5.0"])
    func aBadProtocolIsOneUsageLine(value: String) throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        for command in [["replay", Self.demo], ["collect"]] {
            let out = try CLI.run(command + ["--db", dir.file("a.db"), "--mqtt", "mqtt://127.0.0.1:1", "--mqtt-protocol", value])
            #expect(out.status == 64, "\(command): \(out.stderr)")
            #expect(out.stderr.split(separator: "\n").first?.contains("--mqtt-protocol wants 3.1.1 or 5, got '\(value)'") == true, "\(out.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.file("a.db")), "nothing is stored on a usage error")
        }
    }

    @Test func refusedCredentialsAreOneErrorLineAndTheRowsAreStillStored() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let passwd = Process()
        passwd.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
        passwd.arguments = ["-c", "-b", dir.file("passwd"), "logger", "right-secret"]
        try passwd.run()
        passwd.waitUntilExit()
        let broker = MQTTBroker(dir: dir.path, listenerConfig: "allow_anonymous false\npassword_file \(dir.file("passwd"))")
        try broker.start()
        let url = "mqtt://logger@127.0.0.1:\(broker.port)"
        let db = dir.file("a.db")
        let wrong = try CLI.run(
            ["replay", Self.demo, "--db", db, "--mqtt", url], environment: ["BLESENSOR_MQTT_PASSWORD": "wrong-secret"])
        #expect(wrong.status == 0, "\(wrong.stderr)")
        let errors = wrong.stderr.split(separator: "\n").filter { $0.contains("mqtt:") && $0.contains("refused") }
        #expect(errors.count == 1, "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("wrong-secret"))
        let stored = try Self.exported(db)
        #expect(stored.count > 1000)

        // The right password, from a file: the backlog goes out.
        try "right-secret\n".write(toFile: dir.file("pw"), atomically: true, encoding: .utf8)
        let sub = try MQTTBroker.Subscriber(broker: broker, topics: ["blesensor/#"], login: ["-u", "logger", "-P", "right-secret"])
        let right = try CLI.run(
            ["replay", Self.demo, "--db", db, "--mqtt", url, "--mqtt-password-file", dir.file("pw"), "--receiver", "auth"])
        #expect(right.status == 0, "\(right.stderr)")
        #expect(!right.stderr.contains("right-secret"))
        let messages = sub.wait(seconds: 20) { Self.states($0, base: "blesensor/auth").count >= stored.count }
        Self.expectStatesMatch(stored, Self.states(messages, base: "blesensor/auth"), receiver: "auth")
        sub.stop()
    }

    @Test func tlsWithATestCA() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        func openssl(_ args: [String]) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            p.arguments = args
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "openssl \(args)")
        }
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for ca in ["ca", "other-ca"] {
            try openssl(["req", "-x509"] + ec + ["-keyout", dir.file("\(ca).key"), "-out", dir.file("\(ca).crt"), "-days", "2",
                "-subj", "/CN=blesensor test \(ca)"])
        }
        try openssl(["req"] + ec + ["-keyout", dir.file("server.key"), "-out", dir.file("server.csr"), "-subj", "/CN=localhost"])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: dir.file("ext.cnf"), atomically: true, encoding: .utf8)
        try openssl(["x509", "-req", "-in", dir.file("server.csr"), "-CA", dir.file("ca.crt"), "-CAkey", dir.file("ca.key"),
            "-CAcreateserial", "-out", dir.file("server.crt"), "-days", "2", "-extfile", dir.file("ext.cnf")])
        let tlsPort = MQTTBroker.freePort()
        // The plain listener is the subscriber's; the logger uses the TLS one.
        let broker = MQTTBroker(
            dir: dir.path,
            listenerConfig: """
                allow_anonymous true
                listener \(tlsPort) 127.0.0.1
                allow_anonymous true
                cafile \(dir.file("ca.crt"))
                certfile \(dir.file("server.crt"))
                keyfile \(dir.file("server.key"))
                """)
        try broker.start()
        let sub = try MQTTBroker.Subscriber(broker: broker, topics: ["blesensor/tls/+"])
        let db = dir.file("a.db")
        let untrusted = try CLI.run(
            ["replay", Self.demo, "--db", db, "--mqtt", "mqtts://localhost:\(tlsPort)", "--mqtt-ca", dir.file("other-ca.crt"),
                "--receiver", "tls"])
        #expect(untrusted.status == 0)
        #expect(untrusted.stderr.contains("wait in the outbox"), "\(untrusted.stderr)")
        #expect(sub.messages.isEmpty, "nothing goes to a broker whose certificate the CA did not sign")
        let trusted = try CLI.run(
            ["replay", Self.demo, "--db", db, "--mqtt", "mqtts://localhost:\(tlsPort)", "--mqtt-ca", dir.file("ca.crt"),
                "--receiver", "tls"])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        let stored = try Self.exported(db)
        let messages = sub.wait(seconds: 20) { Self.states($0, base: "blesensor/tls").count >= stored.count }
        Self.expectStatesMatch(stored, Self.states(messages, base: "blesensor/tls"), receiver: "tls")
        sub.stop()
    }
}
