import SensorDecode

/// JSON text for the line-oriented outputs (`decode`, `scan --json`, `replay --jsonl`,
/// `export --jsonl`) and the MQTT state payloads (`storedRow`, JSONStoredRow.swift). One object per line; keys are the `Quantity` keys, so every output speaks the
/// same vocabulary.
enum JSON {
    /// A JSON string literal (`JSONWriter.string`): quotes, backslashes and every control
    /// character escaped, so a stranger's device name can never break a line or the object.
    static func string(_ s: String) -> String {
        var w = JSONWriter(JSONByteArray())
        w.string(s)
        return w.sink.text
    }

    /// A JSON number for a measurement (`JSONWriter.number`): whole-number quantities without a
    /// fraction, others in Swift's shortest round-trip form (`-0.5`, `50.0`) at 15 significant
    /// digits (no float noise: `NumberText.significant`); non-finite values as `null`.
    static func number(_ value: Double, integer: Bool = false) -> String {
        var w = JSONWriter(JSONByteArray())
        w.number(value, integer: integer)
        return w.sink.text
    }

    /// ISO 8601 UTC time with microseconds where they are not zero.
    static func time(micros: Int64) -> String { Timestamp.iso8601(micros: micros, localOffsetSeconds: nil) }

    /// One reading as a JSON object (without newline): `JSONWriter.reading`.
    static func reading(_ r: Reading, includeTime: Bool) -> String {
        var w = JSONWriter(JSONByteArray())
        w.reading(r, includeTime: includeTime)
        return w.sink.text
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
