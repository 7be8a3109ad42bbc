#if canImport(Glibc)
import Glibc
#endif
import SensorDecode

/// Keys for encrypted devices (BTHome v2, MiBeacon bindkeys), one per line: `AA:BB:CC:DD:EE:FF HEX`
/// (`#` comments). The file sits next to the database as `keys` and is created with mode 0600:
/// keys are never printed, never exported, and readable by the owner only.
struct KeyFile {
    let path: String

    init(databasePath: String) {
        if let slash = databasePath.lastIndex(of: "/") {
            path = String(databasePath[...slash]) + "keys"
        } else {
            path = "keys"
        }
    }

    /// The keys in the file; none when it does not exist.
    func load() throws(CLIError) -> DeviceKeys {
        guard let text = try readWholeFile() else { return DeviceKeys() }
        var keys = DeviceKeys()
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count == 2, let a = BDAddress(parts[0]), let k = Hex.decode(parts[1]), k.count == 16 else {
                throw CLIError("\(path):\(n + 1): expected 'AA:BB:CC:DD:EE:FF <32 hex digits>'", code: ExitCode.dataError)
            }
            keys.keys[a] = k
        }
        return keys
    }

    /// Sets (or with `nil`, removes) the key of one device, rewriting the file atomically with mode 0600.
    func set(_ key: [UInt8]?, for address: BDAddress) throws(CLIError) {
        var keys = try load().keys
        keys[address] = key
        var text = "# blesensor-log device keys (mode 0600; never printed or exported)\n"
        for (a, k) in keys.sorted(by: { $0.key < $1.key }) { text += "\(a) \(Hex.encode(k))\n" }
        try AtomicFile.replace(path, with: Array(text.utf8), mode: 0o600)
    }

    private func readWholeFile() throws(CLIError) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }  // no key file (yet): no keys
            throw CLIError("cannot read \(path): \(String(cString: strerror(errno)))", code: ExitCode.noInput)
        }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, st.st_mode & 0o077 != 0 {
            printError("warning: \(path) is readable by others; run: chmod 600 \(path)")
        }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError("cannot read \(path): \(String(cString: strerror(errno)))", code: ExitCode.ioError)
            }
            if n == 0 { break }
            data += chunk[0..<n]
            guard data.count < 1 << 20 else { throw CLIError("\(path) is larger than 1 MiB", code: ExitCode.dataError) }
        }
        return String(decoding: data, as: UTF8.self)
    }
}
