#if canImport(Glibc)
import Glibc
#endif
import AdvScanner
import CBlueZHCI
import SensorStore

/// Gathers `DoctorFacts` from this machine: sysfs, /proc, a Bluetooth socket, the kernel's clock
/// status, and the database over a read-only connection. It never writes anything, and never
/// opens the database for writing unless the read-only look found it sound.
enum DoctorProbe {
    static func facts(transport: TransportSpec, databasePath: String, staleMicros: Int64) -> DoctorFacts {
        var f = DoctorFacts()
        f.transport = transport
        f.staleMicros = staleMicros
        f.nowMicros = Timestamp.nowMicros()
        f.effectiveUID = geteuid()
        switch transport {
        case .hci, .adapter:
            f.bluetoothSocketErrno = bluetoothSocketErrno()
            f.adapters = adapters(socketWorks: f.bluetoothSocketErrno == nil)
            f.rfkill = rfkill()
            f.effectiveCapabilities = effectiveCapabilities()
            f.bluetoothdPIDs = processes(named: "bluetoothd")
        case .h4(.serial(let path, _, _)):
            let fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
            if fd < 0 { f.serialAccessErrno = errno } else { _ = close(fd) }
        case .h4:
            break
        }
        f.kernelClockUnsynchronised = kernelClockUnsynchronised()
        f.timesyncdSynchronised = access("/run/systemd/timesync/synchronized", F_OK) == 0
        f.database = database(databasePath)
        f.throttled = throttled()
        return f
    }

    // MARK: - Radio

    static func bluetoothSocketErrno() -> Int32? {
        let s = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        if s < 0 { return errno }
        _ = close(s)
        return nil
    }

    /// `hciN` under /sys/class/bluetooth, by number; their state only when a socket can ask.
    static func adapters(socketWorks: Bool) -> [DoctorFacts.Adapter]? {
        guard let names = directoryEntries("/sys/class/bluetooth") else { return nil }
        let numbers = names.compactMap { n -> UInt16? in
            guard n.hasPrefix("hci"), let d = UInt16(n.dropFirst(3)), "hci\(d)" == n else { return nil }
            return d
        }.sorted()
        let registered = socketWorks ? (try? KernelAdapters().adapters().get()) ?? [] : []
        return numbers.map { n in
            DoctorFacts.Adapter(
                name: "hci\(n)", status: socketWorks ? HCISocketTransport(devID: n).adapterStatus() : nil,
                address: registered.first { $0.devID == n }?.address)
        }
    }

    static func rfkill() -> [DoctorFacts.Rfkill] {
        RfkillSysfs().bluetoothSwitches().map {
            DoctorFacts.Rfkill(
                name: "rfkill\($0.index) (\($0.name))", softBlocked: $0.softBlocked, hardBlocked: $0.hardBlocked,
                adapter: $0.name.hasPrefix("hci") ? $0.name : nil)
        }
    }

    /// The `CapEff:` line of /proc/self/status (hex).
    static func effectiveCapabilities() -> UInt64? {
        guard let status = readText("/proc/self/status", limit: 1 << 14) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("CapEff:") {
            return UInt64(line.dropFirst(7).trimmingWhitespace(), radix: 16)
        }
        return nil
    }

    static func processes(named name: String) -> [Int32] {
        (directoryEntries("/proc") ?? []).compactMap { e -> Int32? in
            guard let pid = Int32(e), readText("/proc/\(e)/comm") == name else { return nil }
            return pid
        }.sorted()
    }

    // MARK: - Clock

    /// `adjtimex(2)`'s STA_UNSYNC, as the logger's `ClockTrust` reads it (`SystemClock`).
    static func kernelClockUnsynchronised() -> Bool? { SystemClock.kernelUnsynchronised() }

    // MARK: - Database

    static func database(_ path: String) -> DoctorFacts.Database {
        var d = DoctorFacts.Database()
        d.path = path
        var st = stat()
        d.exists = stat(path, &st) == 0
        d.sizeBytes = d.exists ? Int64(st.st_size) : 0
        var wal = stat()
        d.walBytes = stat(path + "-wal", &wal) == 0 ? Int64(wal.st_size) : 0
        d.freeBytes = freeBytes(near: path)
        guard d.exists else { return d }
        switch StoreIntegrity.quickCheck(path) {
        case .failure(let e): d.openError = e.message
        case .success(let lines): d.quickCheck = lines
        }
        guard d.openError == nil, d.quickCheck == ["ok"] else { return d }
        // Sound: the store itself says whether the file is ours and lists its sensors.
        do {
            let reader = try StoreReader(path: path)
            d.sensors = .success(try reader.sensors().map {
                DoctorFacts.Sensor(address: $0.address, model: $0.model, alias: $0.alias, lastSeenMicros: $0.lastSeenMicros)
            })
            d.outboxBacklog = try? reader.outboxBacklog()
            d.unsynchronised = try reader.unsynchronisedRows()
        } catch {
            d.sensors = .failure(error)
        }
        return d
    }

    /// Space free for a non-root writer on the file system holding `path` (or its folder, or the
    /// nearest existing parent, when the file is not there yet).
    static func freeBytes(near path: String) -> Int64? {
        var candidate = path
        while true {
            var v = statvfs()
            if statvfs(candidate, &v) == 0 { return Int64(v.f_bavail) * Int64(v.f_frsize) }
            guard let slash = candidate.lastIndex(of: "/") else {
                return candidate == "." ? nil : freeBytes(near: ".")
            }
            if slash == candidate.startIndex { candidate = "/" } else { candidate = String(candidate[..<slash]) }
        }
    }

    // MARK: - Power

    /// The firmware's throttling word: sysfs on recent Raspberry Pi kernels, `vcgencmd` on others.
    static func throttled() -> UInt32? {
        if let text = readText("/sys/devices/platform/soc/soc:firmware/get_throttled") {
            return UInt32(text, radix: 16)
        }
        for vcgencmd in ["/usr/bin/vcgencmd", "/opt/vc/bin/vcgencmd"] where access(vcgencmd, X_OK) == 0 {
            // "throttled=0x50005"
            guard let out = commandOutput(vcgencmd, ["get_throttled"]), let eq = out.firstIndex(of: "=") else { continue }
            var value = out[out.index(after: eq)...]
            if value.hasPrefix("0x") { value = value.dropFirst(2) }
            return UInt32(value.trimmingWhitespace(), radix: 16)
        }
        return nil
    }

    /// Runs `path args…` without a shell and returns its standard output, trimmed.
    static func commandOutput(_ path: String, _ args: [String]) -> String? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        // argv for posix_spawn: C strings owned here until the child has been spawned.
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + args).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        _ = close(fds[1])
        guard rc == 0 else {
            _ = close(fds[0])
            return nil
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        while bytes.count < 4096 {
            let n = chunk.withUnsafeMutableBytes { read(fds[0], $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            bytes += chunk[..<n]
        }
        // Closed before the wait: a child with more to say then gets EPIPE (or SIGPIPE) instead
        // of blocking on a full pipe that nobody reads while we wait for it.
        _ = close(fds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return String(String(decoding: bytes, as: UTF8.self).trimmingWhitespace().filter { $0 != "\n" })
    }

    // MARK: - Files

    /// A small text file (sysfs, procfs), without its trailing newline; `nil` when unreadable.
    static func readText(_ path: String, limit: Int = 4096) -> String? { SysfsText.read(path, limit: limit) }

    /// The names in a folder, without `.` and `..`; `nil` when it is not there.
    static func directoryEntries(_ path: String) -> [String]? {
        access(path, F_OK) == 0 ? SysfsText.entries(path) : nil
    }
}
