import SensorDecode

extension JSON {
    /// One event as a JSON object (without newline): `export --events --jsonl` and the MQTT
    /// event payloads. `receiver` only on MQTT; `encrypted` only when the frame was.
    static func event(
        time: String, address: BDAddress, alias: String?, model: String, event: DeviceEvent, receiver: String? = nil,
        rssi: Int8?
    ) -> String {
        var s = "{\"time\":\"\(time)\",\"address\":\"\(address)\",\"alias\":" + (alias.map(string) ?? "null")
        s += ",\"model\":" + string(model) + ",\"event\":\"\(event.kind.rawValue)\",\"value\":" + string(event.value)
        if let receiver { s += ",\"receiver\":" + string(receiver) }
        if let rssi { s += ",\"rssi_dbm\":\(rssi)" }
        if event.encrypted { s += ",\"encrypted\":true" }
        return s + "}"
    }
}
