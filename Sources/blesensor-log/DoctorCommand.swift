import AdvScanner

/// `blesensor-log doctor`: checks what the logger needs (kernel Bluetooth, adapter, rfkill,
/// capabilities, clock, database, disk, power) and says what to do about each problem.
enum DoctorCommand {
    static let spec = CommandSpec(
        name: "doctor",
        abstract: "Check the radio, the clock, the database and the power, one line each.",
        options: [
            .value("hci", "SPEC", help: "The adapter or H4 stream 'run' would use (default: the first adapter)."),
            StoreAccess.dbOption,
            .value("stale", "D", help: "Call a sensor stale when not heard for D (default 30m)."),
            ConfigFile.option,
            .flag("json", help: "Print one JSON object: {\"ok\":…,\"checks\":[{\"check\",\"status\",\"detail\"}…]}."),
        ],
        discussion: """
            Each line is ok, warn or fail, the check, and what was found; warn and fail lines say
            what to do. Nothing is written: the database is checked over a read-only connection.
            The adapter and database are run's: --hci and --db, else those of the config file run
            reads (its first hci), which is checked too.
            EXIT STATUS: 0 nothing failed (warnings allowed); 1 a check failed; 64 bad option.
            """)

    static let subcommand = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        let (config, runArgs) = try runConfiguration(args)
        let transport: TransportSpec
        switch TransportSpec.parse(args.value("hci") ?? runArgs.all("hci").first) {
        case .success(let s): transport = s
        case .failure(let e): throw .usage(e.description)
        }
        var staleMicros = DoctorChecks.defaultStaleMicros
        if let text = args.value("stale") {
            guard let d = TimeArguments.duration(text), d > 0 else { throw .usage("--stale wants a duration like 30m, got '\(text)'") }
            staleMicros = Int64(d * 1e6)
        }
        var facts = DoctorProbe.facts(
            transport: transport, databasePath: args.value("db") ?? StoreAccess.databasePath(runArgs), staleMicros: staleMicros)
        facts.config = config
        let checks = DoctorChecks.evaluate(facts)
        let out = OutputWriter(fd: 1)
        out.write(args.has("json") ? DoctorChecks.json(checks) : DoctorChecks.text(checks))
        try out.finish()
        return checks.contains { $0.status == .fail } ? ExitCode.flagged : ExitCode.ok
    }

    /// The config file `run` would read (`--config`, else its search path), merged into `run`'s
    /// options: what doctor reports about it, and the settings it takes from it. A file that is
    /// there but wrong is a failed check, not an error: doctor goes on with the defaults.
    static func runConfiguration(_ args: ParsedArguments) throws(CLIError) -> (DoctorFacts.ConfigState, ParsedArguments) {
        var runArgs = try ParsedArguments([], spec: RunCommand.spec)
        do throws(CLIError) {
            guard let file = try ConfigFile.locate(explicit: args.value(ConfigFile.optionName)) else {
                return (.none(searched: ConfigFile.searchPath()), runArgs)
            }
            try runArgs.merge(file, spec: RunCommand.spec)
            if let hci = runArgs.all("hci").first, case .failure(let e) = TransportSpec.parse(hci) {
                throw runArgs.attributing(.usage(e.description))
            }
            return (.read(path: file.path, settings: file.entries.count), runArgs)
        } catch {
            return (.invalid(error.message), try ParsedArguments([], spec: RunCommand.spec))
        }
    }
}
