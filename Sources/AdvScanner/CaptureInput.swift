#if canImport(Glibc)
    import Glibc
#endif

/// Buffered, forward-only reading of a capture file with plain `read(2)` calls.
///
/// Why not read the whole file: a replay may be gigabytes; memory must not grow with the file.
/// Why not `FILE*`/Foundation: one `read` per 256 KiB and parsing in place is what makes millions of
/// records per second possible, and it keeps Foundation out of the binary.
///
/// Invariants:
///  (1) `start <= end <= capacity`; bytes `start..<end` of `storage` are the file bytes at offsets
///      `bufferOffset + start ..< bufferOffset + end`;
///  (2) `require(n)` never asks for more than `capacity` bytes, so a record larger than the buffer
///      can only be skipped (`skip`), never held: a lying length field cannot cause a giant allocation;
///  (3) once `read` returned 0 (end of file) no further `read` is issued;
///  (4) `storage` is an array so that a record's bytes can be handed out as a slice of it, no copy:
///      a reader that lets go of each packet before asking for the next (a replay does) refills
///      the same buffer in place; one that keeps packets keeps the buffers they lie in, as
///      copy-on-write gives the next refill a buffer of its own.
/// Not thread-safe: owned by one `CaptureReader`.
final class CaptureInput {
    /// The largest run of bytes a parser may ask to see at once.
    static let capacity = 256 * 1024

    let path: String
    private let fd: Int32
    /// The buffered bytes: `storage[start..<end]` are read and not yet consumed.
    private var storage: [UInt8]
    private var start = 0
    private var end = 0
    /// File offset of `storage[0]`.
    private var bufferOffset: Int64 = 0
    private var atEOF = false

    /// Opens `path` read-only.
    init(path: String) throws(SourceError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        // Early return: nothing to clean up yet.
        guard fd >= 0 else { throw SourceError.system(call: "open", errno: errno, detail: path) }
        self.fd = fd
        storage = [UInt8](repeating: 0, count: Self.capacity)
    }

    deinit {
        // close(2) on a read-only descriptor cannot lose data; its result carries nothing to act on.
        _ = close(fd)
    }

    /// File offset of the next unread byte.
    var offset: Int64 { bufferOffset + Int64(start) }

    /// Bytes buffered and not yet consumed.
    var available: Int { end - start }

    /// Makes at least `n` bytes available, reading as needed. Returns how many are available: `n`
    /// or more, or fewer only at the end of the file. `n` must be `<= capacity`.
    @discardableResult
    func require(_ n: Int) throws(SourceError) -> Int {
        precondition(n <= Self.capacity, "CaptureInput.require(\(n)) exceeds the buffer")
        if end - start >= n || atEOF { return end - start }
        // Move the unread tail to the front so the read can fill the rest of the buffer.
        if start > 0 {
            let tail = end - start
            if tail > 0 {
                // Front to back: each byte is read before the copy overwrites it (from > 0).
                var bytes = storage.mutableSpan
                for k in 0..<tail { bytes[k] = bytes[start + k] }
            }
            bufferOffset += Int64(start)
            start = 0
            end = tail
        }
        while end - start < n && !atEOF {
            let at = end
            let got = storage.withUnsafeMutableBytes { read(fd, $0.baseAddress! + at, Self.capacity - at) }
            if got < 0 {
                if errno == EINTR { continue }  // interrupted before any byte: retry
                throw SourceError.system(call: "read", errno: errno, detail: path)
            }
            if got == 0 { atEOF = true } else { end += got }
        }
        return end - start
    }

    /// Consumes `n` buffered bytes (`n <= available`).
    func consume(_ n: Int) {
        precondition(n <= end - start)
        start += n
    }

    /// Skips `n` bytes, buffered or not, without holding them. Returns false when the file ends first
    /// (everything up to the end is then consumed).
    func skip(_ n: Int64) throws(SourceError) -> Bool {
        var left = n
        while left > 0 {
            if available == 0 {
                guard try require(1) > 0 else { return false }
            }
            let step = Int(min(Int64(available), left))
            start += step
            left -= Int64(step)
        }
        return true
    }

    /// True when every byte of the file has been consumed.
    func isAtEnd() throws(SourceError) -> Bool { try require(1) == 0 }

    // MARK: Reads at an offset from the next unread byte; the caller has `require`d them.

    @inline(__always) func u8(_ i: Int) -> UInt8 { storage[start + i] }

    @inline(__always) func be16(_ i: Int) -> UInt16 { UInt16(u8(i)) << 8 | UInt16(u8(i + 1)) }

    @inline(__always) func le16(_ i: Int) -> UInt16 { UInt16(u8(i + 1)) << 8 | UInt16(u8(i)) }

    @inline(__always) func be32(_ i: Int) -> UInt32 { UInt32(be16(i)) << 16 | UInt32(be16(i + 2)) }

    @inline(__always) func le32(_ i: Int) -> UInt32 { UInt32(le16(i + 2)) << 16 | UInt32(le16(i)) }

    @inline(__always) func be64(_ i: Int) -> UInt64 { UInt64(be32(i)) << 32 | UInt64(be32(i + 4)) }

    /// 16 or 32 bits in the byte order a pcap/pcapng header declared.
    @inline(__always) func u16(_ i: Int, bigEndian: Bool) -> UInt16 { bigEndian ? be16(i) : le16(i) }
    @inline(__always) func u32(_ i: Int, bigEndian: Bool) -> UInt32 { bigEndian ? be32(i) : le32(i) }

    /// `count` buffered bytes starting `i` bytes ahead, as a slice of the buffer (invariant 4).
    func bytes(_ i: Int, count: Int) -> ArraySlice<UInt8> {
        precondition(i >= 0 && count >= 0 && start + i + count <= end)
        return storage[(start + i)..<(start + i + count)]
    }
}
