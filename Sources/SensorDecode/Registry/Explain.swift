/// Why an advertisement decoded as it did, for `decode --explain` and for whoever writes the next
/// decoder: which decoders were asked, what in the advertisement made the registry ask each, and
/// what each answered.
extension Registry {
    /// One decoder asked about one advertisement.
    public struct Explanation: Sendable, Equatable {
        public let decoder: String
        /// The decoder's selectors that the advertisement carries: why it was asked.
        public let selectedBy: [Selector]
        public let outcome: DecodeOutcome

        public init(decoder: String, selectedBy: [Selector], outcome: DecodeOutcome) {
            self.decoder = decoder
            self.selectedBy = selectedBy
            self.outcome = outcome
        }

        /// `kkm_sensor (service data 0xFEAA): not mine`, `ruuvi (company 0x0499): malformed: …`.
        public var line: String {
            "\(decoder) (\(selectedBy.map(\.description).joined(separator: ", "))): \(outcome.summary)"
        }
    }

    /// Every decoder `ad` selects, in list order (the order `decode` runs them), each with the
    /// selectors that matched and its outcome. Empty when no decoder's selector matches.
    public func explain(_ ad: Advertisement) -> [Explanation] {
        candidates(for: ad).map { i in
            let d = decoders[i]
            return Explanation(
                decoder: d.id, selectedBy: d.selectors.filter { $0.matches(ad) }, outcome: d.decode(ad))
        }
    }

    /// What a decoder could be selected by in `ad`: its 16-bit service data UUIDs, company ids,
    /// manufacturer-data lengths and local name, in AD order (for "no decoder selects any of …").
    public static func keys(of ad: Advertisement) -> [Selector] {
        var keys: [Selector] = []
        for s in ad.fields.serviceData {
            if case .uuid16(let u) = s.uuid { keys.append(.serviceData(uuid16: u)) }
        }
        for m in ad.manufacturerData {
            keys.append(.manufacturer(company: m.companyID))
            keys.append(.manufacturerLength(m.value.count))
        }
        if let name = ad.fields.localName { keys.append(.localName(String(decoding: name, as: UTF8.self))) }
        return keys
    }
}

extension Selector: CustomStringConvertible {
    /// `service data 0xFEAA`, `company 0x0499`, `manufacturer data of 18 bytes`, `local name "iBBQ"`
    /// (the name escaped: it came from the radio).
    public var description: String {
        switch self {
        case .serviceData(let uuid): "service data 0x\(Hex.number(uuid, digits: 4).uppercased())"
        case .manufacturer(let company): "company 0x\(Hex.number(company, digits: 4).uppercased())"
        case .manufacturerLength(let n): "manufacturer data of \(n) bytes"
        case .localName(let name): "local name \"\(DisplayText.escape(Array(name.utf8)[...]))\""
        }
    }

    /// Whether `ad` carries what this selector names (as the registry's tables select).
    func matches(_ ad: Advertisement) -> Bool {
        switch self {
        case .serviceData(let uuid): ad.serviceData(uuid16: uuid) != nil
        case .manufacturer(let company): ad.manufacturerData(company: company) != nil
        case .manufacturerLength(let n): ad.manufacturerData.contains { $0.value.count == n }
        case .localName(let name): ad.localNameIs(name)
        }
    }
}

extension DecodeOutcome {
    /// `2 readings: temperature_c, humidity_pct`, `not mine`, `malformed: why`.
    public var summary: String {
        switch self {
        case .readings(let rs):
            let keys = rs.flatMap(\.measurements).map(\.quantity.key)
            return "\(rs.count) reading\(rs.count == 1 ? "" : "s")" + (keys.isEmpty ? "" : ": " + keys.joined(separator: ", "))
        case .notMine: return "not mine"
        case .malformed(let why): return "malformed: \(why)"
        }
    }
}
