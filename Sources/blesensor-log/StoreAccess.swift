#if canImport(Glibc)
import Glibc
#endif
import SensorStore

/// Opening the store from a command: the default path, the writer and the reader, and how a
/// `StoreError` becomes a one-line message and a sysexits code.
enum StoreAccess {
    /// `--db PATH`, else the default (see `Paths.defaultDatabase`).
    static func databasePath(_ args: ParsedArguments) -> String {
        args.value("db") ?? Paths.defaultDatabase()
    }

    static let dbOption = OptionSpec.value(
        "db", "PATH", help: "Database file (default: $BLESENSOR_DB, /var/lib/blesensor-log/readings.db as root, else ~/.local/share/blesensor-log/readings.db).")

    /// The exit status for a store failure: a file that is not ours, newer, or damaged is bad data
    /// (65); a file or folder we cannot create or open for writing is 73; anything else is I/O (74).
    static func exitCode(_ e: StoreError) -> Int32 {
        switch e.kind {
        case .notOurs, .newerVersion, .damaged: return ExitCode.dataError
        case .unknownSensor, .invalidArgument: return ExitCode.usage
        case .cannotOpen, .readOnly: return ExitCode.cantCreate
        case .diskFull, .busy, .io: return ExitCode.ioError
        }
    }

    static func cliError(_ e: StoreError) -> CLIError { CLIError(e.description, code: exitCode(e)) }

    /// Opens the writer, creating the folder and the file when needed.
    static func openWriter(path: String, configuration: StoreConfiguration, log: @escaping (String) -> Void)
        throws(CLIError) -> SensorStore
    {
        try Paths.ensureParentDirectory(of: path)
        do { return try SensorStore(path: path, configuration: configuration, log: log) } catch { throw cliError(error) }
    }

    /// Opens an existing database for reading; a missing one is "no input" (66).
    static func openReader(path: String) throws(CLIError) -> StoreReader {
        if access(path, F_OK) != 0 {
            throw CLIError("no database at \(path) (run 'blesensor-log run' first, or give --db)", code: ExitCode.noInput)
        }
        do { return try StoreReader(path: path) } catch { throw cliError(error) }
    }
}

/// Options shared by `run` and `replay` that shape what is stored.
enum StoreOptions {
    static let interval = OptionSpec.value(
        "interval", "D", help: "Fold each sensor's readings over D into one row (mean; default 60s; 0 stores every advertisement).")
    static let keep = OptionSpec.value("keep", "D", help: "Delete readings older than D, e.g. 400d (default: keep forever).")
    static let only = OptionSpec.value("only", "ADDR", repeatable: true, help: "Store only this device (repeatable).")

    static func configuration(_ args: ParsedArguments) throws(CLIError) -> StoreConfiguration {
        var c = StoreConfiguration()
        if let text = args.value("interval") {
            guard let d = TimeArguments.duration(text), d == d.rounded(), d <= 86400 else {
                throw .usage("--interval wants whole seconds up to a day (e.g. 60s, 5m, 0), got '\(text)'")
            }
            c.downsample.intervalSeconds = Int(d)
        }
        if let text = args.value("keep") {
            guard let d = TimeArguments.duration(text), d >= 3600 else {
                throw .usage("--keep wants a duration of at least 1h (e.g. 400d), got '\(text)'")
            }
            c.retentionSeconds = Int64(d)
        }
        return c
    }

    static func onlyAddresses(_ args: ParsedArguments) throws(CLIError) -> Set<BDAddress> {
        var set: Set<BDAddress> = []
        for text in args.all("only") {
            guard let a = BDAddress(text) else { throw .usage("--only wants an address like AA:BB:CC:DD:EE:FF, got '\(text)'") }
            set.insert(a)
        }
        return set
    }
}

import SensorDecode
