import Foundation
import SensorMQTT
import Testing

/// SensorMQTT's client against a real Mosquitto on loopback (it lives with the CLI's tests,
/// which share the broker helper).
@Suite(.enabled(if: MQTTBroker.isAvailable, "needs mosquitto and mosquitto-clients (scripts/setup-deps)"))
struct MQTTClientTests {
    static func configuration(_ broker: MQTTBroker, id: String = "client-test") -> MQTTClientConfiguration {
        MQTTClientConfiguration(host: "127.0.0.1", port: Int32(broker.port), clientID: id)
    }

    /// The client's events until `done` holds for them or `seconds` pass.
    static func events(_ c: MQTTClient, seconds: Double, until done: ([MQTTEvent]) -> Bool) -> [MQTTEvent] {
        var all: [MQTTEvent] = []
        let deadline = Date().addingTimeInterval(seconds)
        while !done(all), Date() < deadline {
            all += c.drainEvents()
            Thread.sleep(forTimeInterval: 0.02)
        }
        return all
    }

    @Test func aQoS1PublishIsAcknowledgedByItsMessageID() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let broker = MQTTBroker(dir: dir.path)
        try broker.start()
        let sub = try MQTTBroker.Subscriber(broker: broker, topics: ["t/#"])
        let client = try MQTTClient(Self.configuration(broker))
        try client.start()
        _ = Self.events(client, seconds: 5) { $0.contains(.connected) }
        #expect(client.isConnected)
        let mid = try client.publish(MQTTMessage(topic: "t/a", text: "{\"x\":1}", qos: 1))
        let events = Self.events(client, seconds: 5) { $0.contains(.acknowledged(mid: mid)) }
        #expect(events.contains(.acknowledged(mid: mid)))
        let m = sub.wait(seconds: 5) { !$0.isEmpty }
        #expect(m.map(\.payload) == ["{\"x\":1}"] && m.first?.topic == "t/a")
        client.stop()
        #expect(!client.isConnected)
    }

    @Test func onConnectItSubscribesAndSendsTheBirthMessage() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let broker = MQTTBroker(dir: dir.path)
        try broker.start()
        var c = Self.configuration(broker)
        c.subscriptions = ["s/#"]
        c.birth = MQTTMessage(topic: "s/status", text: "online", retain: true)
        let client = try MQTTClient(c)
        try client.start()
        // The birth goes out after the subscription: the client hears its own birth.
        let events = Self.events(client, seconds: 5) { $0.contains(.message(topic: "s/status", payload: Array("online".utf8))) }
        #expect(events.first == .connected)
        #expect(events.contains(.message(topic: "s/status", payload: Array("online".utf8))))
        #expect(try broker.retained("s/status").map(\.payload) == ["online"])
    }

    /// A payload longer than `maxPayloadBytes` is not handed over (nor kept in the queue): its
    /// topic and length arrive instead, in order with the messages around it.
    @Test func aPayloadLongerThanTheLimitArrivesAsItsLengthOnly() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let broker = MQTTBroker(dir: dir.path)
        try broker.start()
        var c = Self.configuration(broker)
        c.subscriptions = ["t/#"]
        c.maxPayloadBytes = 1000
        let client = try MQTTClient(c)
        try client.start()
        _ = Self.events(client, seconds: 5) { $0.contains(.connected) }
        for (topic, payload) in [("t/limit", String(repeating: "a", count: 1000)), ("t/big", String(repeating: "b", count: 5000)), ("t/small", "x")] {
            try Child(MQTTBroker.pub, ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", topic, "-q", "1", "-m", payload]).wait()
        }
        let events = Self.events(client, seconds: 10) { $0.contains(.message(topic: "t/small", payload: Array("x".utf8))) }
            .filter { if case .connected = $0 { false } else { true } }
        #expect(events == [
            .message(topic: "t/limit", payload: [UInt8](repeating: UInt8(ascii: "a"), count: 1000)),
            .oversized(topic: "t/big", bytes: 5000), .message(topic: "t/small", payload: Array("x".utf8)),
        ])
    }

    @Test func itConnectsOnceALateBrokerStartsAndAfterARestart() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let broker = MQTTBroker(dir: dir.path)
        let client = try MQTTClient(Self.configuration(broker))
        try client.start()
        let failed = Self.events(client, seconds: 5) { !$0.isEmpty }
        #expect(failed.first.map { if case .connectFailed(let why) = $0 { why.contains("refused") } else { false } } == true,
            "nothing listens yet: \(failed)")
        Thread.sleep(forTimeInterval: 2)
        try broker.start()
        let started = Date()
        var events = Self.events(client, seconds: 15) { $0.contains(.connected) }
        #expect(events.contains(.connected))
        #expect(Date().timeIntervalSince(started) < 11, "the reconnect backoff is capped at 10 s")
        broker.stop()
        events = Self.events(client, seconds: 5) { $0.contains { if case .connectionLost = $0 { true } else { false } } }
        #expect(events.contains { if case .connectionLost = $0 { true } else { false } })
        try broker.start()
        events = Self.events(client, seconds: 15) { $0.contains(.connected) }
        #expect(events.contains(.connected))
        client.stop()
    }

    @Test func refusedCredentialsAreAnEvent() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try Child("/usr/bin/mosquitto_passwd", ["-c", "-b", dir.file("passwd"), "u", "right"]).wait()
        let broker = MQTTBroker(dir: dir.path, listenerConfig: "allow_anonymous false\npassword_file \(dir.file("passwd"))")
        try broker.start()
        var c = Self.configuration(broker)
        c.username = "u"
        c.password = "wrong"
        let client = try MQTTClient(c)
        try client.start()
        let events = Self.events(client, seconds: 5) { $0.contains { if case .refused = $0 { true } else { false } } }
        let refused = events.compactMap { if case .refused(let why) = $0 { why } else { nil } }
        #expect(refused.first?.contains("not authorised") == true || refused.first?.contains("password") == true, "\(events)")
        #expect(!client.isConnected)
    }

    @Test func anUnreadableCAFileIsRefusedAtCreation() throws {
        var c = MQTTClientConfiguration(host: "127.0.0.1", port: 1, clientID: "x")
        c.tls = .init(caFile: "/nonexistent/ca.crt")
        #expect(throws: MQTTError.self) { try MQTTClient(c) }
    }
}
