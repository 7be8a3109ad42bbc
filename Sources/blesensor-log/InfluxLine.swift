import SensorStore

/// InfluxDB line protocol for `export --influx` (https://docs.influxdata.com/influxdb/v2/reference/syntax/line-protocol/),
/// for `influx write` and Telegraf: one point per stored row,
/// `<model>,address=…,alias=…,model=… samples=3i,temperature_c=21.5,battery_pct=64i <ns>`.
/// The measurement is the sensor's model; tags its address, alias (left out when it has none: a
/// tag value may not be empty), model and, for a hub's row, the receiver whose copy it is; fields every quantity (whole-number quantities as
/// integers, `i`) and the samples folded; the time in nanoseconds since the epoch.
enum InfluxLine {
    /// A point as one line (without newline); `nil` for a row without a finite value (a point
    /// needs a field, and the protocol has no NaN or infinity).
    static func point(_ row: ExportRow) -> String? {
        var fields: [String] = []
        for m in row.measurements where m.value.isFinite {
            let v = m.quantity.isInteger && m.value == m.value.rounded() && abs(m.value) < 9e18
                ? "\(Int64(m.value))i" : NumberText.significant(m.value).description
            fields.append(escape(m.quantity.key, measurement: false) + "=" + v)
        }
        guard !fields.isEmpty else { return nil }
        let s = row.sensor
        var line = escape(s.model.isEmpty ? "sensor" : s.model, measurement: true) + ",address=\(s.address)"
        if let alias = s.alias, !alias.isEmpty { line += ",alias=" + escape(alias, measurement: false) }
        if !s.model.isEmpty { line += ",model=" + escape(s.model, measurement: false) }
        if let receiver = row.receiver, !receiver.isEmpty { line += ",receiver=" + escape(receiver, measurement: false) }
        return line + " samples=\(row.samples)i," + fields.joined(separator: ",") + " \(row.timeMicros)000"
    }

    /// Backslashes before the protocol's separators: commas and spaces, and in tag keys, tag
    /// values and field keys also equals signs. Line breaks and other control characters (the
    /// protocol cannot carry them) become spaces, and a trailing backslash is doubled so that it
    /// does not escape the separator after it (InfluxDB's parser skips the character after every
    /// backslash).
    static func escape(_ text: String, measurement: Bool) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case ",", " ": out += "\\" + String(c)
            case "=" where !measurement: out += "\\="
            default:
                if c.value < 0x20 || c.value == 0x7F { out += "\\ " } else { out.unicodeScalars.append(c) }
            }
        }
        if text.hasSuffix("\\") { out += "\\" }
        return out
    }
}
