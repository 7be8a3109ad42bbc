import TestSupport
import Foundation
import SensorDecode
import Testing

@testable import SensorStore

/// Invariant 3's merge of a second row for a stored (time, sensor): `StoredSpan` (Downsampler.swift)
/// and the writer that applies it (SensorStore.swift).
@Suite struct StoredSpanTests {
    let stored = StoredSpan(samples: 10, first: 1_000, last: 2_000)

    @Test func disjointSpansMergeAndOverlappingOnesKeepOneFoldWhole() {
        #expect(stored.meets(StoredSpan(samples: 3, first: 2_001, last: 2_500)) == .merge)
        #expect(stored.meets(StoredSpan(samples: 1, first: 999, last: 999)) == .merge)
        #expect(stored.meets(stored) == .replay)
        #expect(stored.meets(StoredSpan(samples: 4, first: 1_000, last: 1_400)) == .replay)
        #expect(stored.meets(StoredSpan(samples: 30, first: 1_000, last: 3_000)) == .replace)
        #expect(stored.meets(StoredSpan(samples: 10, first: 1_500, last: 3_000)) == .replay)
        #expect(stored.merged(with: StoredSpan(samples: 5, first: 3_000, last: 4_000))
            == StoredSpan(samples: 15, first: 1_000, last: 4_000))
    }

    @Test func meansAreWeightedByTheirSamplesAndWholeNumbersTakeTheLaterRow() {
        let later = StoredSpan(samples: 30, first: 3_000, last: 4_000)
        let merged = StoredSpan.merge(
            [(1, 20.0), (2, 50.0), (3, 80)], stored, [(1, 24.0), (3, 79), (4, 7)], later, lastWins: [3])
        #expect(merged.map(\.id) == [1, 2, 3, 4])
        #expect(merged[0].value == (20.0 * 10 + 24.0 * 30) / 40)
        #expect(merged[1].value == 50)
        #expect(merged[2].value == 79)
        #expect(merged[3].value == 7)
        // The stored row heard last: its whole number stays.
        let earlier = StoredSpan(samples: 30, first: 0, last: 500)
        #expect(StoredSpan.merge([(3, 80)], stored, [(3, 79)], earlier, lastWins: [3])[0].value == 80)
    }

    /// One sensor, a reading every 10 s from `start`, temperature `i % 50` tenths above 20 °C.
    func readings(_ range: Range<Int>, start: Int64) -> [Reading] {
        range.map { i in
            Reading(
                address: BDAddress(rawValue: 0xA4C1_3800_0001), addressType: .publicDevice, decoderID: "test",
                model: "M",
                measurements: [
                    Measurement(.temperatureC, 20 + Double(i % 50) / 10), Measurement(.batteryPercent, Double(100 - i / 100)),
                ], timeMicros: start + Int64(i) * 10_000_000, rssi: -50)
        }
    }

    func write(_ path: String, _ rs: [Reading], interval: Int = 3600) throws -> SensorStore {
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = interval
        config.batchRows = 7
        let store = try SensorStore(path: path, configuration: config, clock: FakeClock(wall: june2026Micros))
        var now = 0.0
        for r in rs {
            now += 1
            store.add(r, now: now)
            store.tick(now: now)
        }
        try store.close(now: now)
        return store
    }

    @Test func aSecondRowIsMergedWithItsRollupAndAReplayAddsNothing() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        let start = june2026Micros - 86_400_000_000
        let all = readings(0..<1000, start: start)
        _ = try write(path, Array(all[..<555]))
        let second = try write(path, Array(all[555...]))
        #expect(second.statistics.mergedRows == 1)
        #expect(try second.checkInvariants() == [])
        let again = try write(path, all)
        #expect(again.statistics.mergedRows == 0)
        #expect(again.statistics.committedRows == 0)
        let reader = try StoreReader(path: path)
        let rows = try exportAll(reader).rows
        #expect(rows.reduce(0) { $0 + $1.samples } == 1000)
        let hour = 360
        for (h, row) in rows.enumerated() {
            let own = all[(h * hour)..<min(1000, (h + 1) * hour)]
            let mean = own.map { $0.measurements[0].value }.reduce(0, +) / Double(own.count)
            #expect(abs(row.measurements.first { $0.quantity == .temperatureC }!.value - mean) < 1e-9)
            #expect(row.measurements.first { $0.quantity == .batteryPercent }!.value == own.last!.measurements[1].value)
        }
        #expect(try reader.verifyRollups() == [])
    }

    @Test func aRowStoredBeforeMigration2IsNeverMergedInto() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        let start = june2026Micros - 86_400_000_000
        let all = readings(0..<1000, start: start)
        _ = try write(path, Array(all[..<555]))
        do {
            // What migration 2 leaves in a row it found: no span.
            let c = try Connection(path: path, readOnly: false, create: false, busyTimeoutMillis: 200)
            try c.exec("UPDATE readings SET first_after_us = NULL, last_after_us = NULL", "test")
        }
        let second = try write(path, Array(all[555...]))
        #expect(second.statistics.mergedRows == 0)
        #expect(second.statistics.ignoredRows == 1)
        #expect(try StoreReader(path: path).verifyRollups() == [])
    }
}
