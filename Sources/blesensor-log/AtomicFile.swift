#if canImport(Glibc)
import Glibc
#endif

/// Replaces a file's contents atomically: the bytes go to a temporary file in the same folder,
/// are synced, and the temporary file is renamed over the target. A reader (a web server, the
/// logger) sees the old file or the new one, never a part; a failure leaves the old one as it was.
enum AtomicFile {
    /// - Parameter mode: permissions of a new file (before the umask).
    /// - Throws: 73 when the temporary file cannot be created, 74 when writing or renaming fails.
    static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644) throws(CLIError) {
        // The process id keeps two writers (a timer and a user) off each other's temporary file.
        let tmp = path + ".tmp.\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw CLIError("cannot write \(tmp): \(String(cString: strerror(errno)))", code: ExitCode.cantCreate) }
        var failure: Int32 = 0
        bytes.withUnsafeBytes { p in
            var off = 0
            while off < p.count {
                let n = write(fd, p.baseAddress! + off, p.count - off)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                off += n
            }
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure == 0, rename(tmp, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(tmp)
            throw CLIError("cannot write \(path): \(String(cString: strerror(failure)))", code: ExitCode.ioError)
        }
    }
}
