import SensorDecode

/// JSON text for the line-oriented outputs (`decode`, `scan --json`, `replay --jsonl`,
/// `export --jsonl`) and the MQTT state payloads (`storedRow`, JSONStoredRow.swift). One object per line; keys are the `Quantity` keys, so every output speaks the
/// same vocabulary.
enum JSON {
    /// A JSON string literal. Escapes quotes, backslashes and every control character, so a
    /// stranger's device name can never break a line or the object.
    static func string(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let h = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A JSON number for a measurement: whole-number quantities without a fraction, others in
    /// Swift's shortest round-trip form (`-0.5`, `50.0`) at 15 significant digits (no float
    /// noise: `NumberText.significant`); non-finite values as `null`.
    static func number(_ value: Double, integer: Bool = false) -> String {
        guard value.isFinite else { return "null" }
        if integer, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return NumberText.significant(value).description
    }

    /// ISO 8601 UTC time with microseconds where they are not zero.
    static func time(micros: Int64) -> String { Timestamp.iso8601(micros: micros, localOffsetSeconds: nil) }

    /// One reading as a JSON object (without newline).
    static func reading(_ r: Reading, includeTime: Bool) -> String {
        var s = "{\"address\":\"\(r.address)\",\"model\":" + string(r.model)
        for m in r.measurements {
            s += ",\"\(m.quantity.key)\":" + number(m.value, integer: m.quantity.isInteger)
        }
        s += ",\"decoder\":\"\(r.decoderID)\""
        if let f = r.frameKind { s += ",\"frame\":" + string(f) }
        if r.addressType != .publicDevice { s += ",\"address_type\":\"\(r.addressType)\"" }
        if let rssi = r.rssi { s += ",\"rssi_dbm\":\(rssi)" }
        if let n = r.name { s += ",\"name\":" + string(n) }
        if includeTime, r.timeMicros != 0 { s += ",\"time\":\"" + time(micros: r.timeMicros) + "\"" }
        if !r.warnings.isEmpty { s += ",\"warnings\":[" + r.warnings.map { string($0.description) }.joined(separator: ",") + "]" }
        if !r.events.isEmpty {
            s += ",\"events\":[" + r.events.map { "{\"event\":\"\($0.kind.rawValue)\",\"value\":" + string($0.value) + "}" }
                .joined(separator: ",") + "]"
        }
        return s + "}"
    }

    /// An advertisement nothing decoded, with its parsed AD fields (`--all`).
    static func undecoded(_ a: Advertisement, _ ad: AdvertisingData, includeTime: Bool) -> String {
        var s = "{\"address\":\"\(a.address)\",\"model\":null"
        if a.addressType != .publicDevice { s += ",\"address_type\":\"\(a.addressType)\"" }
        if let rssi = a.rssi { s += ",\"rssi_dbm\":\(rssi)" }
        if let f = ad.flags { s += ",\"flags\":\(f)" }
        if let n = ad.displayName { s += ",\"name\":" + string(n) }
        if !ad.serviceUUIDs.isEmpty {
            s += ",\"service_uuids\":[" + ad.serviceUUIDs.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        }
        if !ad.serviceData.isEmpty {
            s += ",\"service_data\":{" + ad.serviceData.map { "\"\($0.uuid)\":\"\(Hex.encode($0.data))\"" }
                .joined(separator: ",") + "}"
        }
        if !ad.manufacturerData.isEmpty {
            s += ",\"manufacturer_data\":{" + ad.manufacturerData.map { "\"\($0.companyID)\":\"\(Hex.encode($0.data))\"" }
                .joined(separator: ",") + "}"
        }
        if let t = ad.txPower { s += ",\"tx_power_dbm\":\(t)" }
        if let ap = ad.appearance { s += ",\"appearance\":\(ap)" }
        if ad.truncated { s += ",\"truncated\":true" }
        if includeTime, a.timeMicros != 0 { s += ",\"time\":\"" + time(micros: a.timeMicros) + "\"" }
        s += ",\"data\":\"\(Hex.encode(a.data))\""
        return s + "}"
    }
}
