import SensorDecode

#if canImport(Glibc)
    import Glibc
#endif

/// An external controller reached as an H4 byte stream: `tcp:HOST:PORT` (a Bumble virtual
/// controller, a network serial bridge) or `serial:/dev/ttyACM0[:BAUD[:rtscts]]` (a Zephyr
/// hci_uart dongle, a UART controller). We are the controller's only host, so scan control resets
/// it and sets its event masks (`ownsController`).
///
/// The descriptor is non-blocking; `next(timeout:)` waits with `poll`, so the owning loop never
/// blocks longer than it asked. EOF returns `.end`; every other failure is a `SourceError` and the
/// scanner reconnects with backoff. Not thread-safe: one loop owns it.
public final class H4StreamTransport: ScanTransport {
    public enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: UInt16)
        case serial(path: String, baud: Int, rtscts: Bool)
    }

    public let endpoint: Endpoint
    public let name: String
    private var fd: Int32 = -1
    private var framer = H4Framer()
    private var queue = PacketQueue()
    private var readBuffer = [UInt8](repeating: 0, count: 4096)

    /// Creates the transport without opening it (`reopen()` opens).
    public init(_ endpoint: Endpoint) {
        self.endpoint = endpoint
        switch endpoint {
        case .tcp(let h, let p): name = "tcp:\(h):\(p)"
        case .serial(let path, _, _): name = "serial:\(path)"
        }
    }

    deinit { close() }

    public var fileDescriptor: Int32? { fd >= 0 ? fd : nil }
    public var pollDescriptors: [Int32] { fd >= 0 ? [fd] : [] }
    public var ownsController: Bool { true }
    public var isOpen: Bool { fd >= 0 }
    public func adapterStatus() -> AdapterStatus { fd >= 0 ? .up : .absent }
    public func bringUp() throws(SourceError) {}
    /// Bytes skipped to find the packet boundaries again.
    public var skippedBytes: Int { framer.skippedBytes }

    public func close() {
        if fd >= 0 {
            _ = Glibc.close(fd)  // nothing useful to do if close fails: the descriptor is gone either way
            fd = -1
        }
        framer.reset()
        queue.removeAll()
    }

    public func reopen() throws(SourceError) {
        close()
        switch endpoint {
        case .tcp(let host, let port): fd = try Self.connectTCP(host: host, port: port, name: name)
        case .serial(let path, let baud, let rtscts):
            fd = try Self.openSerial(path: path, baud: baud, rtscts: rtscts, name: name)
        }
    }

    public func send(command bytes: [UInt8]) throws(SourceError) {
        guard fd >= 0 else { throw .system(call: "write", errno: EBADF, detail: name) }
        let packet = [HCIPacketType.command.rawValue] + bytes
        var off = 0
        let deadline = Clock.monotonic() + 2
        while off < packet.count {
            let n = packet.withUnsafeBytes { p -> Int in
                if case .tcp = endpoint {
                    return Glibc.send(fd, p.baseAddress! + off, p.count - off, Int32(MSG_NOSIGNAL))
                }
                return Glibc.write(fd, p.baseAddress! + off, p.count - off)
            }
            if n > 0 {
                off += n
                continue
            }
            let e = errno
            if n < 0, e == EINTR { continue }
            if n < 0, e == EAGAIN || e == EWOULDBLOCK {
                // The peer is not reading; wait for room, but not forever.
                let left = deadline - Clock.monotonic()
                guard left > 0 else { throw .system(call: "write", errno: ETIMEDOUT, detail: name) }
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&pfd, 1, Int32(left * 1000) + 1)  // result re-checked by the next write
                continue
            }
            throw .system(call: "write", errno: n < 0 ? e : EIO, detail: name)
        }
    }

    public func next(timeout: Double) throws(SourceError) -> SourceEvent {
        if let p = dequeue() { return .packet(p) }
        guard fd >= 0 else { throw .system(call: "read", errno: EBADF, detail: name) }
        let deadline = Clock.monotonic() + max(0, timeout)
        while true {
            let n = readBuffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n == 0 { return .end }
            if n > 0 {
                let now = Clock.wallMicros()
                for (type, bytes) in framer.feed(readBuffer[0..<n]) {
                    queue.append(HCIPacket(type: type, bytes: bytes, incoming: true, timeMicros: now))
                }
                if let p = dequeue() { return .packet(p) }
                continue  // a partial packet: read again (or wait below)
            }
            let e = errno
            if e == EINTR { continue }
            guard e == EAGAIN || e == EWOULDBLOCK else { throw .system(call: "read", errno: e, detail: name) }
            let left = deadline - Clock.monotonic()
            if left <= 0 { return .timeout }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&pfd, 1, Int32(min(left, 3600) * 1000) + 1)
            if r < 0, errno != EINTR { throw .system(call: "poll", errno: errno, detail: name) }
            if r == 0 { return .timeout }
        }
    }

    private func dequeue() -> HCIPacket? { queue.popFirst() }

    // MARK: opening

    /// Connects with a 5 s limit (a blocking connect to a dead host waits minutes) and disables
    /// Nagle: HCI commands are tiny and each waits for its answer (vm-e2e finding 3).
    static func connectTCP(host: String, port: UInt16, name: String) throws(SourceError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let gai = getaddrinfo(host, String(port), &hints, &list)
        guard gai == 0, let first = list else {
            throw .unavailable("\(name): cannot resolve \(host): \(String(cString: gai_strerror(gai)))")
        }
        defer { freeaddrinfo(list) }
        var lastErrno: Int32 = ECONNREFUSED
        var ai: UnsafeMutablePointer<addrinfo>? = first
        while let a = ai {
            ai = a.pointee.ai_next
            let s = socket(
                a.pointee.ai_family,
                Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            if s < 0 {
                lastErrno = errno
                continue
            }
            var ok = Glibc.connect(s, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0
            if !ok, errno == EINPROGRESS {
                var pfd = pollfd(fd: s, events: Int16(POLLOUT), revents: 0)
                if poll(&pfd, 1, 5000) == 1 {
                    var soErr: Int32 = 0
                    var len = socklen_t(MemoryLayout<Int32>.size)
                    if getsockopt(s, SOL_SOCKET, SO_ERROR, &soErr, &len) == 0, soErr == 0 {
                        ok = true
                    } else {
                        lastErrno = soErr
                    }
                } else {
                    lastErrno = ETIMEDOUT
                }
            } else if !ok {
                lastErrno = errno
            }
            guard ok else {
                _ = Glibc.close(s)
                continue
            }
            var one: Int32 = 1
            // Without TCP_NODELAY every command round trip can gain ~40 ms; not fatal, so only noted.
            _ = setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return s
        }
        if lastErrno == ECONNREFUSED || lastErrno == ETIMEDOUT || lastErrno == EHOSTUNREACH || lastErrno == ENETUNREACH
        {
            throw .unavailable("\(name): \(SourceError.strerror(lastErrno).lowercased())")
        }
        throw .system(call: "connect", errno: lastErrno, detail: name)
    }

    static func baudConstant(_ baud: Int) -> speed_t? {
        switch baud {
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115_200: speed_t(B115200)
        case 230_400: speed_t(B230400)
        case 460_800: speed_t(B460800)
        case 500_000: speed_t(B500000)
        case 921_600: speed_t(B921600)
        case 1_000_000: speed_t(B1000000)
        case 1_500_000: speed_t(B1500000)
        case 2_000_000: speed_t(B2000000)
        case 3_000_000: speed_t(B3000000)
        default: nil
        }
    }

    /// Raw 8N1 at `baud`, optionally with RTS/CTS flow control; pending bytes from before are
    /// flushed so the framer starts on a packet boundary as far as the OS knows.
    static func openSerial(path: String, baud: Int, rtscts: Bool, name: String) throws(SourceError) -> Int32 {
        let fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT || e == ENODEV || e == ENXIO {
                throw .unavailable("\(name): \(SourceError.strerror(e).lowercased())")
            }
            throw .system(call: "open", errno: e, detail: name)
        }
        var tio = termios()
        guard tcgetattr(fd, &tio) == 0 else {
            let e = errno
            _ = Glibc.close(fd)
            throw .system(call: "tcgetattr", errno: e, detail: "\(name) (not a serial device?)")
        }
        cfmakeraw(&tio)
        tio.c_cflag |= tcflag_t(CLOCAL | CREAD)
        if rtscts { tio.c_cflag |= tcflag_t(CRTSCTS) } else { tio.c_cflag &= ~tcflag_t(CRTSCTS) }
        guard let speed = baudConstant(baud) else {
            _ = Glibc.close(fd)
            throw .unavailable("\(name): unsupported baud rate \(baud)")
        }
        guard cfsetispeed(&tio, speed) == 0, cfsetospeed(&tio, speed) == 0, tcsetattr(fd, TCSANOW, &tio) == 0 else {
            let e = errno
            _ = Glibc.close(fd)
            throw .system(call: "tcsetattr", errno: e, detail: name)
        }
        _ = tcflush(fd, TCIOFLUSH)  // best effort: stale bytes are also handled by the framer's resync
        return fd
    }
}

/// Which transport `--hci SPEC` names.
public enum TransportSpec: Sendable, Equatable, CustomStringConvertible {
    /// `hciN`; `nil` = the first registered adapter.
    case hci(Int?)
    case h4(H4StreamTransport.Endpoint)
    /// The adapter with this address, whatever its hciN (`AddressedAdapterTransport`).
    case adapter(BDAddress)

    /// An adapter of the kernel's (not an H4 stream): only there can the kernel's stack make GATT
    /// connections.
    public var isKernelAdapter: Bool {
        if case .h4 = self { false } else { true }
    }

    /// Parses `hci0`, `AA:BB:CC:DD:EE:FF`, `tcp:HOST:PORT`, `serial:PATH[:BAUD[:rtscts]]`; `nil` text means the first adapter.
    public static func parse(_ text: String?) -> Result<TransportSpec, ScanError> {
        guard let text, !text.isEmpty else { return .success(.hci(nil)) }
        if text.hasPrefix("hci"), let n = Int(text.dropFirst(3)), n >= 0, n < 0xFFFF, String(n) == text.dropFirst(3) {
            return .success(.hci(n))
        }
        if text.utf8.count == 17, let address = BDAddress(text) { return .success(.adapter(address)) }
        if text.hasPrefix("tcp:") {
            let rest = text.dropFirst(4)
            guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]), port > 0
            else {
                return .failure(.configuration("'\(text)': expected tcp:HOST:PORT"))
            }
            var host = String(rest[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty else { return .failure(.configuration("'\(text)': expected tcp:HOST:PORT")) }
            return .success(.h4(.tcp(host: host, port: port)))
        }
        if text.hasPrefix("serial:") {
            var parts = text.dropFirst(7).split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            var rtscts = false
            if parts.last == "rtscts" {
                rtscts = true
                parts.removeLast()
            }
            var baud = 1_000_000
            if parts.count == 2 {
                guard let b = Int(parts[1]), H4StreamTransport.baudConstant(b) != nil else {
                    return .failure(.configuration("'\(text)': unsupported baud rate '\(parts[1])'"))
                }
                baud = b
                parts.removeLast()
            }
            guard parts.count == 1, parts[0].hasPrefix("/") else {
                return .failure(.configuration("'\(text)': expected serial:/dev/NAME[:BAUD[:rtscts]]"))
            }
            return .success(.h4(.serial(path: parts[0], baud: baud, rtscts: rtscts)))
        }
        return .failure(.configuration("'\(text)': expected hciN, an adapter address, tcp:HOST:PORT or serial:/dev/NAME[:BAUD]"))
    }

    public var description: String {
        switch self {
        case .hci(let n): n.map { "hci\($0)" } ?? "first adapter"
        case .adapter(let a): "adapter \(a)"
        case .h4(.tcp(let h, let p)): "tcp:\(h):\(p)"
        case .h4(.serial(let path, let baud, _)): "serial:\(path):\(baud)"
        }
    }

    /// A transport for this spec, not yet opened.
    /// - Throws: `.unavailable` when `hci` names no adapter and none is registered, or the kernel
    ///   has no Bluetooth.
    public func makeTransport() throws(ScanError) -> any ScanTransport {
        switch self {
        case .h4(let e): return H4StreamTransport(e)
        case .adapter(let a): return AddressedAdapterTransport(address: a)
        case .hci(let n):
            if let n { return HCISocketTransport(devID: UInt16(n)) }
            return HCISocketTransport(devID: try HCISocketTransport.firstAdapter())
        }
    }
}
