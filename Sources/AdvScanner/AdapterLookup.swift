import CBlueZHCI
import SensorDecode

#if canImport(Glibc)
    import Glibc
#endif

/// An adapter the kernel has registered, as HCIGETDEVINFO describes it.
public struct AdapterInfo: Sendable, Equatable {
    public var devID: UInt16
    public var address: BDAddress
    public var isUp: Bool

    public init(devID: UInt16, address: BDAddress, isUp: Bool) {
        self.devID = devID
        self.address = address
        self.isUp = isUp
    }

    public var name: String { "hci\(devID)" }
}

/// Where registered adapters are listed: the kernel, or a list a test makes up.
public protocol AdapterDirectory {
    func adapters() -> Result<[AdapterInfo], SourceError>
}

/// The kernel's adapters: HCIGETDEVLIST for the numbers, HCIGETDEVINFO for each one's address.
public struct KernelAdapters: AdapterDirectory {
    public init() {}

    /// At most this many adapters are listed (the kernel numbers them from 0; a Pi has one or two).
    static let maxAdapters = 16

    public func adapters() -> Result<[AdapterInfo], SourceError> {
        let s: Int32
        do { s = try HCISocketTransport.rawSocket("hci") } catch { return .failure(error) }
        defer { _ = close(s) }
        let ids: [UInt16]
        switch Self.devIDs(socket: s) {
        case .success(let list): ids = list
        case .failure(let e): return .failure(e)
        }
        return .success(ids.compactMap { Self.info(socket: s, devID: $0) })
    }

    /// The registered adapters' numbers, in the kernel's order.
    static func devIDs(socket s: Int32) -> Result<[UInt16], SourceError> {
        // struct hci_dev_list_req { u16 dev_num; struct hci_dev_req { u16 dev_id; u32 dev_opt; } dev_req[]; }
        // dev_req starts at offset 4 (u32 alignment) and each entry is 8 bytes. The kernel writes at
        // most dev_num entries, which the buffer holds: the ioctl never writes past it.
        var req = [UInt8](repeating: 0, count: 4 + 8 * maxAdapters)
        req[0] = UInt8(maxAdapters)
        let r = req.withUnsafeMutableBytes { ioctl(s, HCISocketTransport.hciGetDevList, $0.baseAddress!) }
        guard r == 0 else {
            return .failure(.system(call: "ioctl(HCIGETDEVLIST)", errno: errno, detail: "listing Bluetooth adapters"))
        }
        let count = min(Int(req[0]) | Int(req[1]) << 8, maxAdapters)
        return .success((0..<count).map { i in UInt16(req[4 + 8 * i]) | UInt16(req[5 + 8 * i]) << 8 })
    }

    /// `nil` when the adapter went away between the list and this call.
    static func info(socket s: Int32, devID: UInt16) -> AdapterInfo? {
        var di = hci_dev_info()
        di.dev_id = devID
        // `di` is a whole struct hci_dev_info, the size the kernel copies back for this request.
        guard ioctl(s, HCISocketTransport.hciGetDevInfo, &di) == 0 else { return nil }
        let b = di.bdaddr.b  // bdaddr_t: six bytes, least significant first (HCI order)
        guard let address = BDAddress(littleEndian: [b.0, b.1, b.2, b.3, b.4, b.5]) else { return nil }
        return AdapterInfo(devID: devID, address: address, isUp: di.flags & 1 != 0)  // bit 0 = HCI_UP
    }
}

/// Which adapter an address names, and what to say when none does.
public enum AdapterLookup {
    public static func devID(of address: BDAddress, in adapters: [AdapterInfo]) -> UInt16? {
        adapters.first { $0.address == address }?.devID
    }

    /// "present: hci0 00:1A:7D:DA:71:13, hci1 …", or that there is none.
    public static func present(_ adapters: [AdapterInfo]) -> String {
        adapters.isEmpty ? "no adapter is registered" : "present: " + adapters.map { "\($0.name) \($0.address)" }.joined(separator: ", ")
    }
}

/// The adapter with a given address (`--hci 00:1A:7D:DA:71:13`), whatever hciN it has now.
///
/// hciN numbers follow registration order, so a reboot or a USB reset can swap them; an address
/// stays. The address is looked up on every `reopen()` and every `adapterStatus()` (which scan
/// control asks after a device event and, as a fallback, every few seconds while it waits for an
/// absent adapter), and on the kernel's device events of every adapter, which this transport's
/// own monitor hears (`DeviceEventMonitor`): when the address turns up under another number the
/// socket is replaced at once and scan control hears a registration of it (`route`). A wrong
/// adapter that took our old number is never used.
/// Not thread-safe: one loop owns it.
public final class AddressedAdapterTransport: ScanTransport {
    public let address: BDAddress
    let directory: any AdapterDirectory
    /// The socket for the number the address had at the last lookup (without a monitor of its own).
    private var socket: HCISocketTransport?
    /// Device events of every adapter, so a registration under a new number is heard.
    private let monitor: DeviceEventMonitor
    /// The number the last lookup found the address under; `nil` after one that did not find it
    /// (then no number's events are ours until a lookup finds it again).
    private var resolvedID: UInt16?

    public init(address: BDAddress, directory: any AdapterDirectory = KernelAdapters()) {
        self.address = address
        self.directory = directory
        monitor = DeviceEventMonitor(name: address.description)
    }

    /// The hciN the address resolved to last; `nil` before the first lookup found it.
    public var devID: UInt16? { socket?.devID }
    public var name: String { socket.map { "\($0.name) (\(address))" } ?? address.description }
    public var fileDescriptor: Int32? { socket?.fileDescriptor }
    public var pollDescriptors: [Int32] { ([monitor.fileDescriptor] + (socket?.pollDescriptors ?? [])).filter { $0 >= 0 } }
    public var ownsController: Bool { false }
    public var isOpen: Bool { socket?.isOpen ?? false }

    /// Looks the address up; on a new number, a new socket. `.unavailable` when no adapter has it now.
    @discardableResult
    public func resolve() -> Result<HCISocketTransport, SourceError> {
        let list: [AdapterInfo]
        switch directory.adapters() {
        case .success(let l): list = l
        case .failure(let e): return .failure(e)
        }
        resolvedID = AdapterLookup.devID(of: address, in: list)
        guard let id = resolvedID else {
            socket?.close()  // its number may belong to another adapter now: never send to it
            return .failure(.unavailable("no adapter has address \(address) (\(AdapterLookup.present(list)))"))
        }
        if let s = socket, s.devID == id { return .success(s) }
        socket = HCISocketTransport(devID: id, watchesDeviceEvents: false)
        return .success(socket!)
    }

    /// What a device event means for the address, as scan control's `deviceEvent` takes it:
    /// - a registration or an up (of any number: the address is looked up again) that finds it
    ///   there: as it is when that number was ours and open, else as a registration of it, so
    ///   scan control brings it up (which also cancels the kernel's power-off of a new adapter;
    ///   a new registration's address is only known once it has been up, hence both events);
    /// - an unregistration or a down of the number the address had: as it is;
    /// - anything else (another adapter's events): `nil`.
    func route(_ e: DeviceEventMonitor.Event) -> HCIPacket? {
        switch e.event {
        case DeviceEventMonitor.registered, DeviceEventMonitor.up:
            let wasOurs = socket.map { $0.devID == e.devID && $0.isOpen } ?? false
            guard case .success(let s) = resolve(), s.devID == e.devID else { return nil }
            if wasOurs { return e.packet }
            var packet = e.packet
            let start = packet.bytes.startIndex  // fd 06 | 01 00 | event u16 | dev_id u16
            packet.bytes[start + 4] = UInt8(DeviceEventMonitor.registered)
            packet.bytes[start + 5] = 0
            return packet
        case DeviceEventMonitor.unregistered, DeviceEventMonitor.down:
            return e.devID == resolvedID ? e.packet : nil
        default:
            return nil
        }
    }

    public func reopen() throws(SourceError) {
        // Before the lookup, so that an adapter absent now is heard when it registers. When the
        // lookup fails too, its error is the one to tell (it names the adapters); the monitor is
        // tried again at the next reopen.
        var monitorError: SourceError? = nil
        do { try monitor.open() } catch { monitorError = error }
        switch resolve() {
        case .success(let s):
            if let monitorError { throw monitorError }
            try s.reopen()
        case .failure(let e): throw e
        }
    }

    public func close() { socket?.close() }

    public func send(command bytes: [UInt8]) throws(SourceError) {
        guard let socket else { throw .system(call: "write", errno: EBADF, detail: name) }
        try socket.send(command: bytes)
    }

    public func next(timeout: Double) throws(SourceError) -> SourceEvent {
        let deadline = Clock.monotonic() + max(0, timeout)
        while true {
            // Device events first: a DOWN must be seen before reads on a dead data socket.
            while let e = try monitor.read() {
                if let p = route(e) { return .packet(p) }
            }
            if let socket, socket.isOpen {
                let event = try socket.next(timeout: 0)
                if case .timeout = event {} else { return event }
            }
            guard try HCISocketTransport.wait(for: pollDescriptors, until: deadline, name: name) else { return .timeout }
        }
    }

    public func adapterStatus() -> AdapterStatus {
        guard case .success(let s) = resolve() else { return .absent }
        return s.adapterStatus()
    }

    public func bringUp() throws(SourceError) {
        switch resolve() {
        case .success(let s): try s.bringUp()
        case .failure(let e): throw e
        }
    }
}
