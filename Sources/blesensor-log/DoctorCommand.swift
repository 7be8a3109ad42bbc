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
            .flag("json", help: "Print one JSON object: {\"ok\":…,\"checks\":[{\"check\",\"status\",\"detail\"}…]}."),
        ],
        discussion: """
            Each line is ok, warn or fail, the check, and what was found; warn and fail lines say
            what to do. Nothing is written: the database is checked over a read-only connection.
            EXIT STATUS: 0 nothing failed (warnings allowed); 1 a check failed; 64 bad option.
            """)

    static let subcommand = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> Int32 {
        let transport: TransportSpec
        switch TransportSpec.parse(args.value("hci")) {
        case .success(let s): transport = s
        case .failure(let e): throw .usage(e.description)
        }
        var staleMicros = DoctorChecks.defaultStaleMicros
        if let text = args.value("stale") {
            guard let d = TimeArguments.duration(text), d > 0 else { throw .usage("--stale wants a duration like 30m, got '\(text)'") }
            staleMicros = Int64(d * 1e6)
        }
        let facts = DoctorProbe.facts(
            transport: transport, databasePath: StoreAccess.databasePath(args), staleMicros: staleMicros)
        let checks = DoctorChecks.evaluate(facts)
        let out = OutputWriter(fd: 1)
        out.write(args.has("json") ? DoctorChecks.json(checks) : DoctorChecks.text(checks))
        try out.finish()
        return checks.contains { $0.status == .fail } ? ExitCode.flagged : ExitCode.ok
    }
}
