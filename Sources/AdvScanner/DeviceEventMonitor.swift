import CBlueZHCI

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's device events for every adapter: a raw HCI socket bound to HCI_DEV_NONE (0xFFFF)
/// with a filter for the stack-internal event 0xFD, the only sockets the kernel sends them to.
/// Each is `04 fd 06 | 01 00 | event u16 | dev_id u16` (EVT_SI_DEVICE; REG=1, UNREG=2, UP=3,
/// DOWN=4), as vm-e2e finding 10 observed on Debian's 6.1 kernel.
/// Not thread-safe: one loop owns it.
final class DeviceEventMonitor {
    static let registered: UInt16 = 1
    static let unregistered: UInt16 = 2
    static let up: UInt16 = 3
    static let down: UInt16 = 4

    /// One device event: what happened, to which hciN, and the packet as the scanner takes it.
    struct Event {
        var event: UInt16
        var devID: UInt16
        var packet: HCIPacket
    }

    private(set) var fileDescriptor: Int32 = -1
    private var buffer = [UInt8](repeating: 0, count: 260)
    let name: String

    init(name: String) { self.name = name }

    deinit { if fileDescriptor >= 0 { _ = close(fileDescriptor) } }

    var isOpen: Bool { fileDescriptor >= 0 }

    /// Opens the socket, once; later calls do nothing.
    func open() throws(SourceError) {
        guard fileDescriptor < 0 else { return }
        let m = try HCISocketTransport.rawSocket(name)
        do {
            try HCISocketTransport.bindAndFilter(m, dev: UInt16(HCI_DEV_NONE), events: [0xFD], name: "\(name) monitor")
        } catch {
            _ = close(m)
            throw error
        }
        fileDescriptor = m
    }

    /// The next waiting device event, `nil` when none is (other stack-internal events are skipped).
    func read() throws(SourceError) -> Event? {
        guard fileDescriptor >= 0 else { return nil }
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress!, $0.count) }
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK { return nil }
                throw .system(call: "read", errno: e, detail: "\(name) monitor")
            }
            // A raw socket delivers whole packets, each starting with its H4 indicator.
            guard n >= 9, buffer[0] == HCIPacketType.event.rawValue, buffer[1] == HCIEventCode.stackInternal,
                buffer[3] == 0x01, buffer[4] == 0x00
            else { continue }
            let bytes = Array(buffer[1..<n])
            return Event(
                event: UInt16(bytes[4]) | UInt16(bytes[5]) << 8, devID: UInt16(bytes[6]) | UInt16(bytes[7]) << 8,
                packet: HCIPacket(type: .event, bytes: bytes, incoming: true, timeMicros: Clock.wallMicros()))
        }
    }
}
