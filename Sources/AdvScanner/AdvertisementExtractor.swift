import SensorDecode

/// HCI packets → whole advertisements: the one report parse path, for live scanning
/// (`ScanControl`), captures (`replay`) and event lines (`decode`). Parses each event packet with
/// `HCIEvent.parse`, hands every whole advertisement of an advertising report event (extended
/// fragments reassembled by `ReportAssembler`) to the caller, stamped with its packet's time, and
/// counts the events it saw and the malformed ones it dropped. Not thread-safe: one loop owns it.
public struct AdvertisementExtractor: Sendable {
    public private(set) var assembler = ReportAssembler()
    public private(set) var events = 0
    public private(set) var malformedEvents = 0
    /// The first malformed event's error, for a one-line message.
    public private(set) var firstMalformed: HCIParseError?

    /// What one packet was.
    public enum Outcome: Sendable, Equatable {
        /// An advertising report event: this many whole advertisements went to the caller (none
        /// while an extended chain waits for its next fragment).
        case advertisements(Int)
        /// Any other event, parsed (device events, Hardware Error, Command Complete, …).
        case other(HCIEvent)
        /// An event that failed to parse; counted and dropped, never half-read.
        case malformed(HCIParseError)
        /// Not an event packet (commands, ACL data): ignored.
        case notAnEvent
    }

    public init() {}

    /// Calls `body` with each advertisement `packet` carries, in order: its header and its bytes
    /// (a slice of the packet, or of a reassembled chain: no copy). Collects nothing, so a
    /// replay's millions of events allocate no lists.
    @discardableResult
    public mutating func forEachAdvertisement(
        in packet: HCIPacket, _ body: (AdvertisementHeader, ArraySlice<UInt8>) -> Void
    ) -> Outcome {
        guard packet.type == .event else { return .notAnEvent }  // events only ever travel controller → host
        events += 1
        switch HCIEvent.parse(packet.bytes) {
        case .failure(let e):
            malformedEvents += 1
            if firstMalformed == nil { firstMalformed = e }
            return .malformed(e)
        case .success(.advertisingReports(let reports)):
            var count = 0
            assembler.forEachAdvertisement(in: reports, timeMicros: packet.timeMicros) { header, bytes in
                count += 1
                body(header, bytes)
            }
            return .advertisements(count)
        case .success(let other):
            return .other(other)
        }
    }

    /// Forgets the extended chains waiting for fragments (a re-armed scan starts afresh); the
    /// counts stay.
    public mutating func dropPendingChains() {
        assembler = ReportAssembler(maxPending: assembler.maxPending)
    }
}
