import Foundation
import SensorDecode
import TestSupport
import Testing

@testable import SensorStore

/// A hub's rows (RowReceivers.swift): the strongest receiver's copy is kept, ties by name, and
/// `row_receivers` is written for published rows only and goes with retention and `forget`.
@Suite struct RowReceiversTests {
    @Test func theStrongerRSSIOutranksAndEqualOnesGoByName() {
        let a = RowReceiver(name: "pi1", rssi: -70)
        #expect(a.outranks(nil))
        #expect(a.outranks(RowReceiver(name: "pi0", rssi: -71)))
        #expect(!a.outranks(RowReceiver(name: "pi2", rssi: -69)))
        #expect(a.outranks(RowReceiver(name: "pi2", rssi: -70)))
        #expect(!RowReceiver(name: "pi2", rssi: -70).outranks(a))
        #expect(a.outranks(RowReceiver(name: "pi0", rssi: nil)))
        #expect(!RowReceiver(name: "pi0", rssi: nil).outranks(a))
    }

    /// Every order of three copies of one row, in one batch, gives the strongest.
    @Test(arguments: [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    func everyOrderKeepsTheStrongestCopy(_ order: [Int]) throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("hub.db")
        let store = try SensorStore(path: path, clock: FakeClock(wall: june2026Micros + 86_400_000_000))
        let copies: [(receiver: String, rssi: Int8, temperature: Double)] = [("pi1", -80, 1.5), ("pi2", -50, 2.5), ("pi3", -65, 3.5)]
        for (n, k) in order.enumerated() {
            var r = tortureReading(0, sensors: 1, start: june2026Micros)
            r.rssi = copies[k].rssi
            r.measurements = [Measurement(.temperatureC, copies[k].temperature)]
            store.add(published: r, samples: 4, receiver: copies[k].receiver, now: Double(n))
        }
        try store.close(now: 10)
        let rows = try exportAll(try StoreReader(path: path)).rows
        #expect(rows.map(\.receiver) == ["pi2"])
        #expect(rows.map(\.receiverRSSI) == [-50])
        #expect(rows.map(\.measurements) == [[Measurement(.temperatureC, 2.5)]])
        #expect(rows.map(\.samples) == [4])
    }

    @Test func aLoggersOwnRowsWriteNoReceiverAndForgetAndRetentionDeleteThem() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let own = dir.file("own.db")
        let logger = try SensorStore(path: own, clock: FakeClock(wall: june2026Micros + 86_400_000_000))
        for k in 0..<20 { logger.add(tortureReading(k, sensors: 2, start: june2026Micros), now: Double(k)) }
        try logger.close(now: 100)
        let ownRows = try exportAll(try StoreReader(path: own)).rows
        #expect(!ownRows.isEmpty && ownRows.allSatisfy { $0.receiver == nil })
        #expect(try Connection(path: own, readOnly: true, create: false, busyTimeoutMillis: 100)
            .scalarInt("SELECT count(*) FROM row_receivers") == 0)

        let hub = dir.file("hub.db")
        let clock = FakeClock(wall: june2026Micros + 3_600_000_000)
        var config = StoreConfiguration()
        config.retentionSeconds = 2 * 3600
        let store = try SensorStore(path: hub, configuration: config, clock: clock)
        for k in 0..<40 {
            store.add(published: tortureReading(k, sensors: 2, start: june2026Micros), samples: 1, receiver: "pi1", now: Double(k))
        }
        #expect(store.flush(now: 50) == .committed(rows: 40, inserted: 40))
        func entries() throws -> Int64? {
            try Connection(path: hub, readOnly: true, create: false, busyTimeoutMillis: 100)
                .scalarInt("SELECT count(*) FROM row_receivers")
        }
        #expect(try entries() == 40)
        try StoreReader(path: hub).forget(.address(BDAddress(rawValue: 0xC0FF_EE00_0000)))
        #expect(try entries() == 20)
        clock.advance(4 * 3600)
        try store.pruneStep()
        #expect(try entries() == 0)
        try store.close(now: 60)
    }
}
