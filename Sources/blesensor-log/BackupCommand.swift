#if canImport(Glibc)
import Glibc
#endif
import AdvScanner
import SensorStore

/// `blesensor-log backup DEST`: a consistent, checked copy of the database, made while the logger
/// runs (`StoreBackup`), for a USB stick or a network share before the SD card wears out.
enum BackupCommand {
    static let spec = CommandSpec(
        name: "backup",
        abstract: "Copy the database, consistent and checked, while the logger runs.",
        arguments: [("DEST", "A file to write, or a folder to hold copies named by the time (readings-YYYYMMDDTHHMMSSZ.db).")],
        options: [
            .value("keep-last", "N", help: "With a folder: keep the newest N copies there, delete older ones (default: keep all)."),
            .flag("verbose", short: "v", help: "Say what was written and what was deleted."),
            StoreAccess.dbOption,
        ],
        discussion: """
            The copy is one file (no -wal beside it), passes SQLite's quick_check, and replaces DEST only when whole;
            a failed backup leaves DEST and the folder as they were. --keep-last deletes only files named like its
            own copies. The keys file beside the database (keys of encrypted sensors) is not part of it.
            To restore: stop the logger, delete the database's -wal and -shm files if they are there (a WAL left
            by a crash would be applied to the restored file), copy the backup over the database, start the logger.
            EXIT STATUS: 0; 64 bad option, or DEST is the database itself; 65 the database is not ours or is
            damaged; 66 no database; 73 DEST cannot be created; 74 I/O error (a full disk); 75 stopped by a
            signal (SIGINT, SIGTERM) before the copy was whole.
            """, settingsFromRunsConfig: ["db"])

    static let subcommand = Subcommand(spec: spec, run: run)

    /// Where a backup goes: a file, or a folder of dated copies.
    enum Target: Equatable {
        case file(String)
        case folder(String)
    }

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        let source = StoreAccess.databasePath(args)
        let keepLast = try keepLastCount(args)
        let target = try target(args.positionals[0])
        if keepLast != nil, case .file = target { throw .usage("--keep-last wants DEST to be a folder") }
        if access(source, F_OK) != 0 {
            throw CLIError("no database at \(source) (run 'blesensor-log run' first, or give --db)", code: ExitCode.noInput)
        }
        let destination: String
        switch target {
        case .file(let path): destination = path
        case .folder(let folder): destination = folder + "/" + datedName(source: source, nowMicros: Timestamp.nowMicros())
        }
        if let clash = clash(of: destination, with: source) {
            throw .usage("backup wants DEST apart from the database, and \(destination) is \(clash)")
        }
        let stop: StopSignal
        do { stop = try StopSignal() } catch { throw CLIError(error.description, code: ExitCode.software) }
        StopSignal.installSignalHandlers(stop)
        let copy: StoreBackup.Copy
        do {
            copy = try StoreBackup.copy(source, replacing: destination, shouldStop: { stop.isRequested })
        } catch where error.sqliteCode == StoreBackup.stoppedCode {
            throw CLIError("stopped by a signal: no copy written, \(destination) as it was", code: ExitCode.tempFail)
        } catch {
            throw StoreAccess.cliError(error)
        }
        let log = EventLog(verbose: args.has("verbose"))
        log.debug("backed up \(source) to \(destination) (\(copy.bytes) bytes, checked)")
        if let keepLast, case .folder(let folder) = target {
            let written = String(destination.dropFirst(folder.count + 1))
            for old in try copiesToDelete(in: folder, source: source, keepLast: keepLast, written: written) {
                guard unlink(folder + "/" + old) == 0 else {
                    throw CLIError("cannot delete the old copy \(folder)/\(old): \(String(cString: strerror(errno)))", code: ExitCode.ioError)
                }
                log.debug("deleted the old copy \(folder)/\(old)")
            }
        }
        return ExitCode.ok
    }

    static func keepLastCount(_ args: ParsedArguments) throws(CLIError) -> Int? {
        guard let text = args.value("keep-last") else { return nil }
        guard let n = Int(text), (1...100_000).contains(n) else {
            throw .usage("--keep-last wants a number of copies from 1 to 100000, got '\(text)'")
        }
        return n
    }

    /// What `dest` names: an existing folder, else a file (followed through a link). A device,
    /// FIFO or socket holds no database file.
    static func target(_ dest: String) throws(CLIError) -> Target {
        guard !dest.isEmpty else { throw .usage("backup wants DEST, a file or a folder") }
        var st = stat()
        guard stat(dest, &st) == 0 else { return .file(dest) }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: return .folder(dest.count > 1 && dest.hasSuffix("/") ? String(dest.dropLast()) : dest)
        case S_IFREG: return .file(AtomicFile.resolvedLink(dest) ?? dest)
        default: throw .usage("backup wants DEST to be a file or a folder, and \(dest) is neither")
        }
    }

    /// `readings-20261203T142837Z.db` for `/var/lib/blesensor-log/readings.db` at that UTC time:
    /// names that sort by time, which `--keep-last` relies on.
    static func datedName(source: String, nowMicros: Int64) -> String {
        let time = Timestamp.iso8601(micros: nowMicros - nowMicros % 1_000_000, localOffsetSeconds: nil)
        return stem(of: source) + "-" + time.filter { $0 != "-" && $0 != ":" } + ".db"
    }

    /// The names in `folder` of this database's dated copies beyond the newest `keepLast`, the
    /// one just `written` always among those kept: a Pi's clock before NTP syncs may date it
    /// before the copies already there, and the newest copy is the one to keep.
    static func copiesToDelete(in folder: String, source: String, keepLast: Int, written: String) throws(CLIError) -> [String] {
        guard let names = DoctorProbe.directoryEntries(folder) else {
            throw CLIError("cannot list \(folder): \(String(cString: strerror(errno)))", code: ExitCode.ioError)
        }
        let prefix = stem(of: source) + "-"
        let others = names.filter { $0 != written && isDatedCopy($0, prefix: prefix) }.sorted()
        return Array(others.dropLast(keepLast - 1))
    }

    /// `PREFIX` + `YYYYMMDDTHHMMSSZ` + `.db`, and nothing else.
    static func isDatedCopy(_ name: String, prefix: String) -> Bool {
        guard name.hasPrefix(prefix), name.hasSuffix(".db") else { return false }
        let stamp = Array(name.utf8.dropFirst(prefix.utf8.count).dropLast(3))
        guard stamp.count == 16, stamp[8] == UInt8(ascii: "T"), stamp[15] == UInt8(ascii: "Z") else { return false }
        return (stamp[0..<8] + stamp[9..<15]).allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The database's file name without its folder and without `.db`.
    static func stem(of source: String) -> String {
        let name = source.split(separator: "/").last.map(String.init) ?? source
        return name.hasSuffix(".db") && name.count > 3 ? String(name.dropLast(3)) : name
    }

    /// Why writing `destination` would overwrite the store itself (the file, or its `-wal`,
    /// `-shm` or `-journal`, which SQLite would read as the store's), or `nil`.
    static func clash(of destination: String, with source: String) -> String? {
        let companions = [("", "the database"), ("-wal", "its WAL"), ("-shm", "its shared memory"), ("-journal", "its journal")]
        let named = canonical(destination)
        var d = stat()
        let destinationExists = stat(destination, &d) == 0
        for (suffix, what) in companions {
            if named != nil, named == canonical(source + suffix) { return what }
            var s = stat()
            if destinationExists, stat(source + suffix, &s) == 0, s.st_dev == d.st_dev, s.st_ino == d.st_ino { return what }
        }
        return nil
    }

    /// `path` with its folder resolved (links, `..`), the file name kept: two spellings of one
    /// place compare equal even when the file does not exist yet.
    static func canonical(_ path: String) -> String? {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        // Unsafe: realpath returns a malloc'd C string, copied and freed here.
        guard let resolved = realpath(folder, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved) + "/" + name
    }
}
