#if canImport(Glibc)
import Glibc
#endif

/// blesensor-bench: the Swift side of scripts/bench. Each subcommand measures one thing through
/// the library modules and prints one `key=value …` line; the script runs the peers on the same
/// data in the same run and prints the ratios. Not installed, not tested, not part of CI: timing
/// goals live in the script and BENCHMARKS.md only.

let usage = """
    USAGE: blesensor-bench <command> [options]

    COMMANDS:
      decode FILE [--rounds N] [--min-seconds S | --passes N]
                  advertisements/s through Registry.standard().decode; FILE has
                  'AA:BB:CC:DD:EE:FF <AD hex>' lines
      capture FILE
                  capture reader → HCI parsing → report assembly → decode, no store;
                  prints advertisements/s and counts (scripts/bench runs it under callgrind)
      ingest --db PATH --rows N [--sensors S] [--batch B]
                  rows/s through SensorStore's batched writer (regular synthetic readings)
      gendb --db PATH (--rows N | --days D) [--sensors S] [--end-now 1]
                  a database for export/summary, one transaction per 100 000 rows
      has NAME    exit 0 when measurement NAME is built in (scripts/bench asks before running it)
    """

/// The measurements this build has.
let measurements: Set<String> = ["decode", "capture", "ingest", "gendb"]

func runBench() -> Int32 {
    let args = CommandLine.arguments
    guard args.count >= 2 else {
        printError(usage)
        return 64
    }
    do throws(BenchError) {
        let options = try Options(args.dropFirst(2))
        switch args[1] {
        case "decode": try DecodeBench.run(options)
        case "capture": try CaptureBench.run(options)
        case "ingest": try StoreBench.ingest(options)
        case "gendb": try StoreBench.gendb(options)
        case "has": return options.positional.allSatisfy(measurements.contains) ? 0 : 1
        case "--help", "-h", "help":
            print(usage)
        default:
            printError("Error: unknown command '\(args[1])'\n" + usage)
            return 64
        }
        return 0
    } catch {
        printError("Error: \(error.description)")
        return 1
    }
}

exit(runBench())
