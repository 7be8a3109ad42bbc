import Foundation
import SensorDecode
import Testing

@testable import blesensor_log

/// Events on MQTT (MQTTEvents.swift): `replay --mqtt` of the button capture against a real
/// Mosquitto, and the Home Assistant device triggers built without a broker.
@Suite(.enabled(if: MQTTBroker.isAvailable && CLI.isBuilt, "needs mosquitto and mosquitto-clients (scripts/setup-deps), and a built blesensor-log"))
struct MQTTEventsTests {
    static let buttons = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/captures/bthome-buttons.btsnoop").path
    static let address = "3C:2E:F5:00:00:01"

    @Test func replayPublishesEachPressOnceInOrderNotRetained() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let broker = MQTTBroker(dir: dir.path)
        try broker.start()
        defer { broker.stop() }
        let sub = try MQTTBroker.Subscriber(broker: broker, topics: ["blesensor/#"])
        let db = dir.file("b.db")
        let out = try CLI.run(["replay", Self.buttons, "--db", db, "--mqtt", broker.url, "--receiver", "pi"])
        #expect(out.status == 0, "\(out.stderr)")
        let topic = "blesensor/pi/\(Self.address)/event"
        let messages = sub.wait(seconds: 10) { $0.filter { $0.topic == topic }.count >= 4 && $0.contains { $0.payload == "offline" } }
        sub.stop()
        let events = messages.filter { $0.topic == topic }
        #expect(events.compactMap { $0.json?["value"] as? String } == ["press", "double_press", "long_press", "press"])
        #expect(!events.contains { $0.retained }, "events are never retained")

        // The payloads are the stored events, with the receiver.
        let stored = CLI.jsonObjects(try CLI.run(["export", "--events", "--jsonl", "--db", db]))
        #expect(stored.count == 4)
        for (m, row) in zip(events, stored) {
            guard let j = m.json else {
                Issue.record("not JSON: \(m.payload)")
                continue
            }
            #expect(Set(j.keys) == ["time", "address", "alias", "model", "event", "value", "receiver", "rssi_dbm"], "\(m.payload)")
            for k in ["time", "address", "model", "event", "value", "rssi_dbm"] {
                #expect("\(j[k] ?? "absent")" == "\(row[k] ?? "absent")", "\(k): \(m.payload) vs \(row)")
            }
            #expect(j["event"] as? String == "button" && j["receiver"] as? String == "pi")
        }

        // A late subscriber sees no event: only configs and the status are retained.
        let retained = try broker.retained("#")
        #expect(!retained.contains { $0.topic.hasSuffix("/event") })

        // One device trigger per kind of press, retained, naming the event topic.
        let triggers = retained.filter { $0.topic.hasPrefix("homeassistant/device_automation/") }
        let id = Self.address.lowercased().filter { $0 != ":" }
        #expect(Set(triggers.map(\.topic)) == Set(["press", "double_press", "long_press"].map {
            "homeassistant/device_automation/pi/\(id)_button_1_\($0)/config"
        }))
        let types = ["press": "button_short_press", "double_press": "button_double_press", "long_press": "button_long_press"]
        for t in triggers {
            guard let j = t.json, let device = j["device"] as? [String: Any] else {
                Issue.record("not a JSON object with a device: \(t.payload)")
                continue
            }
            let payload = j["payload"] as? String ?? ""
            #expect(j["automation_type"] as? String == "trigger")
            #expect(j["topic"] as? String == topic)
            #expect(j["type"] as? String == types[payload], "\(t.payload)")
            #expect(j["subtype"] as? String == "button_1")
            #expect(j["value_template"] as? String == "{{ value_json.value }}")
            #expect(device["identifiers"] as? [String] == ["blesensor_\(id)"])
            #expect(device["via_device"] as? String == "blesensor_receiver_pi")
        }
    }

}

/// Home Assistant device triggers of events, built without a broker.
@Suite struct MQTTEventTriggerTests {
    static let address = MQTTEventsTests.address

    static func settings() throws -> MQTTSettings {
        MQTTSettings(
            broker: try MQTTBrokerURL.parse("mqtt://h"), caFile: nil, password: nil, prefix: "blesensor", receiver: "pi 1",
            discovery: true)
    }

    static func context(_ value: String, _ kind: DeviceEvent.Kind = .button) -> EventContext {
        EventContext(
            address: BDAddress(Self.address)!, alias: nil, model: "BTHome", event: DeviceEvent(kind, value),
            timeMicros: 0, rssi: nil)
    }

    @Test func laterButtonsAreSubtypesAndOtherPressesKeepTheirName() throws {
        let second = HomeAssistant.trigger(for: Self.context("double_press:2"), topic: "t", settings: try Self.settings())
        #expect(second?.topic == "homeassistant/device_automation/pi_1/3c2ef5000001_button_2_double_press/config")
        let j = try #require(second.flatMap { try JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] })
        #expect(j["subtype"] as? String == "button_2" && j["type"] as? String == "button_double_press")
        #expect(j["payload"] as? String == "double_press:2")
        let hold = HomeAssistant.trigger(for: Self.context("hold_press"), topic: "t", settings: try Self.settings())
        #expect(hold.map { String(decoding: $0.payload, as: UTF8.self) }?.contains("\"type\":\"button_hold_press\"") == true)
        #expect(hold?.retain == true)
    }

    @Test func dimmersAndNotificationsHaveNoTrigger() throws {
        #expect(HomeAssistant.trigger(for: Self.context("rotate_left:3", .dimmer), topic: "t", settings: try Self.settings()) == nil)
        #expect(HomeAssistant.trigger(for: Self.context("0a1b", .notify), topic: "t", settings: try Self.settings()) == nil)
        #expect(HomeAssistant.trigger(for: Self.context("press:x"), topic: "t", settings: try Self.settings()) == nil)
    }
}
