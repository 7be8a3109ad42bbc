/// Splits an H4 byte stream (UART/TCP HCI transport, Core Specification Vol 4 Part A) into packets.
///
/// | indicator | packet | header after the indicator          | length field             |
/// |-----------|--------|-------------------------------------|--------------------------|
/// | 0x01      | command| opcode (2) · length (1)             | byte 2                   |
/// | 0x02      | ACL    | handle+flags (2) · length (2, LE)   | bytes 2–3                |
/// | 0x03      | SCO    | handle+flags (2) · length (1)       | byte 2                   |
/// | 0x04      | event  | code (1) · length (1)               | byte 1                   |
/// | 0x05      | ISO    | handle+flags (2) · length (2, LE)   | bytes 2–3, low 14 bits   |
///
/// Only the controller → host direction is framed: 0x01 counts as garbage.
///
/// H4 has no sync word or checksum, so framing is lost for good if one byte goes missing (a UART
/// overrun, attaching in the middle of a packet: vm-e2e finding 11). Resynchronisation rule: a
/// byte that is not a known indicator, an event whose code is not one a controller sends (0x00,
/// the stack-internal 0xFD, or above 0x59 other than the vendor 0xFF), or a data packet longer
/// than `maxDataLength` is skipped one byte at a time and counted in `skippedBytes`; the next
/// plausible header starts a packet again. Events that still parse wrong are dropped later by
/// `HCIEvent.parse`, so a false lock costs at most one packet.
///
/// Memory: `buffer` never holds more than one packet plus one read (invariant: after `feed`, the
/// unconsumed bytes are < one complete packet).
public struct H4Framer: Sendable {
    /// Larger data packets than this are taken as garbage (a scanner never receives ACL data; LE
    /// ACL/ISO payloads are far below this).
    public static let maxDataLength = 4096

    private var buffer: [UInt8] = []
    private var start = 0
    public private(set) var skippedBytes = 0

    public init() {}

    /// Bytes waiting for the rest of their packet.
    public var pendingBytes: Int { buffer.count - start }

    /// Forgets a partial packet (after a reconnect: the new stream starts fresh).
    public mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        start = 0
    }

    /// Appends received bytes and returns every packet they complete, in order.
    public mutating func feed<C: Collection>(_ bytes: C) -> [(HCIPacketType, [UInt8])] where C.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        var out: [(HCIPacketType, [UInt8])] = []
        while start < buffer.count {
            let indicator = buffer[start]
            // Controllers never send commands (0x01): in this direction it is garbage too.
            guard let type = HCIPacketType(rawValue: indicator), type != .command else {
                start += 1
                skippedBytes += 1
                continue
            }
            let avail = buffer.count - start - 1
            let headerLength: Int
            switch type {
            case .event: headerLength = 2
            case .command, .scoData: headerLength = 3
            case .aclData, .isoData: headerLength = 4
            }
            guard avail >= headerLength else { break }
            let h = start + 1
            let bodyLength: Int
            switch type {
            case .event:
                let code = buffer[h]
                guard code != 0x00, code <= 0x59 || code == 0xFF else {
                    start += 1
                    skippedBytes += 1
                    continue
                }
                bodyLength = Int(buffer[h + 1])
            case .command, .scoData:
                bodyLength = Int(buffer[h + 2])
            case .aclData:
                bodyLength = Int(buffer[h + 2]) | Int(buffer[h + 3]) << 8
            case .isoData:
                bodyLength = (Int(buffer[h + 2]) | Int(buffer[h + 3]) << 8) & 0x3FFF
            }
            if bodyLength > Self.maxDataLength {
                start += 1
                skippedBytes += 1
                continue
            }
            guard avail >= headerLength + bodyLength else { break }
            out.append((type, Array(buffer[h..<(h + headerLength + bodyLength)])))
            start = h + headerLength + bodyLength
        }
        // Compact: keep only the unconsumed tail.
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        return out
    }
}
