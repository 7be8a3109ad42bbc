#if canImport(Glibc)
    import Glibc
#endif

/// Writes HCI packets to a btsnoop file, link type 1002 (H4), the format Android snoop logs use and
/// Wireshark and `btmon -r` open.
///
/// Layout (all big-endian; BlueZ `src/shared/btsnoop.c`, RFC 1761):
///   file header: `"btsnoop\0"` | version 1 (4) | link type 1002 (4)
///   record:      original length (4) | included length (4) | flags (4) | drops (4) | time (8) | H4 packet
///   flags:       bit 0 = received (controller → host), bit 1 = command or event (not data)
///   time:        µs since 0000-01-01; `0x00E03AB44A676000` is 2000-01-01T00:00:00Z.
///
/// Crash safety — the guarantee: after a kill at any moment the file holds the header and whole
/// records, possibly followed by part of one record (a `write(2)` cut short). `CaptureReader` returns
/// every whole record and then a "truncated" error; Wireshark reads the whole records.
/// How: records are buffered in memory whole, and the buffer is handed to `write(2)` only in whole
/// records; buffered records are at most `flushBytes` bytes or `flushInterval` seconds old (checked on
/// each `write`; call `flush()` from a timer when traffic stops). No `fsync`: a power cut may lose
/// what the kernel had not written back, which is the price of not wearing out an SD card.
/// Not thread-safe: one loop owns a writer. Call `close()` to learn about the last flush's errors.
public final class CaptureWriter {
    public let path: String
    public let flushBytes: Int
    public let flushInterval: Double
    private var fd: Int32
    private var buffer: [UInt8] = []
    private var lastFlush: Double
    /// Records written (buffered or on disk).
    public private(set) var recordCount = 0

    /// Creates (or truncates) `path` and writes the btsnoop header.
    /// - Parameters:
    ///   - flushBytes: write to the file once this many bytes are buffered.
    ///   - flushInterval: write to the file when the oldest buffered record is older than this (s).
    public init(path: String, flushBytes: Int = 64 * 1024, flushInterval: Double = 1.0) throws(SourceError) {
        self.path = path
        self.flushBytes = flushBytes
        self.flushInterval = flushInterval
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SourceError.system(call: "open", errno: errno, detail: path) }
        self.fd = fd
        lastFlush = Self.monotonicSeconds()
        buffer.reserveCapacity(flushBytes + 2048)
        buffer.append(contentsOf: Array("btsnoop".utf8) + [0])
        Self.appendBE32(&buffer, 1)
        Self.appendBE32(&buffer, CaptureLinkType.btsnoopH4)
        // The header goes out at once, so even an empty capture is a valid file.
        try flush()
    }

    deinit {
        guard fd >= 0 else { return }
        // deinit has no caller to report to; `close()` is the path that reports. Write what we can.
        do { try flush() } catch {}
        _ = Glibc.close(fd)
    }

    /// Appends one packet; writes the buffer out when it is full or old.
    public func write(_ packet: HCIPacket) throws(SourceError) {
        guard fd >= 0 else { throw SourceError.unavailable("\(path): capture writer is closed") }
        let length = UInt32(packet.bytes.count + 1)
        let isCommandOrEvent = packet.type == .command || packet.type == .event
        let flags: UInt32 = (packet.incoming ? 0x1 : 0) | (isCommandOrEvent ? 0x2 : 0)
        Self.appendBE32(&buffer, length)  // original length
        Self.appendBE32(&buffer, length)  // included length
        Self.appendBE32(&buffer, flags)
        Self.appendBE32(&buffer, 0)  // cumulative drops
        let ts = BTSnoopTime.stamp(unixMicros: packet.timeMicros)
        Self.appendBE32(&buffer, UInt32(truncatingIfNeeded: ts >> 32))
        Self.appendBE32(&buffer, UInt32(truncatingIfNeeded: ts))
        buffer.append(packet.type.rawValue)
        buffer.append(contentsOf: packet.bytes)
        recordCount += 1
        if buffer.count >= flushBytes || Self.monotonicSeconds() - lastFlush >= flushInterval {
            try flush()
        }
    }

    /// Hands every buffered record to the kernel. Idempotent; cheap when nothing is buffered.
    public func flush() throws(SourceError) {
        lastFlush = Self.monotonicSeconds()
        guard fd >= 0, !buffer.isEmpty else { return }
        var done = 0
        let total = buffer.count
        let failure: Int32? = buffer.withUnsafeBytes { raw -> Int32? in
            while done < total {
                let n = Glibc.write(fd, raw.baseAddress! + done, total - done)
                if n < 0 {
                    if errno == EINTR { continue }  // nothing written: retry
                    return errno
                }
                done += n  // a short write (disk nearly full) continues with the rest
            }
            return nil
        }
        // Keep what did not go out, so a later flush can retry it (e.g. after disk space returns).
        buffer.removeFirst(done)
        if let failure { throw SourceError.system(call: "write", errno: failure, detail: path) }
    }

    /// Flushes and closes the file. Idempotent.
    public func close() throws(SourceError) {
        guard fd >= 0 else { return }
        defer {
            _ = Glibc.close(fd)  // after flush: the data is already with the kernel
            fd = -1
        }
        try flush()
    }

    private static func appendBE32(_ out: inout [UInt8], _ v: UInt32) {
        out.append(UInt8(truncatingIfNeeded: v >> 24))
        out.append(UInt8(truncatingIfNeeded: v >> 16))
        out.append(UInt8(truncatingIfNeeded: v >> 8))
        out.append(UInt8(truncatingIfNeeded: v))
    }

    private static func monotonicSeconds() -> Double {
        var ts = timespec()
        // CLOCK_MONOTONIC cannot fail with a valid pointer; a failure would leave zeros (flush sooner).
        _ = clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
