#if canImport(Glibc)
import Glibc
#endif
import SensorDecode
import SensorStore

/// `blesensor-bench ingest` and `gendb`: rows through SensorStore's batched writer.
///
/// The readings are synthetic and regular: `--sensors` MM-BLEBC7 sensors (fixed addresses), each
/// heard once a minute, so that the 60 s downsampling folds each reading into exactly one row and
/// rows/s equals readings/s. Three quantities per reading (temperature, humidity, battery), as the
/// commonest thermometers send.
enum StoreBench {
    /// The address of sensor `i` (random static: top two bits set).
    static func address(_ i: Int) -> BDAddress { BDAddress(rawValue: 0xC0FF_EE00_0000 | UInt64(i)) }

    /// Reading `k` of the regular sequence starting at `startMicros`: sensor k % sensors, minute k / sensors.
    static func reading(_ k: Int, sensors: Int, startMicros: Int64) -> Reading {
        let s = k % sensors
        let minute = Int64(k / sensors)
        // Slow, bounded variation; exact at 0.01 °C and 0.1 % as real decoders produce.
        let temperature = Double(2000 + (k / sensors + s * 37) % 700 - 350) / 100
        let humidity = Double(500 + (k / sensors + s * 11) % 300) / 10
        return Reading(
            address: address(s), addressType: .randomDevice, decoderID: "minew_ffe1", model: "MM-BLEBC7",
            frameKind: "a1-01",
            measurements: [
                Measurement(.temperatureC, temperature), Measurement(.humidityPercent, humidity),
                Measurement(.batteryPercent, Double(100 - s % 40)),
            ],
            timeMicros: startMicros + minute * 60_000_000 + Int64(s) * 1_000, rssi: Int8(-50 - s % 40))
    }

    /// Writes `count` readings and closes the store. Returns the wall and CPU seconds of the
    /// store's work and the rows committed.
    static func write(
        path: String, count: Int, sensors: Int, startMicros: Int64, batchRows: Int
    ) throws(BenchError) -> (seconds: Double, cpuSeconds: Double, rows: Int) {
        let configuration = StoreConfiguration(
            batchSeconds: 1e9, batchRows: batchRows, maxPendingRows: max(100_000, 2 * batchRows))
        var failure: String? = nil
        let store: SensorStore
        do throws(StoreError) {
            store = try SensorStore(path: path, configuration: configuration, log: { failure = failure ?? $0 })
        } catch {
            throw BenchError("cannot open \(path): \(error.description)")
        }
        // The clock runs only while the store works, as the Python reference times only its
        // inserts of rows it built beforehand: each batch's readings are made with the clock
        // stopped. Each is then moved into the store, which frees it (timed, as in the logger).
        var seconds = 0.0
        var cpuSeconds = 0.0
        var chunk: [Reading] = []
        chunk.reserveCapacity(max(1, batchRows))
        var k = 0
        while k < count {
            // Made last first, so that `popLast` hands them over in order: each reading is moved
            // into the store, as the logger moves a decoder's reading (no copy to time).
            let end = min(count, k + max(1, batchRows))
            for j in (k..<end).reversed() { chunk.append(reading(j, sensors: sensors, startMicros: startMicros)) }
            k = end
            let start = monotonicSeconds()
            let startCPU = processCPUSeconds()
            while let r = chunk.popLast() {
                if case .failed(let e) = store.add(consume r, now: 0) { throw BenchError("store write failed: \(e.description)") }
            }
            seconds += monotonicSeconds() - start
            cpuSeconds += processCPUSeconds() - startCPU
        }
        let closing = monotonicSeconds()
        let closingCPU = processCPUSeconds()
        do throws(StoreError) {
            try store.close(now: 0)
        } catch {
            throw BenchError("store close failed: \(error.description)")
        }
        seconds += monotonicSeconds() - closing
        cpuSeconds += processCPUSeconds() - closingCPU
        if let failure { throw BenchError("store reported: \(failure)") }
        return (seconds, cpuSeconds, store.statistics.committedRows)
    }

    /// `ingest --db PATH --rows N [--sensors S] [--batch B]`: rows/s through the writer (default
    /// batch: the store's own default, so the number is the logger's).
    static func ingest(_ options: Options) throws(BenchError) {
        let path = try options.string("db")
        let rows = try options.int("rows")
        let sensors = try options.int("sensors", default: 50)
        let batch = try options.int("batch", default: StoreConfiguration().batchRows)
        let r = try write(path: path, count: rows, sensors: sensors, startMicros: 1_700_000_000_000_000, batchRows: batch)
        report([
            ("rows_per_s", fixed(Double(r.rows) / r.seconds)), ("cpu_us_per_row", fixed(r.cpuSeconds * 1e6 / Double(r.rows), 2)),
            ("rows", "\(r.rows)"), ("batch", "\(batch)"),
        ])
    }

    /// `gendb --db PATH (--rows N | --days D) [--sensors S] [--end-now 1]`: a database for the export
    /// and summary benchmarks, through the store's bulk path (one transaction per 100 000 rows).
    /// With `--end-now 1` the last minute is the current one, so `summary --since 24h` sees a full day.
    static func gendb(_ options: Options) throws(BenchError) {
        let path = try options.string("db")
        let sensors = try options.int("sensors", default: 50)
        let rows = try options.int("rows", default: try options.int("days", default: 0) * 1440 * sensors)
        let minutes = Int64((rows + sensors - 1) / max(1, sensors))
        var start: Int64 = 1_700_000_000_000_000
        if try options.int("end-now", default: 0) == 1 {
            var ts = timespec()
            _ = clock_gettime(CLOCK_REALTIME, &ts)
            let nowMinute = Int64(ts.tv_sec) / 60 * 60 * 1_000_000
            start = nowMinute - (minutes - 1) * 60_000_000
        }
        let r = try write(path: path, count: rows, sensors: sensors, startMicros: start, batchRows: 100_000)
        report([("rows", "\(r.rows)"), ("seconds", fixed(r.seconds, 1)), ("start_us", "\(start)")])
    }
}
