import SensorDecode
import Testing

/// Small helpers shared by the group A decoder tests (BTHome, Xiaomi, Qingping, Eddystone, iBeacon).
/// A namespace, so the names cannot clash with other test files.
enum GroupA {
    static let defaultAddress = BDAddress("11:22:33:44:55:66")!

    /// AD bytes holding one 16-bit-UUID service data structure with `payload`.
    static func serviceDataAD(_ uuid: UInt16, _ payload: [UInt8]) -> [UInt8] {
        [UInt8(payload.count + 3), 0x16, UInt8(uuid & 0xFF), UInt8(uuid >> 8)] + payload
    }

    static func bytes(_ hex: String) -> [UInt8] {
        guard let b = Hex.decode(hex) else {
            Issue.record("bad hex in test: \(hex)")
            return []
        }
        return b
    }

    static func advertisement(_ ad: [UInt8], from address: BDAddress = defaultAddress) -> Advertisement {
        Advertisement(address: address, data: ad)
    }

    static func decode(_ decoder: some SensorDecoder, _ ad: [UInt8], from address: BDAddress = defaultAddress)
        -> DecodeOutcome
    {
        let adv = advertisement(ad, from: address)
        return decoder.decode(adv, AdvertisingData(parsing: adv.data))
    }

    static func decode(
        _ decoder: some SensorDecoder, uuid: UInt16, _ payloadHex: String,
        from address: BDAddress = defaultAddress
    ) -> DecodeOutcome {
        decode(decoder, serviceDataAD(uuid, bytes(payloadHex)), from: address)
    }

    /// The readings of an outcome, recording an issue when there are none.
    static func readings(_ outcome: DecodeOutcome, sourceLocation: SourceLocation = #_sourceLocation) -> [Reading] {
        guard case .readings(let r) = outcome else {
            Issue.record("expected readings, got \(outcome)", sourceLocation: sourceLocation)
            return []
        }
        return r
    }

    /// Measurements of all readings by key.
    static func values(_ outcome: DecodeOutcome, sourceLocation: SourceLocation = #_sourceLocation) -> [String: Double]
    {
        var v: [String: Double] = [:]
        for r in readings(outcome, sourceLocation: sourceLocation) {
            for m in r.measurements { v[m.quantity.key] = m.value }
        }
        return v
    }

    static func isMalformed(_ outcome: DecodeOutcome) -> Bool {
        if case .malformed = outcome { return true }
        return false
    }

    static func expectClose(
        _ got: Double?, _ want: Double, tolerance: Double = 1e-9, _ what: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let got else {
            Issue.record("\(what): missing, expected \(want)", sourceLocation: sourceLocation)
            return
        }
        #expect(abs(got - want) <= tolerance, "\(what): \(got), expected \(want)", sourceLocation: sourceLocation)
    }

    /// Runs `decoder` over every prefix of `payload` (AD framing kept consistent) and over every
    /// prefix of the whole AD (framing cut too). Returns the outcomes of the payload prefixes shorter
    /// than the full payload; reaching the end without trapping is the "never crashes" part.
    @discardableResult
    static func everyTruncation(_ decoder: some SensorDecoder, uuid: UInt16, _ payload: [UInt8]) -> [DecodeOutcome] {
        var outcomes: [DecodeOutcome] = []
        for n in 0..<payload.count {
            outcomes.append(decode(decoder, serviceDataAD(uuid, Array(payload.prefix(n)))))
        }
        let whole = serviceDataAD(uuid, payload)
        for n in 0..<whole.count { _ = decode(decoder, Array(whole.prefix(n))) }
        return outcomes
    }

    /// Decoded values of a peer vector with one decoder, plus the peers' other units
    /// (`pressure_pa`, `voltage_mv`) derived from ours so that `expectMatches` can compare them.
    static func vectorValues(_ v: PeerVector, _ decoder: some SensorDecoder) -> [String: Double] {
        var values: [String: Double] = [:]
        if case .readings(let rs) = decode(decoder, v.adBytes, from: v.address) {
            for r in rs { for m in r.measurements { values[m.quantity.key] = m.value } }
        }
        if let hpa = values["pressure_hpa"] { values["pressure_pa"] = hpa * 100 }
        if let volts = values["voltage_v"] { values["voltage_mv"] = volts * 1000 }
        return values
    }
}
