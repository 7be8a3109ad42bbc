#if canImport(Glibc)
import Glibc
#endif

/// Replaces a file's contents atomically: the bytes go to a temporary file in the same folder,
/// are synced, and the temporary file is renamed over the target. A reader (a web server, the
/// logger) sees the old file or the new one, never a part; a failure leaves the old one as it was.
enum AtomicFile {
    /// - Parameter mode: permissions of a new file (before the umask).
    /// - Throws: 73 when the temporary file cannot be created, 74 when writing or renaming fails.
    /// A link is followed: the file it names is replaced and the link stays. A device or FIFO
    /// (`/dev/stdout`, a pipe, `/dev/full`) has no contents to replace, and a rename would delete
    /// its node: the bytes are written into it, and its error (ENOSPC) is the error.
    static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644) throws(CLIError) {
        var st = stat()
        if stat(path, &st) == 0, st.st_mode & S_IFMT != S_IFREG, st.st_mode & S_IFMT != S_IFDIR {
            // Non-blocking only for the open: a FIFO nobody reads is then ENXIO at once, not a
            // logger stalled for ever; the writes block as usual.
            let fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))", code: ExitCode.ioError) }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            var failure = writeAll(fd, bytes.span) ?? 0
            if close(fd) != 0, failure == 0 { failure = errno }
            guard failure == 0 else {
                throw CLIError("cannot write \(path): \(String(cString: strerror(failure)))", code: ExitCode.ioError)
            }
            return
        }
        let target = resolvedLink(path) ?? path
        // The process id keeps two writers (a timer and a user) off each other's temporary file.
        let tmp = target + ".tmp.\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        // Every error names `path`, the file asked for: the temporary name means nothing to the user.
        guard fd >= 0 else { throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))", code: ExitCode.cantCreate) }
        var failure = writeAll(fd, bytes.span) ?? 0
        if failure == 0, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure == 0, rename(tmp, target) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(tmp)
            throw CLIError("cannot write \(path): \(String(cString: strerror(failure)))", code: ExitCode.ioError)
        }
    }

    /// The file a symbolic link at `path` finally names, or `nil` when `path` is no link or the
    /// link dangles (then the link itself is replaced).
    static func resolvedLink(_ path: String) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return nil }
        // Unsafe: realpath returns a malloc'd C string, copied and freed here.
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
