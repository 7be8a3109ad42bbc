/// A capture file as an `HCIPacketSource`: the HCI packets of a btsnoop, pcap or pcapng file, in
/// file order, with their recorded times. Records that are not HCI packets are skipped and counted
/// (`reader.skipped`); direction and type are kept so a capture can be re-written.
///
/// `next(timeout:)` never waits: a file is always readable, so `timeout` is ignored and
/// `fileDescriptor` is `nil`. After the last record it returns `.end` (again on every later call);
/// a truncated or corrupt file throws `SourceError.format` naming the offset, and keeps throwing it.
/// Not thread-safe: one loop owns it.
public final class CaptureSource: HCIPacketSource {
    public let reader: CaptureReader
    /// Only packets of this controller index (monitor captures can hold several); `nil` = all.
    public let adapter: UInt16?

    public var name: String { reader.path }
    public var fileDescriptor: Int32? { nil }

    public init(path: String, adapter: UInt16? = nil) throws(SourceError) {
        reader = try CaptureReader(path: path)
        self.adapter = adapter
    }

    public func next(timeout: Double) throws(SourceError) -> SourceEvent {
        while let record = try reader.nextRecord() {
            // `consume`: the packet moves into the event instead of being copied and the record freed.
            if case .packet(let packet, let index) = consume record, adapter == nil || adapter == index {
                return .packet(packet)
            }
        }
        return .end
    }
}

/// Opens a capture file, its format sniffed from the first bytes (btsnoop 1001/1002/2001, pcap
/// 187/201/254 in either byte order with µs or ns stamps, pcapng).
/// - Throws: `.system` when the file cannot be opened or read, `.format` when it is not a capture
///   of HCI packets.
public func openCapture(path: String) throws(SourceError) -> any HCIPacketSource {
    try CaptureSource(path: path)
}
