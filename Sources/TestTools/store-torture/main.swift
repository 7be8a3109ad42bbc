// store-torture: drives SensorStore as a real process for the fault tests
// (Tests/SensorStoreTests/ProcessFaultTests.swift) and the benchmark numbers. Not a product.
//
//   store-torture write --db PATH [--sensors 5] [--readings 10000] [--step-us 60000000]
//                       [--interval 0] [--batch-rows 100] [--batch-seconds 5] [--sleep-us 0]
//                       [--max-pages-extra N --raise-after 3] [--drop-privileges]
//       Feeds deterministic readings (see `tortureReading` in TestSupport), virtual monotonic time 1 ms per
//       reading. Prints "committed N" on stdout after each commit (N = rows stored so far), and
//       "done N" at the end. Store log lines go to stderr. With --max-pages-extra the file may grow
//       only N pages (SQLITE_FULL, like a full disk) until `--raise-after` failed commits, then
//       the limit is lifted ("space returns").
//   store-torture open --db PATH [--reader] [--drop-privileges]
//       Opens the store (writer, or reader) and prints "opened", or the error on stderr (exit 1).
//   store-torture bench --db PATH [--sensors 50] [--readings 1000000] [--batch-rows 10000]
//       Batched insert speed and bytes per row, then query timings.
import SensorDecode
import SensorStore
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Unbuffered writes, so a test reading the pipe sees each line as soon as it is true.
func write(_ fd: Int32, _ line: String) {
    var bytes = Array(line.utf8)
    bytes.append(UInt8(ascii: "\n"))
    bytes.withUnsafeBytes { p in _ = Glibc.write(fd, p.baseAddress!, p.count) }
}
func out(_ line: String) { write(1, line) }
func log(_ line: String) { write(2, line) }

func fail(_ message: String) -> Never {
    log("store-torture: \(message)")
    exit(2)
}

var options: [String: String] = [:]
let args = Array(CommandLine.arguments.dropFirst())
guard let command = args.first else { fail("usage: store-torture write|open|bench --db PATH [options]") }
var i = 1
while i < args.count {
    let a = args[i]
    guard a.hasPrefix("--") else { fail("unexpected argument \(a)") }
    if ["--drop-privileges", "--reader", "--skip-export"].contains(a) {
        options[a] = "1"
        i += 1
    } else {
        guard i + 1 < args.count else { fail("\(a) needs a value") }
        options[a] = args[i + 1]
        i += 2
    }
}

@MainActor func int(_ name: String, _ d: Int) -> Int {
    guard let s = options[name] else { return d }
    guard let v = Int(s) else { fail("\(name) wants an integer, not \(s)") }
    return v
}
@MainActor func double(_ name: String, _ d: Double) -> Double {
    guard let s = options[name] else { return d }
    guard let v = Double(s) else { fail("\(name) wants a number, not \(s)") }
    return v
}
guard let db = options["--db"] else { fail("--db PATH is required") }

if options["--drop-privileges"] != nil, geteuid() == 0 {
    // Root ignores directory permissions; become "nobody" so an unwritable directory is one.
    guard setgid(65534) == 0, setuid(65534) == 0 else {
        fail("cannot drop privileges: \(String(cString: strerror(errno)))")
    }
}

func cpuSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

switch command {
case "write":
    let sensors = max(1, int("--sensors", 5))
    let total = int("--readings", 10_000)
    let start = Int64(int("--start-us", 1_700_000_000_000_000))
    let step = Int64(int("--step-us", 60_000_000))
    let sleepMicros = int("--sleep-us", 0)
    var config = StoreConfiguration()
    config.downsample.intervalSeconds = int("--interval", 0)
    config.batchRows = int("--batch-rows", 100)
    config.batchSeconds = double("--batch-seconds", 5)
    let store: SensorStore
    do { store = try SensorStore(path: db, configuration: config, log: log) } catch {
        log(error.description)
        exit(1)
    }
    var limited = false
    if let extra = options["--max-pages-extra"].flatMap({ Int64($0) }) {
        do {
            let pages = try store.pageCount()
            try store.setMaxPageCount(pages + extra)
            limited = true
        } catch {
            fail(error.description)
        }
    }
    let raiseAfter = int("--raise-after", 3)
    var failures = 0
    var now = 0.0
    func report(_ r: FlushResult) {
        switch r {
        case .committed:
            out("committed \(store.statistics.committedRows)")
        case .failed:
            failures += 1
            if limited, failures >= raiseAfter {
                do { try store.setMaxPageCount(1 << 30) } catch { fail(error.description) }
                limited = false
                out("raised")
            }
        case .nothingPending, .notDue: break
        }
    }
    for k in 0..<total {
        now += 0.001
        report(store.add(tortureReading(k, sensors: sensors, start: start, step: step), now: now))
        report(store.tick(now: now))
        if sleepMicros > 0 { usleep(UInt32(sleepMicros)) }
    }
    // Drain: keep retrying (virtual time) until everything is in, as a logger would.
    var attempts = 0
    while store.pendingRows > 0 || attempts == 0 {
        now += config.batchSeconds
        do {
            try store.close(now: now)
            out("committed \(store.statistics.committedRows)")
        } catch {
            report(.failed(error))
        }
        attempts += 1
        if attempts > 100 { fail("could not drain the pending rows: \(store.currentFailure?.description ?? "?")") }
    }
    out("done \(store.statistics.committedRows)")

case "open":
    do {
        if options["--reader"] != nil { _ = try StoreReader(path: db) } else { _ = try SensorStore(path: db) }
        out("opened")
    } catch {
        log(error.description)
        exit(1)
    }

case "bench":
    let sensors = max(1, int("--sensors", 50))
    let total = int("--readings", 1_000_000)
    let start = Int64(int("--start-us", 1_700_000_000_000_000))
    var config = StoreConfiguration()
    config.downsample.intervalSeconds = 0
    config.batchRows = int("--batch-rows", 10_000)
    config.maxPendingRows = max(config.batchRows * 2, 100_000)
    if total > 0 {
        let store: SensorStore
        do { store = try SensorStore(path: db, configuration: config, log: log) } catch { fail(error.description) }
        let t0 = monotonic()
        let c0 = cpuSeconds()
        for k in 0..<total {
            if case .failed(let e) = store.add(tortureReading(k, sensors: sensors, start: start, step: 60_000_000), now: 0) {
                fail(e.description)
            }
        }
        do { try store.close(now: 0) } catch { fail(error.description) }
        let dt = monotonic() - t0
        let cpu = cpuSeconds() - c0
        let rows = store.statistics.committedRows
        out(
            "insert: \(rows) rows in \(dt) s = \(Int(Double(rows) / dt)) rows/s wall, \(Int(Double(rows) / cpu)) rows/s "
                + "of CPU (batch \(config.batchRows), 3 quantities)")
    }
    do {
        let reader = try StoreReader(path: db)
        let rows = try reader.summary().reduce(0) { $0 + $1.rows }
        var st = stat()
        _ = stat(db, &st)
        var wal = stat()
        _ = stat(db + "-wal", &wal)
        out(
            "size: \(rows) rows, main \(st.st_size) B + wal \(wal.st_size) B = \(Double(st.st_size + wal.st_size) / Double(max(1, rows))) B/row"
        )
        let end = try reader.sensors().map(\.lastSeenMicros).max() ?? start
        func timed<T>(_ label: String, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
            let t = monotonic()
            let c = cpuSeconds()
            let v = try body()
            out("\(label): \(Int((monotonic() - t) * 1e6)) µs wall, \(Int((cpuSeconds() - c) * 1e6)) µs CPU")
            return v
        }
        let h: Int64 = 3_600_000_000
        for _ in 0..<3 {
            _ = try timed("summary 24 h (unaligned), \(sensors) sensors") { () throws(StoreError) in
                try reader.summary(range: TimeRange(from: end - 24 * h - h / 2, to: end - h / 2))
            }
        }
        _ = try timed("summary 24 h by hour") { () throws(StoreError) in
            try reader.summary(range: TimeRange(from: end - 24 * h - h / 2, to: end - h / 2), by: .hour)
        }
        _ = try timed("summary by day (UTC+1), whole database") { () throws(StoreError) in
            try reader.summary(by: .day(utcOffsetSeconds: 3600))
        }
        _ = try timed("summary by day (UTC+5:30), whole database") { () throws(StoreError) in
            try reader.summary(by: .day(utcOffsetSeconds: 19800))
        }
        _ = try timed("summary whole database") { () throws(StoreError) in try reader.summary() }
        if options["--skip-export"] != nil { exit(0) }
        let n = try timed("export all") { () throws(StoreError) -> Int in
            let cursor = try reader.export()
            var n = 0
            while try cursor.next() != nil { n += 1 }
            return n
        }
        out("  exported \(n) rows")
        let one = try timed("export one sensor, all time") { () throws(StoreError) -> Int in
            let cursor = try reader.export(sensors: [
                .address(BDAddress(rawValue: 0xC0FF_EE00_0000 + 7 % UInt64(sensors)))
            ])
            var n = 0
            while try cursor.next() != nil { n += 1 }
            return n
        }
        out("  exported \(one) rows")
    } catch {
        fail(error.description)
    }

default:
    fail("unknown command \(command)")
}
