import SensorDecode

/// Reassembles LE Extended Advertising Report fragments ("more to come", Vol 4 Part E §7.7.65.13)
/// into whole advertisements, per advertiser and advertising set.
///
/// Invariants:
///  (1) at most `maxPending` chains are held; a new chain beyond that evicts the oldest, so a radio
///      full of strangers cannot grow memory;
///  (2) a chain never exceeds `maxLength` bytes (1650, the largest advertising data the spec allows);
///      a longer one is dropped whole;
///  (3) a "truncated" final fragment drops its chain: a partial advertisement is never decoded;
///  (4) the later fragments of a chain dropped for length or evicted are discarded up to and
///      including its final fragment (that tail alone is a partial advertisement too); at most
///      `maxPending` such keys are remembered.
/// Not thread-safe: owned by the one loop that reads the source.
public struct ReportAssembler: Sendable {
    public static let maxLength = 1650
    public let maxPending: Int
    private var pending: [Key: [UInt8]] = [:]
    private var order: [Key] = []
    /// Keys whose chain was dropped mid-way (invariant 4), oldest first.
    private var discarding: [Key] = []
    /// Chains dropped because they were truncated, too long, or evicted.
    public private(set) var dropped = 0

    struct Key: Hashable, Sendable {
        let address: BDAddress
        let addressType: UInt8
        let sid: UInt8?
    }

    /// `maxPending` below 1 is taken as 1 (a chain must be holdable for reassembly to work at all).
    public init(maxPending: Int = 64) { self.maxPending = max(1, maxPending) }

    /// Feeds one report; returns it whole when it completes an advertisement, `nil` while more is
    /// expected or when it was dropped. Legacy reports pass straight through.
    public mutating func add(_ report: AdvertisingReport) -> AdvertisingReport? {
        guard report.isExtended else { return report }
        let key = Key(address: report.address, addressType: report.addressType, sid: report.sid)
        if let i = discarding.firstIndex(of: key) {
            // The rest of a dropped chain: swallow it; its final fragment ends the discarding.
            if report.dataStatus != .moreToCome { discarding.remove(at: i) }
            return nil
        }
        let earlier = pending.removeValue(forKey: key)
        if earlier != nil { order.removeAll { $0 == key } }
        switch report.dataStatus {
        case .complete:
            guard let earlier else { return report }
            var whole = report
            whole.data = (earlier + report.data)[...]
            guard whole.data.count <= Self.maxLength else { dropped += 1; return nil }  // final: nothing follows
            whole.dataStatus = .complete
            return whole
        case .moreToCome:
            let data = (earlier ?? []) + report.data
            guard data.count <= Self.maxLength else {
                dropped += 1
                discard(key)
                return nil
            }
            if order.count >= maxPending {
                let evicted = order.removeFirst()
                pending.removeValue(forKey: evicted)
                dropped += 1
                discard(evicted)
            }
            pending[key] = data
            order.append(key)
            return nil
        case .truncated, .reserved:
            dropped += 1
            return nil
        }
    }

    /// Calls `body` with each whole advertisement among one event's `reports`, stamped with the
    /// event's receive time, in order: its header and its bytes (a slice of the event's packet, or
    /// of a reassembled chain: no copy). The one loop from reports to
    /// advertisements: captures (`AdvertisementExtractor`) and live scanning (`ScanControl`) both
    /// go through it.
    public mutating func forEachAdvertisement(
        in reports: borrowing AdvertisingReports, timeMicros: Int64,
        _ body: (AdvertisementHeader, ArraySlice<UInt8>) -> Void
    ) {
        for k in reports.indices {
            // Legacy reports are always whole: read straight from the event, no trip through `add`
            // (copying the report in and out was measurable per advertisement).
            if !reports.extended {
                let (header, data) = reports.legacyAdvertisement(k, timeMicros: timeMicros)
                let start = reports.body.startIndex
                body(header, reports.body[(start + data.lowerBound)..<(start + data.upperBound)])
            } else if let whole = add(reports[k]) {
                body(whole.header(timeMicros: timeMicros), whole.data)
            }
        }
    }

    private mutating func discard(_ key: Key) {
        if discarding.count >= maxPending { discarding.removeFirst() }
        discarding.append(key)
    }

    /// Chains waiting for their next fragment.
    public var pendingCount: Int { pending.count }
}
