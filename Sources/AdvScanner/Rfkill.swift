#if canImport(Glibc)
    import Glibc
#endif

/// One Bluetooth radio switch of the kernel's rfkill subsystem: `/sys/class/rfkill/rfkillN`.
///
/// An adapter registers one named after it (`hci0`); laptops may add a platform switch of type
/// `bluetooth` too (`tpacpi_bluetooth_sw`). A soft block (set by `rfkill block`, a desktop applet,
/// or an OS upgrade that restores an old state, GoveeBTTempLogger#89) keeps the adapter from being
/// powered: HCIDEVUP fails with ERFKILL, and scanning never starts. A hard block is a switch or
/// firmware setting that software cannot lift.
public struct RfkillSwitch: Sendable, Equatable {
    /// N of `rfkillN`: the index /dev/rfkill events name.
    public var index: UInt32
    public var name: String
    public var softBlocked: Bool
    public var hardBlocked: Bool

    public init(index: UInt32, name: String, softBlocked: Bool, hardBlocked: Bool) {
        self.index = index
        self.name = name
        self.softBlocked = softBlocked
        self.hardBlocked = hardBlocked
    }
}

/// Reads the switches from sysfs (`root` is /sys/class/rfkill, or a folder a test lays out so).
public struct RfkillSysfs: Sendable {
    public let root: String

    public init(root: String = "/sys/class/rfkill") { self.root = root }

    /// Switches whose `type` is `bluetooth`, by index.
    public func bluetoothSwitches() -> [RfkillSwitch] {
        SysfsText.entries(root).compactMap { entry -> RfkillSwitch? in
            guard entry.hasPrefix("rfkill"), let index = UInt32(entry.dropFirst(6)),
                SysfsText.read(root + "/" + entry + "/type") == "bluetooth"
            else { return nil }
            let dir = root + "/" + entry + "/"
            return RfkillSwitch(
                index: index, name: SysfsText.read(dir + "name") ?? entry,
                softBlocked: SysfsText.read(dir + "soft") == "1", hardBlocked: SysfsText.read(dir + "hard") == "1")
        }.sorted { $0.index < $1.index }
    }

    /// The switch the adapter `hciN` registered.
    public func switchFor(adapter name: String) -> RfkillSwitch? {
        bluetoothSwitches().first { $0.name == name }
    }

    /// What `prepare` found and did.
    public enum Outcome: Sendable, Equatable {
        /// The kernel has no switch for the adapter (no rfkill support, or an H4 stream).
        case noSwitch
        case notBlocked
        /// Soft-blocked and left so (no `--unblock`).
        case softBlocked(RfkillSwitch)
        case hardBlocked(RfkillSwitch)
        case unblocked(RfkillSwitch)
        case unblockFailed(RfkillSwitch, SourceError)
    }

    /// Before scanning `adapter`: finds its switch and, when `unblock` is set, lifts a soft block
    /// through `device` (/dev/rfkill).
    public func prepare(adapter: String, unblock: Bool, device: String = RfkillDevice.path) -> Outcome {
        guard let s = switchFor(adapter: adapter) else { return .noSwitch }
        if s.hardBlocked { return .hardBlocked(s) }
        guard s.softBlocked else { return .notBlocked }
        guard unblock else { return .softBlocked(s) }
        do { try RfkillDevice.unblock(index: s.index, path: device) } catch { return .unblockFailed(s, error) }
        return .unblocked(s)
    }
}

extension RfkillSysfs.Outcome {
    /// The line to log (with its level), `nil` when there is nothing to say.
    public var logLine: (ScanLog.Level, String)? {
        switch self {
        case .noSwitch, .notBlocked: return nil
        case .softBlocked(let s):
            return (.warning, "\(s.name) is soft-blocked (rfkill \(s.index)): it cannot be powered, so nothing is heard "
                + "until it is unblocked: 'sudo rfkill unblock bluetooth', or start with --unblock")
        case .hardBlocked(let s):
            return (.warning, "\(s.name) is hard-blocked (rfkill \(s.index)): a switch, key or firmware setting turns the "
                + "radio off; nothing is heard until it is turned on")
        case .unblocked(let s): return (.info, "\(s.name) was soft-blocked (rfkill \(s.index)); unblocked it")
        case .unblockFailed(let s, let e):
            return (.warning, "\(s.name) is soft-blocked (rfkill \(s.index)) and unblocking it failed: \(e) "
                + "(writing /dev/rfkill needs CAP_NET_ADMIN or root)")
        }
    }
}

/// /dev/rfkill: changes a switch by writing an event.
public enum RfkillDevice {
    public static let path = "/dev/rfkill"
    /// <linux/rfkill.h>: RFKILL_TYPE_BLUETOOTH and RFKILL_OP_CHANGE.
    static let typeBluetooth: UInt8 = 2
    static let opChange: UInt8 = 2

    /// `struct rfkill_event { __u32 idx; __u8 type; __u8 op; __u8 soft; __u8 hard; }`, packed, in
    /// host order: the 8-byte first version, which every kernel since 2.6.31 accepts.
    public static func unblockEvent(index: UInt32) -> [UInt8] {
        withUnsafeBytes(of: index) { Array($0) } + [typeBluetooth, opChange, 0, 0]
    }

    public static func unblock(index: UInt32, path: String = RfkillDevice.path) throws(SourceError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .system(call: "open", errno: errno, detail: path) }
        defer { _ = close(fd) }
        let event = unblockEvent(index: index)
        while true {
            let n = event.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
            if n == event.count { return }
            if n < 0, errno == EINTR { continue }
            throw .system(call: "write", errno: n < 0 ? errno : EIO, detail: path)
        }
    }
}

/// Small text files of sysfs and procfs, and folder listings.
public enum SysfsText {
    /// The file's text without its trailing newlines; `nil` when it cannot be read.
    public static func read(_ path: String, limit: Int = 4096) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        var buffer = [UInt8](repeating: 0, count: limit)
        var count = 0
        while count < limit {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, limit - count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { break }
            count += n
        }
        var text = String(decoding: buffer[..<count], as: UTF8.self)
        while text.last == "\n" { text.removeLast() }
        return text
    }

    /// The names in a folder, without `.` and `..`; empty when it cannot be opened.
    public static func entries(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            // d_name is a NUL-terminated array inside the entry, valid until the next readdir.
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
