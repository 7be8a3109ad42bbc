import SensorStore

/// `export --prometheus`: Prometheus's text exposition format (also what node_exporter's textfile
/// collector reads): per quantity a gauge `blesensor_<key>` with each sensor's last stored value,
/// and `blesensor_last_seen_seconds`, when each sensor was last heard (Unix seconds). Labels
/// `address`, `alias` (when it has one), `model`. No sample timestamps: the textfile collector
/// refuses them. Every sample of a metric follows its one `# HELP` and `# TYPE`, as the format wants.
enum PrometheusText {
    /// The page for these sensors' summaries (`SensorSummary.quantities[].last`).
    static func page(_ summaries: [SensorSummary]) -> String {
        var byMetric: [String: [String]] = [:]
        var lastSeen: [String] = []
        for s in summaries {
            let labels = self.labels(s.sensor)
            for q in s.quantities where q.last.isFinite {
                byMetric[q.quantity.key, default: []].append(labels + " " + NumberText.significant(q.last).description)
            }
            lastSeen.append(labels + " " + NumberText.significant(Double(s.sensor.lastSeenMicros) / 1e6).description)
        }
        var out = ""
        for key in byMetric.keys.sorted() {
            out += "# HELP blesensor_\(key) The last stored \(key) of each sensor.\n# TYPE blesensor_\(key) gauge\n"
            for line in byMetric[key]! { out += "blesensor_\(key)" + line + "\n" }
        }
        if !lastSeen.isEmpty {
            out += "# HELP blesensor_last_seen_seconds When each sensor was last heard (Unix time).\n"
            out += "# TYPE blesensor_last_seen_seconds gauge\n"
            for line in lastSeen { out += "blesensor_last_seen_seconds" + line + "\n" }
        }
        return out
    }

    static func labels(_ s: SensorInfo) -> String {
        var l = "{address=\"\(s.address)\""
        if let alias = s.alias { l += ",alias=\"" + escape(alias) + "\"" }
        return l + ",model=\"" + escape(s.model) + "\"}"
    }

    /// A label value: backslash, double quote and line feed escaped, as the format defines.
    static func escape(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
