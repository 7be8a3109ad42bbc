import SensorDecode
import Testing

/// What every decoder test uses: advertisements built from AD structures, one decoder or the
/// standard registry run over them, outcomes taken apart, and the truncation check. A namespace,
/// so the names cannot clash with other test files.
enum Kit {
    /// The advertiser of every test advertisement that names none.
    static let address = BDAddress("11:22:33:44:55:66")!

    // MARK: AD bytes

    static func bytes(_ hex: String) -> [UInt8] {
        guard let b = Hex.decode(hex) else {
            Issue.record("bad hex in test: \(hex)")
            return []
        }
        return b
    }

    /// One AD structure: length, type, value.
    static func ad(_ type: UInt8, _ value: [UInt8]) -> [UInt8] { [UInt8(value.count + 1), type] + value }
    static func name(_ text: String) -> [UInt8] { ad(0x09, Array(text.utf8)) }
    static func manufacturer(_ company: UInt16, _ data: [UInt8]) -> [UInt8] {
        ad(0xFF, [UInt8(company & 0xFF), UInt8(company >> 8)] + data)
    }
    static func serviceData(_ uuid: UInt16, _ data: [UInt8]) -> [UInt8] {
        ad(0x16, [UInt8(uuid & 0xFF), UInt8(uuid >> 8)] + data)
    }
    /// AD bytes holding one 16-bit-UUID service data structure with `payload`.
    static func serviceDataAD(_ uuid: UInt16, _ payload: [UInt8]) -> [UInt8] { serviceData(uuid, payload) }

    static func advertisement(_ data: [UInt8], from address: BDAddress = Kit.address) -> Advertisement {
        Advertisement(address: address, data: data)
    }

    // MARK: decoding

    /// Runs one decoder directly (not through the registry).
    static func decode(_ decoder: some SensorDecoder, _ data: [UInt8], from address: BDAddress = Kit.address)
        -> DecodeOutcome
    {
        decoder.decode(advertisement(data, from: address))
    }

    /// The same, for a payload in one service data structure.
    static func decode(
        _ decoder: some SensorDecoder, uuid: UInt16, _ payloadHex: String, from address: BDAddress = Kit.address
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

    /// The single reading of an outcome, or `nil` (and a recorded issue) otherwise.
    static func reading(_ outcome: DecodeOutcome, sourceLocation: SourceLocation = #_sourceLocation) -> Reading? {
        guard case .readings(let r) = outcome, r.count == 1 else {
            Issue.record("expected one reading, got \(outcome)", sourceLocation: sourceLocation)
            return nil
        }
        return r[0]
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

    /// The length of the acceleration vector in `values` (`acceleration_{x,y,z}_g`), NaN when an
    /// axis is missing: a tag at rest measures 1 g, which checks an accelerometer's scaling.
    static func accelerationMagnitude(_ values: [String: Double]) -> Double {
        ["acceleration_x_g", "acceleration_y_g", "acceleration_z_g"].map { values[$0] ?? .nan }.map { $0 * $0 }
            .reduce(0, +).squareRoot()
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

    // MARK: truncation

    /// How a format may read a frame cut short.
    enum Layout {
        /// Fixed fields: no prefix of the frame yields a measurement.
        case fixed
        /// Fixed fields, but a prefix of one of these lengths is a shorter frame of the format
        /// (another model's), which may decode.
        case frames(lengths: Set<Int>)
        /// A list of objects (TLVs): a prefix cut at an object boundary is a frame of fewer
        /// objects, so what it yields must be the whole frame's first measurements, in order.
        case objects
    }

    /// Feeds every prefix of `value` (re-framed as a whole AD structure by `frame`) and every
    /// prefix of the framed bytes to `decoder` and to the standard registry, and asserts what a
    /// truncated frame may yield (`layout`): never a measurement the whole frame does not have.
    /// Returns the decoder's outcomes for the re-framed prefixes, shortest first.
    @discardableResult
    static func truncations(
        _ decoder: some SensorDecoder, value: [UInt8], layout: Layout = .fixed, from address: BDAddress = Kit.address,
        frame: ([UInt8]) -> [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) -> [DecodeOutcome] {
        let registry = Registry.standard()
        var all: [Measurement] = []
        if case .readings(let rs) = decode(decoder, frame(value), from: address) { all = rs.flatMap(\.measurements) }
        func check(_ readings: [Reading], length: Int, _ what: String) {
            let got = readings.filter { $0.decoderID == decoder.id }.flatMap(\.measurements)
            switch layout {
            case .fixed:
                #expect(got.isEmpty, "\(what) yields \(got)", sourceLocation: sourceLocation)
            case .frames(let lengths):
                #expect(got.isEmpty || lengths.contains(length), "\(what) yields \(got)", sourceLocation: sourceLocation)
            case .objects:
                #expect(
                    got.count <= all.count && Array(all.prefix(got.count)) == got,
                    "\(what) yields \(got), not a prefix of \(all)", sourceLocation: sourceLocation)
            }
        }
        func readings(_ outcome: DecodeOutcome) -> [Reading] {
            if case .readings(let r) = outcome { r } else { [] }
        }
        var outcomes: [DecodeOutcome] = []
        for n in 0..<value.count {
            let data = frame(Array(value.prefix(n)))
            let outcome = decode(decoder, data, from: address)
            outcomes.append(outcome)
            check(readings(outcome), length: n, "a frame cut to \(n) bytes")
            check(registry.decode(advertisement(data, from: address)).readings, length: n, "a frame cut to \(n) bytes (registry)")
        }
        // The AD bytes cut anywhere: a structure cut short is dropped, so the frame is never read.
        let full = frame(value)
        for n in 0..<full.count {
            let data = Array(full.prefix(n))
            check(readings(decode(decoder, data, from: address)), length: -1, "AD bytes cut to \(n)")
            check(registry.decode(advertisement(data, from: address)).readings, length: -1, "AD bytes cut to \(n) (registry)")
        }
        return outcomes
    }

    /// The same for a payload in one 16-bit service data structure.
    @discardableResult
    static func everyTruncation(
        _ decoder: some SensorDecoder, uuid: UInt16, _ payload: [UInt8], layout: Layout = .fixed,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [DecodeOutcome] {
        truncations(decoder, value: payload, layout: layout, frame: { serviceData(uuid, $0) }, sourceLocation: sourceLocation)
    }

    // MARK: peer vectors

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

    /// The peer's expected values in our vocabulary: `@sub` suffixes dropped, mV → V, Pa → hPa,
    /// and (for multi-probe devices, `probes: true`) theengs' `temperature_c`/`temperatureN_c` →
    /// `temperature_probe_1_c`/`temperature_probe_N_c`.
    static func expected(_ vector: PeerVector, probes: Bool = false) -> [String: Double] {
        var out: [String: Double] = [:]
        for (key, value) in vector.expected {
            var k = String(key.split(separator: "@").first ?? "")
            var v = value
            if k == "voltage_mv" { (k, v) = ("voltage_v", value / 1000) }
            if k == "pressure_pa" { (k, v) = ("pressure_hpa", value / 100) }
            if probes, k.hasPrefix("temperature"), !k.hasPrefix("temperature_probe") {
                let digits = k.dropFirst("temperature".count).prefix { $0.isNumber }
                k = "temperature_probe_\(digits.isEmpty ? "1" : String(digits))_c"
            }
            out[k] = v
        }
        return out
    }

    /// A peer key that holds another unit than its name says, for one of our decoders: the peer's
    /// value is our `ours` times `factor`. Listed once here; the family tests and
    /// PeerVectorCoverageTests both compare through it.
    struct PeerUnit {
        let peerKey: String
        let ours: Quantity
        let factor: Double
        let why: String
    }

    /// By our decoder id.
    static let peerUnits: [String: PeerUnit] = [
        "tpms": PeerUnit(
            peerKey: "pressure_hpa", ours: .pressureKPa, factor: 0.01,
            why: "theengs reports the pressure in bar under \"pres\" (the vectors' pressure_hpa); we store kPa"),
        "michelin_tms": PeerUnit(
            peerKey: "pressure_hpa", ours: .pressureKPa, factor: 10, why: "ble_monitor states hPa (mbar); we store tyre pressures in kPa"),
        "holyiot": PeerUnit(
            peerKey: "pressure_hpa", ours: .pressureHPa, factor: 100,
            why: "ble_monitor's pressure is Pa (101300) though its key says hPa; we store hPa"),
    ]

    /// What differs between a vector's peer values and ours (empty: it matches): each expected value
    /// within 0.01 unless its key is in `ignoring`, `unit`'s peer key through its factor, and each
    /// `expected_invalid` key absent.
    static func mismatches(
        _ vector: PeerVector, probes: Bool = false, ignoring: Set<String> = ["rssi_dbm"], unit: PeerUnit? = nil
    ) -> [String] {
        let decoded = vector.decodedValues()
        var want = expected(vector, probes: probes)
        var mismatches: [String] = []
        if let unit, let peer = vector.expected[unit.peerKey] {
            want[unit.peerKey] = nil
            let got = decoded[unit.ours.key].map { $0 * unit.factor }
            if got.map({ abs($0 - peer) > 0.01 }) ?? true {
                mismatches.append("\(unit.peerKey) = \(unit.ours.key) × \(unit.factor) = \(got.map { "\($0)" } ?? "missing"), peer expects \(peer)")
            }
        }
        for (key, value) in want where !ignoring.contains(key) {
            if let got = decoded[key] {
                if abs(got - value) > 0.01 { mismatches.append("\(key) = \(got), peer expects \(value)") }
            } else {
                mismatches.append("\(key) missing")
            }
        }
        for key in vector.expectedInvalid {
            let k = String(key.split(separator: "@").first ?? "")
            if decoded[k] != nil { mismatches.append("\(k) decoded though the peer asserts it invalid") }
        }
        return mismatches
    }

    /// The entry of `excluded` naming `vector`: a key names the vectors whose locator starts with it,
    /// or whose "source locator" does (for a locator two peers share, as bleparser's and ble_monitor's).
    static func exclusion(of vector: PeerVector, in excluded: [String: String]) -> (key: String, reason: String)? {
        excluded.first { vector.locator.hasPrefix($0.key) || "\(vector.source) \(vector.locator)".hasPrefix($0.key) }
            .map { (key: $0.key, reason: $0.value) }
    }

    /// Checks every vector (`mismatches`). Vectors that `excluded` names are checked to still differ
    /// (so a stale exclusion is noticed) and otherwise skipped; the reason is the value.
    static func checkVectors(
        _ vectors: [PeerVector], probes: (PeerVector) -> Bool = { _ in false }, ignoring: Set<String> = ["rssi_dbm"],
        unit: PeerUnit? = nil, excluded: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!vectors.isEmpty, "no vectors selected", sourceLocation: sourceLocation)
        var usedExclusions = Set<String>()
        for vector in vectors {
            let mismatches = mismatches(vector, probes: probes(vector), ignoring: ignoring, unit: unit)
            if let (key, reason) = exclusion(of: vector, in: excluded) {
                usedExclusions.insert(key)
                #expect(
                    !mismatches.isEmpty, "\(vector): excluded (\(reason)) but now matches; drop the exclusion",
                    sourceLocation: sourceLocation)
            } else if !mismatches.isEmpty {
                Issue.record(
                    "\(vector): \(mismatches.joined(separator: "; ")); decoded \(vector.decodedValues())",
                    sourceLocation: sourceLocation)
            }
        }
        #expect(
            usedExclusions == Set(excluded.keys),
            "exclusions naming no vector: \(Set(excluded.keys).subtracting(usedExclusions))",
            sourceLocation: sourceLocation)
    }
}
