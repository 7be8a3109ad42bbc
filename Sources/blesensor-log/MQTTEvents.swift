import SensorDecode
import SensorMQTT

/// Events (button presses, dimmer turns, GATT notifications) on MQTT: each one that got through
/// the deduper goes to `<prefix>/<receiver>/<ADDRESS>/event` as compact JSON (`JSON.event`),
/// QoS 1, never retained.
///
/// NOT THROUGH THE OUTBOX: a press is acted on when it happens; the light that comes on minutes
/// later, after a broker outage, is worse than none. While there is no connection an event waits
/// in memory at most `maxAgeSeconds` (enough for the first connect of a replay or a short
/// reconnect), at most `maxPending` of them, and is dropped after. An event stays in the events
/// table whatever MQTT does.
struct MQTTEventQueue {
    static let maxAgeSeconds = 30.0
    static let maxPending = 256

    /// Waiting for a connection, oldest first, with the monotonic time each came.
    var pending: [(message: MQTTMessage, at: Double)] = []
    /// Handed to the client, not yet acknowledged (a clean stop waits for them).
    var inFlight: Set<Int32> = []
    /// Events dropped since the last note about them.
    var dropped = 0

    var isIdle: Bool { pending.isEmpty && inFlight.isEmpty }
}

extension MQTTPublisher {
    /// Publishes one event (and, with discovery, its button's Home Assistant trigger).
    func publish(event e: EventContext) {
        let topic = settings.baseTopic + "/\(e.address)/event"
        // Remembered even while disconnected: the connect announces what is remembered, before the events wait.
        if settings.discovery, let trigger = HomeAssistant.trigger(for: e, topic: topic, settings: settings) { announce(trigger) }
        let payload = JSON.event(
            time: JSON.time(micros: e.timeMicros), address: e.address, alias: e.alias, model: e.model, event: e.event,
            receiver: settings.receiver, rssi: e.rssi)
        events.pending.append((MQTTMessage(topic: topic, text: payload, qos: 1), Timestamp.monotonicSeconds()))
        if events.pending.count > MQTTEventQueue.maxPending {
            events.pending.removeFirst()
            events.dropped += 1
        }
        if connected { publishPendingEvents(now: Timestamp.monotonicSeconds()) }
    }

    /// Publishes the events that waited, in order; drops those too old to matter.
    func publishPendingEvents(now: Double) {
        var sent = 0
        for (message, at) in events.pending {
            if now - at > MQTTEventQueue.maxAgeSeconds {
                events.dropped += 1
                sent += 1
                continue
            }
            // Disconnected meanwhile: the rest waits for the next connection.
            guard let mid = try? client.publish(message) else { break }
            events.inFlight.insert(mid)
            sent += 1
        }
        events.pending.removeFirst(sent)
        if events.dropped > 0 {
            log.warning("mqtt: \(events.dropped) events dropped: no connection to the broker within \(Int(MQTTEventQueue.maxAgeSeconds)) s (they are in the events table)")
            events.dropped = 0
        }
    }
}

extension HomeAssistant {
    /// A button's event as an MQTT device trigger
    /// (https://www.home-assistant.io/integrations/device_trigger.mqtt/), `nil` for other events.
    /// One config per device, button and kind of press (HA: one trigger per discovery topic, type
    /// and subtype unique per device), on `homeassistant/device_automation/<node_id>/<object_id>/config`,
    /// announced at the first such press and retained. `type` is HA's name where it has one
    /// (`press` → `button_short_press`), else `button_<our name>`, which HA shows as given;
    /// `subtype` is `button_N` (our values number buttons after the first as `press:2`).
    /// `value_template` picks the event's value out of the JSON and `payload` is the value to
    /// match, so the trigger fires once per message.
    static func trigger(for e: EventContext, topic: String, settings s: MQTTSettings) -> MQTTMessage? {
        guard e.event.kind == .button else { return nil }
        let parts = e.event.value.split(separator: ":", maxSplits: 1)
        guard let name = parts.first.map(String.init), !name.isEmpty else { return nil }
        let button = parts.count == 2 ? Int(parts[1]) ?? 0 : 1
        guard button >= 1 else { return nil }
        let type = triggerTypes[name] ?? "button_" + topicID(name)
        let subtype = "button_\(button)"
        let node = topicID(s.receiver)
        let object = addressID(e.address) + "_" + subtype + "_" + topicID(name)
        var j = "{\"automation_type\":\"trigger\",\"topic\":" + JSON.string(topic)
        j += ",\"type\":" + JSON.string(type) + ",\"subtype\":" + JSON.string(subtype)
        j += ",\"payload\":" + JSON.string(e.event.value) + ",\"value_template\":\"{{ value_json.value }}\",\"qos\":1"
        j += ",\"device\":" + deviceJSON(e.address, model: e.model, alias: e.alias, manufacturer: nil, settings: s) + "}"
        return MQTTMessage(topic: "\(prefix)/device_automation/\(node)/\(object)/config", text: j, qos: 1, retain: true)
    }

    /// Our button values → HA's trigger types (those its frontend names).
    static let triggerTypes = [
        "press": "button_short_press", "double_press": "button_double_press",
        "triple_press": "button_triple_press", "long_press": "button_long_press",
    ]
}
