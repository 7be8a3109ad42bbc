import SensorDecode

/// The seam between where HCI packets come from and what the scanner does with them.
///
/// Sources: a raw HCI socket on `hciN`, an H4 byte stream (TCP, serial), a capture file (btsnoop,
/// pcap, pcapng). Live sources can also send commands (`HCICommandTransport`); captures cannot.
/// Scan control lives above the source, never in it.

/// H4 packet indicators (Vol 4 Part A §2), also used by btsnoop 1002 / pcap 201 records.
public enum HCIPacketType: UInt8, Sendable {
    case command = 0x01
    case aclData = 0x02
    case scoData = 0x03
    case event = 0x04
    case isoData = 0x05
}

/// One HCI packet: its type, the bytes after the H4 indicator, direction and receive time.
public struct HCIPacket: Sendable, Equatable {
    public var type: HCIPacketType
    /// The packet without its H4 indicator (for an event: code, length, parameters). A slice: a
    /// capture source hands out views of its read buffer rather than copies.
    public var bytes: ArraySlice<UInt8>
    /// Controller → host.
    public var incoming: Bool
    /// Microseconds since the Unix epoch, UTC: the capture's time stamp, or the wall clock when
    /// a live source received it.
    public var timeMicros: Int64

    public init(type: HCIPacketType, bytes: ArraySlice<UInt8>, incoming: Bool, timeMicros: Int64) {
        self.type = type
        self.bytes = bytes
        self.incoming = incoming
        self.timeMicros = timeMicros
    }

    public init(type: HCIPacketType, bytes: [UInt8], incoming: Bool, timeMicros: Int64) {
        self.init(type: type, bytes: bytes[...], incoming: incoming, timeMicros: timeMicros)
    }
}

/// What waiting on a source gave.
public enum SourceEvent: Sendable, Equatable {
    case packet(HCIPacket)
    /// Nothing arrived within the timeout (live sources only).
    case timeout
    /// Orderly end: the capture is finished, or the peer closed the stream.
    case end
}

/// Why a source failed. Each case keeps what a user needs for a one-line message.
public enum SourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed: its name and errno.
    case system(call: String, errno: Int32, detail: String)
    /// The input is not in the expected format, or ends inside a record.
    case format(String, offset: Int64)
    /// The device or endpoint is not there (no adapter, connection refused).
    case unavailable(String)

    public var description: String {
        switch self {
        case .system(let call, let e, let detail): "\(detail): \(call): \(SourceError.strerror(e))"
        case .format(let what, let offset): "\(what) at offset \(offset)"
        case .unavailable(let what): what
        }
    }

    static func strerror(_ e: Int32) -> String {
        #if canImport(Glibc)
        return String(cString: Glibc.strerror(e))
        #else
        return "errno \(e)"
        #endif
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// A source of HCI packets. Not thread-safe: one loop owns it.
public protocol HCIPacketSource: AnyObject {
    /// Human-readable name for messages: "hci0", "tcp:127.0.0.1:9000", "capture.btsnoop".
    var name: String { get }
    /// The descriptor a `poll` loop can wait on; `nil` for files that are always readable.
    var fileDescriptor: Int32? { get }
    /// The next packet, waiting at most `timeout` seconds on a live source.
    func next(timeout: Double) throws(SourceError) -> SourceEvent
}

/// A live source that also carries commands to the controller.
public protocol HCICommandTransport: HCIPacketSource {
    /// Sends one HCI command packet (`bytes` = opcode LE, parameter length, parameters).
    func send(command bytes: [UInt8]) throws(SourceError)
    /// Closes and reopens the underlying device or connection (after EOF, EPIPE, unplug).
    func reopen() throws(SourceError)
    func close()
}
