import SensorDecode

/// HCI packets → whole advertisements, for sources without a controller conversation (captures).
/// Parses event packets, keeps the advertising reports (every report of every event), reassembles
/// extended fragments, stamps each advertisement with its packet's time, and counts what it drops.
/// Not thread-safe: one loop owns it.
public struct AdvertisementExtractor: Sendable {
    public private(set) var assembler = ReportAssembler()
    public private(set) var events = 0
    public private(set) var malformedEvents = 0
    /// The first malformed event's error, for a one-line message.
    public private(set) var firstMalformed: HCIParseError?

    public init() {}

    /// The advertisements carried by `packet` (none for commands, ACL data, other events).
    public mutating func advertisements(from packet: HCIPacket) -> [Advertisement] {
        guard packet.type == .event else { return [] }  // events only ever travel controller → host
        events += 1
        switch HCIEvent.parse(packet.bytes) {
        case .failure(let e):
            malformedEvents += 1
            if firstMalformed == nil { firstMalformed = e }
            return []
        case .success(.advertisingReports(let reports)):
            var out: [Advertisement] = []
            out.reserveCapacity(reports.count)
            for r in reports {
                if let whole = assembler.add(r) { out.append(whole.advertisement(timeMicros: packet.timeMicros)) }
            }
            return out
        case .success:
            return []
        }
    }
}
