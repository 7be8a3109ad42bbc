import TestSupport
import Foundation
import SensorDecode
import Testing

@testable import SensorStore

/// Brute-force statistics from exported rows: what a summary must equal.
private struct Expected: Equatable {
    var rows = 0
    var samples = 0
    var sum = 0.0
    var min = Double.infinity
    var max = -Double.infinity
    var lastTime = Int64.min
    var last = 0.0
}

private func bruteForce(_ rows: [ExportRow], period: (Int64) -> Int64?) -> [String: Expected] {
    var out: [String: Expected] = [:]
    for r in rows {
        let p = period(r.timeMicros).map(String.init) ?? "-"
        for m in r.measurements {
            let k = "\(r.sensor.address) \(p) \(m.quantity.key)"
            var e = out[k, default: Expected()]
            e.rows += 1
            e.samples += r.samples
            e.sum += m.value
            e.min = min(e.min, m.value)
            e.max = max(e.max, m.value)
            if r.timeMicros >= e.lastTime {
                e.lastTime = r.timeMicros
                e.last = m.value
            }
            out[k] = e
        }
    }
    return out
}

private func flatten(_ summaries: [SensorSummary]) -> [String: Expected] {
    var out: [String: Expected] = [:]
    for s in summaries {
        let p = s.periodStartMicros.map(String.init) ?? "-"
        for q in s.quantities {
            out["\(s.sensor.address) \(p) \(q.quantity.key)"] = Expected(
                rows: q.rows, samples: q.samples, sum: q.mean * Double(q.rows), min: q.min, max: q.max,
                lastTime: q.lastTimeMicros, last: q.last)
        }
    }
    return out
}

private func sameStatistics(_ a: [String: Expected], _ b: [String: Expected]) -> Bool {
    guard Set(a.keys) == Set(b.keys) else { return false }
    for (k, x) in a {
        let y = b[k]!
        guard x.rows == y.rows, x.samples == y.samples, x.min == y.min, x.max == y.max, x.lastTime == y.lastTime,
            x.last == y.last, abs(x.sum - y.sum) <= 1e-9 * Swift.max(1, abs(x.sum)) * Double(x.rows)
        else { return false }
    }
    return true
}

@Suite struct StoreTests {
    let t0: Int64 = 1_700_000_000_000_000

    /// Readings of `sensors` sensors with a varying quantity set, at irregular times over `hours`.
    func mixedReadings(sensors: Int, count: Int, hours: Int64, seed: UInt64 = 7) -> [Reading] {
        var rng = SplitMix64(state: seed)
        var out: [Reading] = []
        let span = hours * 3_600_000_000
        for k in 0..<count {
            let s = Int(rng.next() % UInt64(sensors))
            var ms = [Measurement(.temperatureC, Double(Int(rng.next() % 6000) - 2000) / 100)]
            if s % 2 == 0 { ms.append(Measurement(.humidityPercent, Double(rng.next() % 1000) / 10)) }
            if s % 3 == 0 { ms.append(Measurement(.temperatureProbeC(3), Double(rng.next() % 3000) / 10)) }
            if k % 5 == 0 { ms.append(Measurement(.batteryPercent, Double(rng.next() % 101))) }
            let t = t0 + Int64(k) * span / Int64(count) + Int64(rng.next() % 1000)
            out.append(
                Reading(
                    address: BDAddress(rawValue: 0xA4C1_3800_0000 + UInt64(s)), decoderID: "test", model: "M\(s)",
                    measurements: ms, timeMicros: t, rssi: -60, name: "dev\(s)"))
        }
        return out
    }

    func write(_ path: String, _ readings: [Reading], interval: Int = 0, batchRows: Int = 500) throws -> SensorStore {
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = interval
        config.batchRows = batchRows
        let store = try SensorStore(path: path, configuration: config)
        var now = 0.0
        for r in readings {
            now += 0.01
            store.add(r, now: now)
            store.tick(now: now)
        }
        try store.close(now: now + 10)
        return store
    }

    @Test func everyReadingComesBackFromTheExportInTimeOrder() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let readings = mixedReadings(sensors: 6, count: 3000, hours: 5)
        let store = try write(dir.file("a.db"), readings)
        #expect(store.statistics.committedRows == 3000)
        #expect(try store.checkInvariants() == [])

        let reader = try StoreReader(path: dir.file("a.db"))
        let (quantities, rows) = try exportAll(reader)
        #expect(quantities.map(\.key) == ["battery_pct", "humidity_pct", "temperature_c", "temperature_probe_3_c"])
        let sorted = readings.sorted { ($0.timeMicros, $0.address) < ($1.timeMicros, $1.address) }
        #expect(rows.count == sorted.count)
        for (r, x) in zip(rows, sorted) {
            #expect(r.timeMicros == x.timeMicros && r.sensor.address == x.address && r.samples == 1)
            #expect(r.measurements == x.measurements.sorted { $0.quantity < $1.quantity })
        }
        #expect(try reader.integrityCheck() == ["ok"])
        #expect(try reader.verifyRollups() == [])
    }

    /// Batches with more rollups than the largest multi-row write (64): each chunk size is used,
    /// and every rollup still equals the aggregate of its raw rows (invariant 4), also once a
    /// second batch merges into the stored hours.
    @Test func batchesOfManySensorsWriteEveryRollup() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let readings = mixedReadings(sensors: 150, count: 6000, hours: 3, seed: 11)
        let store = try write(dir.file("a.db"), readings, interval: 60, batchRows: 1000)
        #expect(store.statistics.committedBatches >= 3)
        #expect(try store.checkInvariants() == [])
        let reader = try StoreReader(path: dir.file("a.db"))
        #expect(try reader.verifyRollups() == [])
        let rollups = try reader.connection.scalarInt("SELECT count(*) FROM rollup_hourly") ?? 0
        #expect(rollups >= 150 * 3)
    }

    /// Rows listed out of key order, with a listing that changes order and one that repeats a
    /// quantity, are stored with the right ids and values (the writer reads rows in key order).
    @Test func rowsListedInAnyOrderAreStoredByQuantity() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        typealias M = SensorDecode.Measurement
        let b = BDAddress(rawValue: 0xA4C1_3800_0001)
        func r(_ k: Int64, _ ms: [M]) -> Reading {
            Reading(address: b, decoderID: "test", model: "M", measurements: ms, timeMicros: t0 + k * 1_000_000)
        }
        let readings: [Reading] = [
            r(0, [M(.temperatureC, 20), M(.humidityPercent, 40), M(.batteryPercent, 90)]),
            r(1, [M(.temperatureC, 21), M(.humidityPercent, 41), M(.batteryPercent, 91)]),
            r(2, [M(.batteryPercent, 92), M(.temperatureC, 22), M(.humidityPercent, 42)]),
            r(3, [M(.temperatureC, 1), M(.batteryPercent, 93), M(.temperatureC, 23)]),
        ]
        let store = try write(dir.file("a.db"), readings, batchRows: 2)
        #expect(try store.checkInvariants() == [])
        let (_, rows) = try exportAll(try StoreReader(path: dir.file("a.db")))
        #expect(
            rows.map(\.measurements) == [[M]]([
                [M(.batteryPercent, 90), M(.humidityPercent, 40), M(.temperatureC, 20)],
                [M(.batteryPercent, 91), M(.humidityPercent, 41), M(.temperatureC, 21)],
                [M(.batteryPercent, 92), M(.humidityPercent, 42), M(.temperatureC, 22)],
                [M(.batteryPercent, 93), M(.temperatureC, 23)],
            ]))
    }

    /// `step()` leaves each row in the cursor with its values by column: the same rows as
    /// `next()`, NaN exactly where a row lacks a column's quantity (rows here vary in quantities).
    @Test(arguments: [[], [SensorSelector.address(BDAddress(rawValue: 0xA4C1_3800_0001))]])
    func steppingGivesTheRowsOfNextWithValuesByColumn(sensors: [SensorSelector]) throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        _ = try write(dir.file("a.db"), mixedReadings(sensors: 6, count: 2000, hours: 3))
        let reader = try StoreReader(path: dir.file("a.db"))
        let (quantities, rows) = try exportAll(reader, sensors: sensors)
        try #require(rows.count > 100)
        let cursor = try reader.export(sensors: sensors)
        #expect(cursor.quantities == quantities)
        var k = 0
        while try cursor.step() {
            try #require(k < rows.count)
            let r = rows[k]
            #expect(cursor.timeMicros == r.timeMicros && cursor.samples == r.samples)
            #expect(cursor.sensorID == r.sensor.id)
            #expect(try cursor.sensor == r.sensor)
            #expect(cursor.values.count == quantities.count)
            for (column, q) in quantities.enumerated() {
                let value = cursor.values[column]
                if let m = r.measurements.first(where: { $0.quantity == q }) {
                    #expect(value == m.value, "row \(k) \(q)")
                } else {
                    #expect(value.isNaN, "row \(k) \(q) has no value but the cursor shows \(value)")
                }
            }
            #expect(try cursor.row() == r)
            k += 1
        }
        #expect(k == rows.count)
        #expect(try cursor.step() == false)
    }

    @Test func exportFiltersByTimeRangeAddressAndAlias() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let readings = mixedReadings(sensors: 6, count: 2000, hours: 4)
        _ = try write(dir.file("a.db"), readings)
        let reader = try StoreReader(path: dir.file("a.db"))
        let a1 = BDAddress(rawValue: 0xA4C1_3800_0001)
        let a2 = BDAddress(rawValue: 0xA4C1_3800_0002)
        try reader.setAlias("kitchen", for: .address(a2))
        let range = TimeRange(from: t0 + 1_234_567_890, to: t0 + 9_000_000_000)
        let inRange = readings.filter { $0.timeMicros >= range.from! && $0.timeMicros < range.to! }

        let one = try exportAll(reader, range: range, sensors: [.address(a1)])
        #expect(one.rows.map(\.timeMicros) == inRange.filter { $0.address == a1 }.map(\.timeMicros))
        // Sensor 1 is odd and not a multiple of 3: only temperature and sometimes battery.
        #expect(one.quantities.map(\.key) == ["battery_pct", "temperature_c"])

        let two = try exportAll(
            reader, range: range, sensors: [SensorSelector("kitchen"), SensorSelector(a1.description)])
        let expected = inRange.filter { $0.address == a1 || $0.address == a2 }
            .sorted { ($0.timeMicros, $0.address) < ($1.timeMicros, $1.address) }
        #expect(two.rows.map(\.timeMicros) == expected.map(\.timeMicros))
        #expect(two.rows.first { $0.sensor.address == a2 }?.sensor.alias == "kitchen")

        #expect(throws: StoreError.unknownSensor("pantry")) { _ = try reader.export(sensors: [.alias("pantry")]) }
    }

    @Test(arguments: [
        SummaryGrouping.none, .hour, .day(utcOffsetSeconds: 3600), .day(utcOffsetSeconds: -16200),
    ])
    func summaryFromRollupsEqualsBruteForceOverRawRows(_ grouping: SummaryGrouping) throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let readings = mixedReadings(sensors: 5, count: 6000, hours: 30)
        _ = try write(dir.file("a.db"), readings, interval: 60)
        let reader = try StoreReader(path: dir.file("a.db"))
        for range in [
            TimeRange.all, TimeRange(from: t0 + 1_800_000_123, to: t0 + 26 * 3_600_000_000 + 77),
            TimeRange(from: t0 + 100, to: t0 + 2_000_000_000),  // inside one hour
        ] {
            let (_, rows) = try exportAll(reader, range: range)
            let period: (Int64) -> Int64?
            switch grouping {
            case .none: period = { _ in nil }
            case .hour: period = { SensorStore.hour($0) * 3_600_000_000 }
            case .day(let off):
                period = { t in
                    let d: Int64 = 86_400_000_000
                    let l = t + off * 1_000_000
                    return (l >= 0 ? l / d : (l - d + 1) / d) * d - off * 1_000_000
                }
            }
            let summary = try reader.summary(range: range, by: grouping)
            #expect(sameStatistics(flatten(summary), bruteForce(rows, period: period)), "range \(range)")
            let perSensorRows = Dictionary(grouping: rows) { "\($0.sensor.address) \(period($0.timeMicros) ?? 0)" }
            for s in summary {
                let mine = perSensorRows["\(s.sensor.address) \(s.periodStartMicros ?? 0)"] ?? []
                #expect(s.rows == mine.count && s.samples == mine.reduce(0) { $0 + $1.samples })
            }
        }
    }

    /// A stored row whose measurement blob lost its last byte is refused by export (both ways of
    /// reading the cursor) as damage, not read past its end; the rows before it come out whole.
    @Test func aTruncatedMeasurementBlobIsRefusedByExport() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        _ = try write(path, mixedReadings(sensors: 3, count: 40, hours: 1))
        let c = try Connection(path: path, readOnly: false, create: false, busyTimeoutMillis: 100)
        let victim = try #require(try c.scalarInt("SELECT time_us FROM readings ORDER BY time_us LIMIT 1 OFFSET 10"))
        try c.exec("UPDATE readings SET data = substr(data, 1, length(data) - 1) WHERE time_us = \(victim)", "test")
        let reader = try StoreReader(path: path)
        for stepping in [true, false] {
            let cursor = try reader.export()
            var rows = 0
            do {
                if stepping {
                    while try cursor.step() { rows += 1 }
                } else {
                    while try cursor.next() != nil { rows += 1 }
                }
                Issue.record("read every row of a damaged file")
            } catch {
                #expect(error.kind == .damaged)
            }
            #expect(rows == 10)
        }
    }

    /// A rollup whose `stats` blob is cut short is refused by a summary over whole hours.
    @Test func aTruncatedRollupIsRefusedBySummary() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        _ = try write(path, mixedReadings(sensors: 3, count: 600, hours: 4), interval: 60)
        let c = try Connection(path: path, readOnly: false, create: false, busyTimeoutMillis: 100)
        try c.exec("UPDATE rollup_hourly SET stats = substr(stats, 1, length(stats) - 1)", "test")
        let reader = try StoreReader(path: path)
        let hour0 = SensorStore.hour(t0) * 3_600_000_000
        do {
            _ = try reader.summary(range: TimeRange(from: hour0, to: hour0 + 5 * 3_600_000_000))
            Issue.record("summarized a damaged rollup")
        } catch {
            #expect(error.kind == .damaged)
        }
    }

    @Test func downsampledRowsKeepTheirSampleCounts() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let readings = mixedReadings(sensors: 3, count: 3000, hours: 2)
        let store = try write(dir.file("a.db"), readings, interval: 60)
        let reader = try StoreReader(path: dir.file("a.db"))
        let (_, rows) = try exportAll(reader)
        #expect(rows.reduce(0) { $0 + $1.samples } == 3000 - store.statistics.downsample.duplicates)
        #expect(rows.allSatisfy { $0.timeMicros % 60_000_000 == 0 })
        #expect(Set(rows.map { "\($0.timeMicros) \($0.sensor.address)" }).count == rows.count)
    }

    @Test func writingTheSameReadingsAgainAddsNoRow() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let readings = mixedReadings(sensors: 4, count: 1000, hours: 3)
        _ = try write(dir.file("a.db"), readings, interval: 60)
        let again = try write(dir.file("a.db"), readings, interval: 60)
        #expect(again.statistics.committedRows == 0)
        #expect(again.statistics.ignoredRows > 0)
        let reader = try StoreReader(path: dir.file("a.db"))
        #expect(try reader.verifyRollups() == [])
    }

    /// Batches mixing rows already stored, rows out of time order (stored or not) and new rows:
    /// every row is stored once and the rollups count only the rows that were inserted
    /// (invariants 3, 4, 8).
    @Test func aReplayOverlappingStoredRowsStoresOnlyTheNewOnes() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let readings = mixedReadings(sensors: 5, count: 2000, hours: 4)
        // The first run misses every 7th reading, so the second run's old readings are a mix.
        let firstPart = readings[..<1200].enumerated().filter { $0.offset % 7 != 3 }.map(\.element)
        let first = try write(dir.file("a.db"), firstPart, batchRows: 300)
        // The second run starts 400 readings back and adds reordered readings of the first part.
        var second = Array(readings[800...])
        second.insert(contentsOf: readings[100..<160].reversed(), at: 500)
        let again = try write(dir.file("a.db"), second, batchRows: 300)
        let missedAndReplayed = (100..<160).filter { $0 % 7 == 3 }.count + (800..<1200).filter { $0 % 7 == 3 }.count
        #expect(first.statistics.committedRows == firstPart.count)
        #expect(again.statistics.committedRows == 800 + missedAndReplayed)
        #expect(again.statistics.ignoredRows == second.count - again.statistics.committedRows)
        let reader = try StoreReader(path: dir.file("a.db"))
        let (_, rows) = try exportAll(reader)
        #expect(rows.count == firstPart.count + 800 + missedAndReplayed)
        #expect(try reader.verifyRollups() == [])
        #if DEBUG
            #expect(try again.checkInvariants() == [])
        #endif
    }

    /// A batch whose late rows go back to hours its earlier rows of the same sensor opened, in
    /// alternation (5:30, 6:30, 5:10, 6:10, 5:20 of one sensor, unfolded): each row counts once
    /// in the one rollup of its hour (the commit looks the hour's rollup up for rows out of time
    /// order, and only for them).
    @Test func rowsOutOfTimeOrderInOneBatchGoToTheRollupsOfTheirHours() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let hour: Int64 = 3_600_000_000
        let base = (t0 / hour + 5) * hour
        let minutes: [Int64] = [30, 90, 10, 70, 20]
        let readings = minutes.map { m in
            Reading(
                address: BDAddress(rawValue: 0xA4C1_3800_0001), decoderID: "test", model: "M",
                measurements: [Measurement(.temperatureC, Double(m))],
                timeMicros: base + m * 60_000_000)
        }
        let store = try write(dir.file("a.db"), readings, interval: 0, batchRows: 100)
        #expect(store.statistics.committedRows == 5)
        #expect(store.statistics.committedBatches == 1)
        let reader = try StoreReader(path: dir.file("a.db"))
        #expect(try reader.verifyRollups() == [])
    }

    @Test func sensorsTableKeepsLastFacts() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let readings = mixedReadings(sensors: 3, count: 300, hours: 1)
        _ = try write(dir.file("a.db"), readings)
        let reader = try StoreReader(path: dir.file("a.db"))
        let sensors = try reader.sensors()
        #expect(sensors.count == 3)
        for s in sensors {
            let mine = readings.filter { $0.address == s.address }
            #expect(
                s.firstSeenMicros == mine.map(\.timeMicros).min() && s.lastSeenMicros == mine.map(\.timeMicros).max())
            #expect(s.lastBatteryPercent == mine.last { $0.value(.batteryPercent) != nil }?.value(.batteryPercent))
            #expect(s.radioName == mine.last?.name && s.model == mine.last?.model && s.lastRSSI == -60)
        }
    }

    @Test func aliasesAreUniqueAndNeverLookLikeAddresses() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        _ = try write(dir.file("a.db"), mixedReadings(sensors: 2, count: 20, hours: 1))
        let reader = try StoreReader(path: dir.file("a.db"))
        let a0 = BDAddress(rawValue: 0xA4C1_3800_0000)
        let a1 = BDAddress(rawValue: 0xA4C1_3800_0001)
        try reader.setAlias("cellar", for: .address(a0))
        #expect(try reader.sensor(.alias("cellar")).address == a0)
        #expect(throws: StoreError.self) { try reader.setAlias("cellar", for: .address(a1)) }
        #expect(throws: StoreError.self) { try reader.setAlias("A4:C1:38:00:00:09", for: .address(a1)) }
        try reader.setAlias(nil, for: .alias("cellar"))
        #expect(try reader.sensor(.address(a0)).alias == nil)
    }

    @Test func forgetRemovesTheSensorItsReadingsAndItsRollups() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let readings = mixedReadings(sensors: 3, count: 3000, hours: 3)
        _ = try write(dir.file("a.db"), readings)
        let reader = try StoreReader(path: dir.file("a.db"))
        let gone = BDAddress(rawValue: 0xA4C1_3800_0001)
        let n = try reader.forget(.address(gone), rowsPerStep: 100)
        #expect(n == readings.filter { $0.address == gone }.count)
        #expect(try reader.sensors().map(\.address).contains(gone) == false)
        #expect(try exportAll(reader).rows.allSatisfy { $0.sensor.address != gone })
        #expect(try reader.summary().allSatisfy { $0.sensor.address != gone })
        #expect(try reader.verifyRollups() == [])
    }

    @Test func retentionPrunesInSmallStepsAndKeepsRollupsEqualToRows() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        config.retentionSeconds = 3 * 3600
        config.pruneRowsPerStep = 100
        config.batchRows = 200
        // Stored without retention first (the store rejects readings already past the cutoff),
        // then opened with it at the newest reading's time.
        let readings = (0..<(10 * 60 * 4)).map { tortureReading($0, sensors: 4, start: june2026Micros) }  // 10 h, 4 sensors, 1/min
        let clock = FakeClock(wall: readings.last!.timeMicros)
        var unlimited = config
        unlimited.retentionSeconds = nil
        let writer = try SensorStore(path: dir.file("a.db"), configuration: unlimited, clock: clock)
        var now = 0.0
        for r in readings {
            now += 0.01
            writer.add(r, now: now)
        }
        try writer.close(now: now)
        let store = try SensorStore(path: dir.file("a.db"), configuration: config, clock: clock)
        var steps = 0
        var last = -1
        while last != 0 {
            let before = store.statistics.prunedRows
            now += 1
            store.tick(now: now)
            last = store.statistics.prunedRows - before
            #expect(last <= 100)
            steps += 1
            #expect(steps < 1000)
        }
        let newest = readings.last!.timeMicros
        let cutoff = SensorStore.hour(newest - 3 * 3_600_000_000) * 3_600_000_000
        let reader = try StoreReader(path: dir.file("a.db"))
        let (_, rows) = try exportAll(reader)
        #expect(rows.first.map { $0.timeMicros >= cutoff } == true)
        #expect(rows.count == readings.filter { $0.timeMicros >= cutoff }.count)
        #expect(store.statistics.prunedRows == readings.count - rows.count)
        #expect(steps > 10)
        #expect(try reader.verifyRollups() == [])
        #expect(try store.checkInvariants() == [])
    }

    @Test func aFullDiskKeepsThePendingBatchLogsOnceAndResumes() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let log = LogLines()
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        config.batchRows = 100
        config.batchSeconds = 1
        let store = try SensorStore(path: dir.file("a.db"), configuration: config, log: log.append)
        let pages = try store.pageCount()
        try store.setMaxPageCount(pages + 8)
        var now = 0.0
        var failures = 0
        let total = 3000
        for k in 0..<total {
            now += 0.01
            if case .failed(let e) = store.add(tortureReading(k, sensors: 5), now: now) {
                #expect(e.isDiskFull)
                failures += 1
            }
            store.tick(now: now)
        }
        #expect(failures > 0)
        #expect(store.currentFailure?.isDiskFull == true)
        #expect(store.pendingRows > 0)
        #expect(log.lines.count == 1)
        #expect(log.lines.first?.contains("full") == true)
        let committedBefore = store.statistics.committedRows
        // Space returns.
        try store.setMaxPageCount(1 << 30)
        now += 2
        store.tick(now: now)
        try store.close(now: now)
        #expect(store.currentFailure == nil)
        #expect(log.lines.count == 2 && log.lines[1].contains("resumed"))
        #expect(store.statistics.committedRows == total)
        #expect(committedBefore < total)
        let reader = try StoreReader(path: dir.file("a.db"))
        let (_, rows) = try exportAll(reader)
        #expect(rows.count == total)
        #expect(try reader.integrityCheck() == ["ok"])
        #expect(try reader.verifyRollups() == [])
    }

    @Test func pendingRowsAreBoundedWhileTheDatabaseFails() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let log = LogLines()
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        config.batchRows = 50
        config.maxPendingRows = 500
        let store = try SensorStore(path: dir.file("a.db"), configuration: config, log: log.append)
        try store.setMaxPageCount(try store.pageCount())
        for k in 0..<5000 { store.add(tortureReading(k, sensors: 3), now: Double(k)) }
        #expect(store.pendingRows <= 500)
        #expect(store.statistics.droppedRows >= 4000)
        #expect(store.statistics.droppedRows + store.pendingRows + store.statistics.committedRows == 5000)
        #expect(log.lines.filter { $0.contains("dropped") }.count == 1)
        #expect(try store.checkInvariants() == [])
    }

    @Test func aReaderSnapshotNeverSeesALaterBatch() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        config.batchRows = 100
        let store = try SensorStore(path: dir.file("a.db"), configuration: config)
        for k in 0..<100 { store.add(tortureReading(k, sensors: 4), now: 0) }
        let reader = try StoreReader(path: dir.file("a.db"))
        let cursor = try reader.export()
        let first = try cursor.next()
        #expect(first != nil)
        // The logger keeps committing while the export is open: neither waits for the other.
        for k in 100..<1000 {
            if case .failed(let e) = store.add(tortureReading(k, sensors: 4), now: 0) { Issue.record("\(e)") }
        }
        #expect(store.statistics.committedRows == 1000)
        var n = 1
        while try cursor.next() != nil { n += 1 }
        #expect(n == 100)
        #expect(try exportAll(reader).rows.count == 1000)
    }
}

@Suite struct BatchTimingTests {
    /// The crash-loss bound of the defaults (SensorStore.swift, GUARANTEE): 30 sensors heard every
    /// 2 s for an hour, ticked every second as `run` does. At every moment, every row whose
    /// interval ended more than `batchSeconds` (and a tick) ago is committed, so a kill -9 then
    /// loses at most the open interval and 10 minutes of rows; and the store commits about every
    /// 10 minutes, not at every interval's end (what wore the SD card).
    @Test func theDefaultsCommitEveryTenMinutesAndACrashLosesNoMore() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let config = StoreConfiguration()
        #expect(config.batchSeconds == 600 && config.downsample.intervalSeconds == 60)
        let start = june2026Micros
        let clock = FakeClock(wall: start)
        let store = try SensorStore(path: dir.file("a.db"), configuration: config, clock: clock)
        let reader = try StoreReader(path: dir.file("a.db"))
        let sensors = 30
        for second in 0..<3600 {
            let now = start + Int64(second) * 1_000_000
            clock.wall = now
            clock.monotonic = 1000 + Double(second)
            for s in 0..<sensors where (second + s) % 2 == 0 {
                store.add(
                    Reading(
                        address: BDAddress(rawValue: 0xC0FF_EE00_0000 + UInt64(s)), decoderID: "test", model: "M",
                        measurements: [Measurement(.temperatureC, Double(second % 100) / 10)], timeMicros: now),
                    now: clock.monotonic)
            }
            store.tick(now: clock.monotonic, wallMicros: now)
            guard second % 30 == 29 else { continue }
            // What a crash now would lose: the rows of every ended interval from the oldest one
            // not yet in the file.
            let stored = Set(try exportAll(reader).rows.map { $0.timeMicros })
            var end = start + 60_000_000
            while end <= now, stored.contains(end - 60_000_000) { end += 60_000_000 }
            if end <= now { #expect(now - end <= 601_000_000, "at \(second) s, rows ended at \(end) µs are not stored") }
        }
        #expect((5...7).contains(store.statistics.committedBatches), "\(store.statistics.committedBatches) commits")
        try store.close(now: 5000)
        #expect(try exportAll(reader).rows.count == 60 * sensors)
    }

    @Test func aBatchCommitsAfterBatchSecondsOrBatchRowsWhicheverFirst() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        config.batchSeconds = 5
        config.batchRows = 50
        let store = try SensorStore(path: dir.file("a.db"), configuration: config)
        for k in 0..<10 { #expect(store.add(tortureReading(k, sensors: 2), now: 100 + Double(k) * 0.1) == .notDue) }
        #expect(store.tick(now: 104.9) == .notDue)
        #expect(store.tick(now: 105.0) == .committed(rows: 10, inserted: 10))
        #expect(store.tick(now: 200) == .nothingPending)
        // 50 rows arrive within a second: the row bound commits at once.
        var results: [FlushResult] = []
        for k in 10..<60 { results.append(store.add(tortureReading(k, sensors: 2), now: 201)) }
        #expect(results.last == .committed(rows: 50, inserted: 50))
        #expect(results.dropLast().allSatisfy { $0 == .notDue })
    }

    @Test func anotherWritersLockIsLivedThroughAndLoggedOnce() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let log = LogLines()
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        config.batchRows = 10
        config.busyTimeoutMillis = 10
        let clock = FakeClock(wall: june2026Micros)
        let store = try SensorStore(path: dir.file("a.db"), configuration: config, clock: clock, log: log.append)
        let other = try Connection(path: dir.file("a.db"), readOnly: false, create: false, busyTimeoutMillis: 10)
        try other.exec("BEGIN IMMEDIATE", "hold the write lock")
        var now = 0.0
        for k in 0..<100 {
            now += 1
            store.add(tortureReading(k, sensors: 3), now: now)
            store.tick(now: now)
        }
        #expect(store.currentFailure?.isBusy == true)
        #expect(log.lines.count == 1)
        try other.exec("COMMIT", "release the write lock")
        now += 10
        clock.monotonic += 10  // retries wait on the store's clock (FailureBackoffTests)
        store.tick(now: now)
        #expect(store.currentFailure == nil)
        #expect(store.statistics.committedRows == 100)
        #expect(log.lines.count == 2 && log.lines[1].contains("resumed"))
    }

    @Test func aNewStoreCarriesItsVersionAndApplicationID() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        _ = try SensorStore(path: dir.file("a.db"))
        let c = try Connection(path: dir.file("a.db"), readOnly: true, create: false, busyTimeoutMillis: 10)
        #expect(try c.scalarInt("PRAGMA user_version") == Int64(Schema.version))
        #expect(try c.scalarInt("PRAGMA application_id") == Int64(Schema.applicationID))
        #expect(try c.scalarText("PRAGMA journal_mode") == "wal")
    }
}

@Suite struct OpenRefusalTests {
    @Test func aNewerDatabaseIsRefusedAndLeftUntouched() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("new.db")
        do {
            let s = try SensorStore(path: path)
            s.add(tortureReading(0, sensors: 1), now: 0)
            try s.close(now: 0)
        }
        do {
            let c = try Connection(path: path, readOnly: false, create: false, busyTimeoutMillis: 100)
            try c.exec("PRAGMA user_version = 99", "test")
            try c.exec("PRAGMA wal_checkpoint(TRUNCATE)", "test")
        }
        let before = try #require(fileBytes(path))
        #expect(throws: StoreError.newerSchema(path: path, found: 99, supported: Schema.version)) {
            _ = try SensorStore(path: path)
        }
        #expect(throws: StoreError.self) { _ = try StoreReader(path: path) }
        #expect(fileBytes(path) == before)
        let message = StoreError.newerSchema(path: path, found: 99, supported: 1).description
        #expect(message.contains("newer") && !message.contains("\n"))
    }

    @Test func aFileThatIsNotSQLiteIsRefusedAndLeftUntouched() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("notes.db")
        var rng = SplitMix64(state: 3)
        let garbage = (0..<8192).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(garbage)))
        do {
            _ = try SensorStore(path: path)
            Issue.record("opened a garbage file")
        } catch {
            #expect(error.sqliteCode == 26)  // SQLITE_NOTADB
            #expect(error.description.contains("nothing written"))
        }
        #expect(fileBytes(path) == garbage)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aDamagedStoreIsRefusedAndLeftUntouched() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("bad.db")
        do {
            let s = try SensorStore(path: path)
            for k in 0..<50 { s.add(tortureReading(k, sensors: 2), now: 0) }
            try s.close(now: 0)
            let c = try Connection(path: path, readOnly: false, create: false, busyTimeoutMillis: 100)
            try c.exec("PRAGMA wal_checkpoint(TRUNCATE)", "test")
        }
        var bytes = try #require(fileBytes(path))
        // Keep the 100-byte header, wipe the rest of page 1 (the schema's root).
        for i in 100..<4096 { bytes[i] = 0x5A }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        #expect(throws: StoreError.self) { _ = try SensorStore(path: path) }
        #expect(fileBytes(path) == bytes)
    }

    @Test func anotherApplicationsDatabaseIsRefused() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("other.db")
        do {
            let c = try Connection(path: path, readOnly: false, create: true, busyTimeoutMillis: 100)
            try c.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)", "test")
        }
        let before = try #require(fileBytes(path))
        do {
            _ = try SensorStore(path: path)
            Issue.record("opened a foreign database")
        } catch {
            guard case .foreignDatabase = error else {
                Issue.record("wrong error \(error)")
                return
            }
        }
        #expect(fileBytes(path) == before)
    }

    @Test func aReaderNeverCreatesAMissingDatabase() {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("missing.db")
        #expect(throws: StoreError.self) { _ = try StoreReader(path: path) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func anEmptyFileBecomesAStore() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("empty.db")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let s = try SensorStore(path: path)
        #expect(try s.checkInvariants() == [])
    }
}

/// Retention anchored on the trusted current time (issue 23 item 1): the readings' own stamps
/// never move it, and no retention value traps.
@Suite struct RetentionTests {
    static let day: Int64 = 86_400_000_000
    /// A week of 4 sensors every 10 minutes, ending an hour before `now`.
    func week(now: Int64) -> [Reading] {
        let start = now - 7 * Self.day - 3_600_000_000
        return (0..<(7 * 144 * 4)).map { tortureReading($0, sensors: 4, start: start, step: 600_000_000) }
    }

    func store(_ path: String, keepDays: Int64?, clock: FakeClock, log: LogLines = LogLines()) throws -> SensorStore {
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        config.retentionSeconds = keepDays.map { $0 * 86_400 }
        return try SensorStore(path: path, configuration: config, clock: clock, log: log.append)
    }

    func feed(_ store: SensorStore, _ readings: [Reading], clock: FakeClock) throws {
        var now = 0.0
        for r in readings {
            now += 1
            store.add(r, now: now)
            store.tick(now: now)
        }
        try store.close(now: now)
    }

    /// A store at `dir/a.db` holding `week(now:)` for a clock at June 2026, stored without retention.
    func seeded(_ dir: TempDir) throws -> (path: String, clock: FakeClock, readings: [Reading]) {
        let clock = FakeClock(wall: june2026Micros)
        let path = dir.file("a.db")
        let readings = week(now: clock.wall)
        try feed(try store(path, keepDays: nil, clock: clock), readings, clock: clock)
        return (path, clock, readings)
    }

    func reading(at t: Int64) -> Reading {
        var r = tortureReading(0, sensors: 1, start: t)
        r.timeMicros = t
        return r
    }

    @Test func aFutureStampedReadingIsRejectedAndNeitherDeletesNorHidesHistory() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let (path, clock, readings) = try seeded(dir)
        let now = clock.wall
        let log = LogLines()
        let keeping = try store(path, keepDays: 400, clock: clock, log: log)
        try feed(keeping, [reading(at: 4_102_444_800_000_000)], clock: clock)  // 2100-01-01
        #expect(keeping.statistics.futureTimes == 1)
        #expect(keeping.statistics.prunedRows == 0)
        #expect(log.lines.count == 1 && log.lines[0].contains("rejected"), "\(log.lines)")
        try feed(try store(path, keepDays: nil, clock: clock), readings, clock: clock)
        let reader = try StoreReader(path: path)
        #expect(try exportAll(reader).rows.count == readings.count)
        #expect(try reader.sensors().allSatisfy { $0.lastSeenMicros <= now })
        #expect(try reader.verifyRollups() == [])
    }

    @Test func aWallClockAheadForThreeSecondsStoresNothingAheadAndPrunesNothing() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let (path, clock, readings) = try seeded(dir)
        let now = clock.wall
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        config.retentionSeconds = 400 * 86_400
        config.pruneEverySeconds = 0  // a retention step at every tick, the jump's ticks included
        let live = try SensorStore(path: path, configuration: config, clock: clock)
        let jump: Int64 = 4_102_444_800_000_000 - now
        var tickNow = 0.0
        for second in 0..<10 {
            clock.advance(1)
            if (3..<6).contains(second) { clock.wall += jump }
            live.tick(now: tickNow)  // reads the clock: the reading below meets the jumped time
            live.add(reading(at: clock.wall), now: tickNow)
            if (3..<6).contains(second) { clock.wall -= jump }
            tickNow += 1
        }
        try live.close(now: tickNow)
        #expect(live.statistics.futureTimes == 3)
        #expect(live.statistics.prunedRows == 0)
        let reader = try StoreReader(path: path)
        #expect(try exportAll(reader).rows.count == readings.count + 7)
        #expect(try reader.verifyRollups() == [])
    }

    @Test func anOldCaptureReplayedWithKeepDropsOnlyWhatIsOlderThanKeepBeforeNow() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let (path, clock, recent) = try seeded(dir)
        let now = clock.wall
        // A capture of 600 days ago to 580 days ago, and another of 30 days ago.
        let old = (0..<200).map { tortureReading($0, sensors: 2, start: now - 600 * Self.day, step: 6 * 3_600_000_000) }
        let month = (0..<40).map { tortureReading($0, sensors: 2, start: now - 30 * Self.day, step: 3_600_000_000) }
        let replay = try store(path, keepDays: 400, clock: clock)
        try feed(replay, old + month, clock: clock)
        #expect(replay.statistics.beyondRetention == old.count)
        let reader = try StoreReader(path: path)
        let rows = try exportAll(reader).rows
        #expect(rows.count == recent.count + month.count)
        #expect(rows.allSatisfy { $0.timeMicros >= now - 400 * Self.day })
        #expect(try reader.verifyRollups() == [])
    }

    @Test(arguments: [Int64.max, 10_000_000_000_000, 9_223_372_036_855, 0, -1, Int64.min])
    func anyRetentionValueIsSafe(_ keep: Int64) throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let now = june2026Micros
        let clock = FakeClock(wall: now)
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        config.retentionSeconds = keep
        let store = try SensorStore(path: dir.file("a.db"), configuration: config, clock: clock)
        let readings = week(now: now)
        try feed(store, readings, clock: clock)
        try store.pruneStep()
        let kept = try exportAll(try StoreReader(path: dir.file("a.db"))).rows.count
        if keep >= 8 * 86_400 { #expect(kept == readings.count) } else { #expect(kept < readings.count) }
    }

    @Test func aHorizonInTheFutureIsUndoneAtOpenAndEveryRowIsVisibleAgain() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let (path, clock, readings) = try seeded(dir)
        let now = clock.wall
        // What the old store left: a horizon 400 days before 2100, and the rollups of some hours
        // gone with half their rows (a prune step interrupted by the next batch).
        do {
            let c = try Connection(path: path, readOnly: false, create: false, busyTimeoutMillis: 200)
            try c.exec("INSERT INTO meta (key, value) VALUES ('prune_horizon_us', 4067870400000000)", "test")
            try c.exec("DELETE FROM readings WHERE time_us < \(now - 6 * Self.day)", "test")
            try c.exec("DELETE FROM rollup_hourly WHERE hour < \((now - 5 * Self.day) / 3_600_000_000)", "test")
        }
        let before = try exportAll(try StoreReader(path: path)).rows.count
        #expect(before == 0)
        let log = LogLines()
        _ = try store(path, keepDays: nil, clock: clock, log: log)
        #expect(log.lines.count == 1 && log.lines[0].contains("horizon"), "\(log.lines)")
        let reader = try StoreReader(path: path)
        let expected = readings.filter { $0.timeMicros >= now - 6 * Self.day }.count
        #expect(try exportAll(reader).rows.count == expected)
        #expect(try reader.verifyRollups() == [])
    }
}

/// A database that refuses writes (issue 23 item 6): retries back off on the store's monotonic
/// clock whatever the pace of the caller's, and the pending rows stay bounded.
@Suite struct FailureBackoffTests {
    func fullStore(_ path: String, clock: FakeClock, _ configure: (inout StoreConfiguration) -> Void = { _ in })
        throws -> SensorStore
    {
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        config.batchRows = 100
        configure(&config)
        let store = try SensorStore(path: path, configuration: config, clock: clock)
        try store.setMaxPageCount(try store.pageCount() + 4)
        return store
    }

    @Test func attemptsFollowTheRealClockAndBackOffToTheLimit() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let clock = FakeClock(wall: june2026Micros)
        let store = try fullStore(dir.file("a.db"), clock: clock)
        // A replay's clock: an hour of capture time a second of real time.
        var now = 0.0
        var k = 0
        func feed(_ n: Int) {
            for _ in 0..<n {
                now += 1
                store.add(tortureReading(k, sensors: 5, start: june2026Micros - 86_400_000_000, step: 10_000_000), now: now)
                store.tick(now: now)
                k += 1
            }
        }
        feed(20_000)
        #expect(store.currentFailure?.isDiskFull == true)
        let first = store.statistics.failedCommits
        #expect(first == 1)
        // Real time passes: attempts after 5, 10, 20, 40, 60, 60 s.
        var attemptsAt: [Double] = []
        var elapsed = 0.0
        for _ in 0..<250 {
            clock.monotonic += 1
            elapsed += 1
            let before = store.statistics.failedCommits
            feed(1)
            if store.statistics.failedCommits > before { attemptsAt.append(elapsed) }
        }
        #expect(attemptsAt == [5, 15, 35, 75, 135, 195])
        try store.setMaxPageCount(1 << 30)
        clock.monotonic += 60
        feed(1)
        #expect(store.currentFailure == nil)
        try store.close(now: now)
        #expect(store.statistics.committedRows == k)
    }

    @Test func refusingReadingsKeepsPendingBoundedAndDropsNothing() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let clock = FakeClock(wall: june2026Micros)
        let store = try fullStore(dir.file("a.db"), clock: clock) {
            $0.maxPendingRows = 500
            $0.pendingOverflow = .refuseReadings
            $0.downsample.intervalSeconds = 60
        }
        var now = 0.0
        for k in 0..<5000 {
            now += 1
            store.add(tortureReading(k, sensors: 7, start: june2026Micros - 86_400_000_000, step: 20_000_000), now: now)
            store.tick(now: now)
            #expect(store.pendingRows <= 500)
        }
        #expect(store.isRefusingReadings)
        #expect(store.statistics.refusedReadings > 0)
        #expect(store.statistics.droppedRows == 0)
        #expect(try store.checkInvariants() == [])
        _ = try? store.close(now: now)
        #expect(store.pendingRows <= 500)
    }

    @Test func droppingTheOldestIsWhatALoggerDoes() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let clock = FakeClock(wall: june2026Micros)
        let store = try fullStore(dir.file("a.db"), clock: clock) { $0.maxPendingRows = 500 }
        var now = 0.0
        for k in 0..<5000 {
            now += 1
            store.add(tortureReading(k, sensors: 7, start: june2026Micros - 86_400_000_000), now: now)
            store.tick(now: now)
        }
        #expect(store.pendingRows <= 500)
        #expect(store.statistics.droppedRows > 0)
        #expect(store.statistics.refusedReadings == 0)
    }
}

/// Invariant 11: a crowd of unknown addresses gets `maxNewSensorsPerHour` sensors an hour, and
/// known sensors are always stored.
@Suite struct NewSensorCapTests {
    func reading(sensor: Int, at t: Int64) -> Reading {
        var r = tortureReading(sensor, sensors: 1_000_000, start: t)
        r.timeMicros = t
        return r
    }

    @Test func unknownAddressesBeyondTheHoursCapAreNotStoredAndKnownOnesAlwaysAre() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let log = LogLines()
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        config.maxNewSensorsPerHour = 10
        config.batchRows = 50
        let store = try SensorStore(
            path: dir.file("a.db"), configuration: config, clock: FakeClock(wall: june2026Micros), log: log.append)
        let start = june2026Micros - 86_400_000_000
        var now = 0.0
        var t = start
        func hear(_ sensor: Int) {
            now += 1
            t += 1_000_000
            store.add(reading(sensor: sensor, at: t), now: now)
            store.tick(now: now)
        }
        for round in 0..<3 {
            for sensor in 0..<100 { hear(sensor) }
            #expect(round >= 0)
        }
        _ = store.flush(now: now)
        #expect(store.statistics.committedRows == 30)
        #expect(store.statistics.newSensorRowsRefused == 270)
        #expect(log.lines.filter { $0.contains("new sensors") }.count == 1, "\(log.lines)")
        // The next hour: ten more sensors; the first ten are known and still stored.
        now += 3600
        for sensor in 0..<100 { hear(sensor) }
        try store.close(now: now)
        let reader = try StoreReader(path: dir.file("a.db"))
        #expect(try reader.sensors().count == 20)
        #expect(try exportAll(reader).rows.count == 30 + 20)
        #expect(log.lines.filter { $0.contains("new sensors") }.count == 1, "\(log.lines)")
    }
}
