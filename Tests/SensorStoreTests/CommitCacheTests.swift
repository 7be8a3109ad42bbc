import Foundation
import SensorDecode
import Testing

@testable import SensorStore

/// The writer remembers each sensor's id and latest rollup between batches instead of reading
/// them back; these tests change the file behind its back and check it notices.
@Suite struct CommitCacheTests {
    let t0: Int64 = 1_700_000_000_000_000
    let a = BDAddress(rawValue: 0xA4C1_3800_0001)
    let b = BDAddress(rawValue: 0xA4C1_3800_0002)

    /// Reading `k`: sensors a and b alternate, 10 s apart, all within the first hour after `t0`'s hour.
    func reading(_ k: Int) -> Reading {
        let hourStart = SensorStore.hour(t0) * 3_600_000_000
        return Reading(
            address: k % 2 == 0 ? a : b, decoderID: "test", model: "M",
            measurements: [
                Measurement(.temperatureC, Double(2000 + k) / 100), Measurement(.batteryPercent, Double(k % 100)),
            ],
            timeMicros: hourStart + Int64(k) * 10_000_000, rssi: -60)
    }

    func store(_ path: String) throws -> SensorStore {
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        config.batchRows = 10
        return try SensorStore(path: path, configuration: config)
    }

    @Test func aSensorForgottenByAnotherConnectionBetweenBatchesStartsAfresh() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        let s = try store(path)
        for k in 0..<40 { s.add(reading(k), now: 0) }
        s.flush(now: 0)
        let reader = try StoreReader(path: path)
        #expect(try reader.forget(.address(a)) == 20)
        // Same hour, same sensor: a cached rollup or sensor id would now be stale.
        for k in 40..<80 { s.add(reading(k), now: 1) }
        try s.close(now: 2)
        #expect(try s.checkInvariants() == [])
        #expect(try reader.verifyRollups() == [])
        let rows = try exportAll(reader).rows
        #expect(rows.filter { $0.sensor.address == a }.count == 20)
        #expect(rows.filter { $0.sensor.address == b }.count == 40)
        let summary = try reader.summary()
        #expect(summary.first { $0.sensor.address == a }?.rows == 20)
        #expect(summary.first { $0.sensor.address == b }?.rows == 40)
    }

    @Test func aRollupRewrittenByAnotherConnectionIsReadBackBeforeMerging() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        let s = try store(path)
        for k in 0..<20 { s.add(reading(k), now: 0) }
        s.flush(now: 0)
        // Another process deletes b's rows and rollup directly (as a user's sqlite3 could).
        let other = try Connection(path: path, readOnly: false, create: false, busyTimeoutMillis: 1000)
        let id = try other.scalarInt("SELECT id FROM sensors WHERE address = \(Int64(b.rawValue))")!
        try other.exec("DELETE FROM readings WHERE sensor_id = \(id)", "test")
        try other.exec("DELETE FROM rollup_hourly WHERE sensor_id = \(id)", "test")
        for k in 20..<40 { s.add(reading(k), now: 1) }
        try s.close(now: 2)
        #expect(try s.checkInvariants() == [])
        let reader = try StoreReader(path: path)
        #expect(try reader.verifyRollups() == [])
        #expect(try reader.summary().first { $0.sensor.address == b }?.rows == 10)
    }
}
