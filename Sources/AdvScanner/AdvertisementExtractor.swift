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

    /// Calls `body` with each advertisement `packet` carries (none for commands, ACL data, other
    /// events), in order: its header and its bytes (a slice of the packet). Collects
    /// nothing, so a replay's millions of events allocate no lists.
    public mutating func forEachAdvertisement(
        in packet: HCIPacket, _ body: (AdvertisementHeader, ArraySlice<UInt8>) -> Void
    ) {
        guard packet.type == .event else { return }  // events only ever travel controller → host
        events += 1
        let time = packet.timeMicros
        if HCIEvent.withWellFormedAdvertisingReports(packet.bytes, { assembler.forEachAdvertisement(in: $0, timeMicros: time, body) }) {
            return
        }
        // Any other event, or a malformed one: parsed in full, for its error.
        let parsed = HCIEvent.parse(packet.bytes)
        switch consume parsed {
        case .failure(let e):
            malformedEvents += 1
            if firstMalformed == nil { firstMalformed = e }
        case .success(.advertisingReports(let reports)):
            assembler.forEachAdvertisement(in: reports, timeMicros: packet.timeMicros, body)
        case .success:
            break
        }
    }
}
