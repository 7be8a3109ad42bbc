/// A FIFO of HCI packets with amortised O(1) removal from the front: an array and a head index,
/// compacted when it empties. Used where packets wait for the loop (the H4 stream's framed
/// packets, the command channel's backlog). Not thread-safe: one loop owns it.
struct PacketQueue: Sendable {
    private var items: [HCIPacket] = []
    private var head = 0

    var count: Int { items.count - head }
    var isEmpty: Bool { head >= items.count }

    mutating func append(_ p: HCIPacket) { items.append(p) }

    mutating func popFirst() -> HCIPacket? {
        guard head < items.count else { return nil }
        let p = items[head]
        head += 1
        if head == items.count { removeAll() }
        return p
    }

    mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        head = 0
    }
}
