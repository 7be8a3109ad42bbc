#if canImport(Glibc)
import Glibc
#endif

/// blesensor-log: the command line. It parses arguments, picks the source and the sink, and maps
/// failures to sysexits codes; everything else lives in the library modules.

let version = "0.1.0"

/// A subcommand: its spec and what it runs.
struct Subcommand: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) throws(CLIError) -> Int32
}

/// Every subcommand, in the order `--help` lists them.
let subcommands: [Subcommand] = [
    RunCommand.subcommand,
    ReplayCommand.subcommand,
    CollectCommand.subcommand,
    ScanCommand.subcommand,
    ExportCommand.subcommand,
    SummaryCommand.subcommand,
    ReportCommand.subcommand,
    ChartCommand.subcommand,
    SensorsCommand.subcommand,
    BackupCommand.subcommand,
    DecodeCommand.subcommand,
    DoctorCommand.subcommand,
]

@MainActor func topLevelHelp() -> String {
    var s = "OVERVIEW: Passive BLE advertisement sensor logger.\n\nUSAGE: blesensor-log <command> [options]\n\nCOMMANDS:\n"
    for c in subcommands { s += "  " + c.spec.name.padding(12) + c.spec.abstract + "\n" }
    s += "\n  See 'blesensor-log <command> --help' for the options of each command.\n"
    return s
}

extension String {
    func padding(_ n: Int) -> String { count >= n ? self + " " : self + String(repeating: " ", count: n - count) }
}

/// Help or version text on standard output: 0, or 74 with one line when it cannot be written
/// (a full disk), as for any other output.
func printHelp(_ text: String) -> Int32 {
    let out = OutputWriter(fd: 1)
    out.write(bytes: Array(text.utf8))
    do throws(CLIError) { try out.finish() } catch {
        printError("Error: \(error.message)")
        return error.code
    }
    return ExitCode.ok
}

@MainActor func runMain() -> Int32 {
    signal(SIGPIPE, SIG_IGN)  // a closed pipe is an EPIPE write error we handle, not a death
    let args = Array(CommandLine.arguments.dropFirst())
    guard let first = args.first else {
        writeError(topLevelHelp() + "\n")
        return ExitCode.usage
    }
    switch first {
    case "--version", "-V", "version":
        return printHelp("blesensor-log \(version)\n")
    case "--help", "-h", "help":
        return printHelp(topLevelHelp())
    default: break
    }
    guard let command = subcommands.first(where: { $0.spec.name == first }) else {
        printError("Error: unknown command '\(first)'")
        printError("Usage: blesensor-log <command> [options]; commands: " + subcommands.map(\.spec.name).joined(separator: ", "))
        return ExitCode.usage
    }
    do throws(CLIError) {
        var parsed = try ParsedArguments(Array(args.dropFirst()), spec: command.spec)
        if parsed.helpRequested { return printHelp(command.spec.help) }
        try parsed.readConfigFile(spec: command.spec)
        do throws(CLIError) { return try command.run(parsed) } catch { throw parsed.attributing(error) }
    } catch {
        printError("Error: \(error.message)")
        if error.showUsage { printError("Usage: \(command.spec.usageLine)") }
        return error.code
    }
}

exit(runMain())
