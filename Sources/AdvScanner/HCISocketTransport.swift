import CBlueZHCI

#if canImport(Glibc)
    import Glibc
#endif

/// A Linux adapter `hciN` through raw HCI sockets (AF_BLUETOOTH / SOCK_RAW / BTPROTO_HCI,
/// HCI_CHANNEL_RAW), shared with the kernel and with bluetoothd.
///
/// Two sockets (facts from the vm-e2e harness, README finding 10, checked on Debian's 6.1 kernel):
/// - the **data socket**, bound to hciN, with an HCI filter passing events only: Command Complete,
///   Command Status, Hardware Error and LE Meta. Commands go out on it (needs CAP_NET_RAW). When the
///   adapter goes down it receives *nothing*; when it is unregistered reads fail with EPIPE.
/// - the **monitor socket**, bound to HCI_DEV_NONE (0xFFFF) with a filter for event 0xFD: the
///   kernel's stack-internal device events (`04 fd 06 | 01 00 | event u16 | dev_id u16`; REG=1,
///   UNREG=2, UP=3, DOWN=4). Only sockets bound to HCI_DEV_NONE get them. Events for other
///   adapters are dropped here, so the scanner sees only its own as `.deviceEvent`.
///
/// `close()` closes the data socket only; the monitor (`DeviceEventMonitor`) stays open for the
/// transport's lifetime so a down or unplugged adapter can still announce its return. A transport
/// made with `watchesDeviceEvents: false` has none: its owner watches (`AddressedAdapterTransport`). The kernel owns the event masks
/// (hci_le_set_event_mask_sync enables LE Advertising Report, and Extended Advertising Report when
/// the controller has extended scanning), so `ownsController` is false: no Reset, no masks.
/// Not thread-safe: one loop owns it.
public final class HCISocketTransport: ScanTransport {
    public let devID: UInt16
    public let name: String
    private var dataFD: Int32 = -1
    private let monitor: DeviceEventMonitor?
    private var buffer = [UInt8](repeating: 0, count: 1100)

    // ioctl request numbers: _IOW('H', 201, int) and _IOR('H', 210/211, int) from <bluetooth/hci.h>;
    // the macros are function-like, so Swift does not import them.
    static let hciDevUp: UInt = 0x4004_48C9
    static let hciGetDevList: UInt = 0x8004_48D2
    static let hciGetDevInfo: UInt = 0x8004_48D3
    /// `0xfd & 63`: the kernel tests (event & 63) against the 64-bit filter mask.
    static let stackInternalFilterBit = 61

    public init(devID: UInt16, watchesDeviceEvents: Bool = true) {
        self.devID = devID
        self.name = "hci\(devID)"
        monitor = watchesDeviceEvents ? DeviceEventMonitor(name: name) : nil
    }

    deinit { close() }

    public var fileDescriptor: Int32? { dataFD >= 0 ? dataFD : nil }
    public var pollDescriptors: [Int32] { [dataFD, monitor?.fileDescriptor ?? -1].filter { $0 >= 0 } }
    public var ownsController: Bool { false }
    public var isOpen: Bool { dataFD >= 0 }

    /// A raw HCI socket, or the error a user can act on.
    static func rawSocket(_ name: String) throws(SourceError) -> Int32 {
        let s = socket(
            AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            BTPROTO_HCI)
        guard s >= 0 else {
            let e = errno
            if e == EAFNOSUPPORT {
                throw .unavailable("this kernel has no Bluetooth support (socket(AF_BLUETOOTH): EAFNOSUPPORT)")
            }
            throw .system(call: "socket(AF_BLUETOOTH)", errno: e, detail: name)
        }
        return s
    }

    /// Binds `s` to `dev` on the raw channel and installs a filter for events with these codes.
    static func bindAndFilter(_ s: Int32, dev: UInt16, events: [UInt8], name: String) throws(SourceError) {
        var addr = sockaddr_hci()
        addr.hci_family = sa_family_t(AF_BLUETOOTH)
        addr.hci_dev = dev
        addr.hci_channel = UInt16(HCI_CHANNEL_RAW)
        let b = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(s, $0, socklen_t(MemoryLayout<sockaddr_hci>.size))
            }
        }
        guard b == 0 else {
            let e = errno
            if e == ENODEV { throw .unavailable("\(name): no such adapter") }
            throw .system(call: "bind", errno: e, detail: name)
        }
        var f = hci_filter()
        f.type_mask = 1 << UInt32(HCIPacketType.event.rawValue)
        for ev in events {
            let bit = Int(ev & 63)
            if bit < 32 { f.event_mask.0 |= 1 << UInt32(bit) } else { f.event_mask.1 |= 1 << UInt32(bit - 32) }
        }
        guard setsockopt(s, SOL_HCI, HCI_FILTER, &f, socklen_t(MemoryLayout<hci_filter>.size)) == 0 else {
            throw .system(call: "setsockopt(HCI_FILTER)", errno: errno, detail: name)
        }
    }

    public func reopen() throws(SourceError) {
        close()
        try monitor?.open()
        let s = try Self.rawSocket(name)
        do {
            try Self.bindAndFilter(
                s, dev: devID,
                events: [
                    HCIEventCode.commandComplete, HCIEventCode.commandStatus, HCIEventCode.hardwareError,
                    HCIEventCode.leMeta,
                ],
                name: name)
        } catch {
            _ = Glibc.close(s)
            throw error
        }
        dataFD = s
    }

    public func close() {
        if dataFD >= 0 {
            _ = Glibc.close(dataFD)  // the descriptor is released even when close reports an error
            dataFD = -1
        }
    }

    public func send(command bytes: [UInt8]) throws(SourceError) {
        guard dataFD >= 0 else { throw .system(call: "write", errno: EBADF, detail: name) }
        let packet = [HCIPacketType.command.rawValue] + bytes
        while true {
            let n = packet.withUnsafeBytes { Glibc.write(dataFD, $0.baseAddress!, $0.count) }
            if n == packet.count { return }
            let e = n < 0 ? errno : EIO
            if e == EINTR { continue }
            if e == EPERM {
                throw .system(call: "write", errno: e, detail: "\(name): sending HCI commands needs CAP_NET_RAW")
            }
            throw .system(call: "write", errno: e, detail: name)
        }
    }

    public func next(timeout: Double) throws(SourceError) -> SourceEvent {
        let deadline = Clock.monotonic() + max(0, timeout)
        while true {
            // Monitor first: a DOWN must be seen before reads on a dead data socket.
            while let e = try monitor?.read() {
                if e.devID == devID { return .packet(e.packet) }  // another adapter's: not ours
            }
            if dataFD >= 0, let p = try readData() { return .packet(p) }
            guard try Self.wait(for: pollDescriptors, until: deadline, name: name) else { return .timeout }
        }
    }

    /// Waits until one of `fds` is readable (`true`) or `deadline` passes (`false`); an interrupted
    /// wait is `true` too (the caller reads, finds nothing, and waits again).
    /// - Throws: EBADF when there is nothing to wait on (the transport is closed), or poll's error.
    static func wait(for fds: [Int32], until deadline: Double, name: String) throws(SourceError) -> Bool {
        let left = deadline - Clock.monotonic()
        if left <= 0 { return false }
        var polled = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard !polled.isEmpty else { throw .system(call: "poll", errno: EBADF, detail: "\(name): closed") }
        let r = poll(&polled, nfds_t(polled.count), Int32(min(left, 3600) * 1000) + 1)
        if r < 0, errno != EINTR { throw .system(call: "poll", errno: errno, detail: name) }
        return r != 0
    }

    /// One packet from the data socket, `nil` when nothing is waiting.
    private func readData() throws(SourceError) -> HCIPacket? {
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(dataFD, $0.baseAddress!, $0.count) }
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK { return nil }
                // EPIPE / ENODEV: the adapter was unregistered under us.
                throw .system(call: "read", errno: e, detail: name)
            }
            // A raw socket delivers whole packets, each starting with its H4 indicator.
            guard n >= 3, buffer[0] == HCIPacketType.event.rawValue else { continue }
            return HCIPacket(type: .event, bytes: Array(buffer[1..<n]), incoming: true, timeMicros: Clock.wallMicros())
        }
    }

    /// Registered and up, registered and down, or not registered (HCIGETDEVINFO).
    public func adapterStatus() -> AdapterStatus {
        let s: Int32
        do { s = try Self.rawSocket(name) } catch {
            return .absent  // no Bluetooth sockets at all (module unloaded): no adapter either
        }
        defer { _ = Glibc.close(s) }
        var di = hci_dev_info()
        di.dev_id = devID
        guard ioctl(s, Self.hciGetDevInfo, &di) == 0 else { return .absent }
        return di.flags & 1 != 0 ? .up : .down  // bit 0 = HCI_UP
    }

    /// HCIDEVUP; EALREADY (already up) is success.
    public func bringUp() throws(SourceError) {
        let s = try Self.rawSocket(name)
        defer { _ = Glibc.close(s) }
        if ioctl(s, Self.hciDevUp, Int32(devID)) != 0, errno != EALREADY {
            throw .system(call: "ioctl(HCIDEVUP)", errno: errno, detail: name)
        }
    }

    /// The first registered adapter, up or down (HCIGETDEVLIST), so a down adapter can be brought up.
    public static func firstAdapter() throws(ScanError) -> UInt16 {
        let s: Int32
        do { s = try rawSocket("hci") } catch { throw .unavailable(error.description) }
        defer { _ = Glibc.close(s) }
        switch KernelAdapters.devIDs(socket: s) {
        case .failure(.system(_, let e, _)): throw .unavailable("cannot list Bluetooth adapters: \(SourceError.strerror(e))")
        case .failure(let e): throw .unavailable(e.description)
        case .success(let ids):
            guard let first = ids.first else { throw .unavailable("no Bluetooth adapter found") }
            return first
        }
    }
}
