import SensorStore

// In a file of its own so that JSONLines.swift builds without the store (scripts/fuzz's
// decode_line target compiles it alone); the same writer's strings and numbers.
extension JSON {
    /// One stored row as a JSON object (without newline), with its time already formatted:
    /// `export --jsonl` and the MQTT state payload. `receiver` (MQTT) adds the receiver's name
    /// and the sensor's last RSSI (a logger's rows do not store one); a hub's row names the
    /// receiver whose copy it stored and the RSSI published with it. `clockUnsynced` adds
    /// `"clock_unsynced":true` (a row stamped while the clock was not synchronised).
    static func storedRow(_ row: ExportRow, time: String, receiver: String? = nil, clockUnsynced: Bool = false) -> String {
        var s = "{\"time\":\"" + time + "\",\"address\":\"\(row.sensor.address)\""
        s += ",\"alias\":" + (row.sensor.alias.map(string) ?? "null")
        s += ",\"model\":" + string(row.sensor.model) + ",\"samples\":\(row.samples)"
        for m in row.measurements {
            s += ",\"\(m.quantity.key)\":" + number(m.value, integer: m.quantity.isInteger)
        }
        if let receiver {
            s += ",\"receiver\":" + string(receiver)
            if let rssi = row.sensor.lastRSSI { s += ",\"rssi_dbm\":\(rssi)" }
        } else if let receiver = row.receiver {
            s += ",\"receiver\":" + string(receiver)
            if let rssi = row.receiverRSSI { s += ",\"rssi_dbm\":\(rssi)" }
        }
        if clockUnsynced { s += ",\"clock_unsynced\":true" }
        return s + "}"
    }
}
