import Foundation
import SensorDecode
import Testing

@testable import SensorStore

@Suite struct EventStoreTests {
    static let remote = BDAddress("C0:98:E5:00:00:01")!
    static let t0: Int64 = 1_767_225_600 * 1_000_000  // 2026-01-01T00:00:00Z

    /// A fresh store with the readings writer (which creates the file) and the events writer.
    func open(_ dir: TempDir, retention: Int64? = nil) throws -> (SensorStore, EventStore) {
        var c = StoreConfiguration()
        c.retentionSeconds = retention
        let writer = try SensorStore(path: dir.file("db"), configuration: c)
        return (writer, try EventStore(path: dir.file("db"), retentionSeconds: retention))
    }

    func all(_ dir: TempDir, range: TimeRange = .all, sensors: [SensorSelector] = []) throws -> [StoredEvent] {
        let reader = try StoreReader(path: dir.file("db"))
        var out: [StoredEvent] = []
        try reader.forEachEvent(range: range, sensors: sensors) { out.append($0) }
        return out
    }

    @Test func eventsAreStoredAndReadBackInTimeThenArrivalOrder() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let (_, events) = try open(dir)
        try events.add(DeviceEvent(.notify, "01"), address: Self.remote, model: "GATT", timeMicros: Self.t0 + 5, rssi: nil)
        try events.add(DeviceEvent(.notify, "00"), address: Self.remote, model: "GATT", timeMicros: Self.t0, rssi: nil)
        try events.add(
            DeviceEvent(.button, "press", encrypted: true), address: Self.remote, model: "GATT", timeMicros: Self.t0, rssi: -60)
        let got = try all(dir)
        #expect(got.map(\.event.value) == ["00", "press", "01"])
        #expect(got.map(\.timeMicros) == [Self.t0, Self.t0, Self.t0 + 5])
        #expect(got[1].event.encrypted && got[1].rssi == -60 && got[1].event.kind == .button)
        #expect(got[0].rssi == nil && !got[0].event.encrypted && got[0].alias == nil)
    }

    @Test func theSameEventIsStoredOnce() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let (_, events) = try open(dir)
        for _ in 0..<3 {
            try events.add(DeviceEvent(.button, "press"), address: Self.remote, model: "BTHome", timeMicros: Self.t0, rssi: nil)
        }
        try events.add(DeviceEvent(.button, "double_press"), address: Self.remote, model: "BTHome", timeMicros: Self.t0, rssi: nil)
        #expect(try all(dir).map(\.event.value) == ["press", "double_press"])
    }

    @Test func aRangeAndASensorSelectTheRows() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let (_, events) = try open(dir)
        let other = BDAddress("C0:98:E5:00:00:02")!
        for i in 0..<10 {
            try events.add(DeviceEvent(.button, "press"), address: i % 2 == 0 ? Self.remote : other, model: "BTHome",
                           timeMicros: Self.t0 + Int64(i) * 1_000_000, rssi: nil)
        }
        let range = TimeRange(from: Self.t0 + 2_000_000, to: Self.t0 + 6_000_000)
        #expect(try all(dir, range: range).count == 4)
        #expect(try all(dir, range: range, sensors: [.address(other)]).map(\.timeMicros) == [Self.t0 + 3_000_000, Self.t0 + 5_000_000])
        #expect(throws: StoreError.self) { try all(dir, sensors: [.alias("nobody")]) }
    }

    /// The alias is read at each event, so a rename applies without a restart, and export names it.
    @Test func theAliasComesFromTheSensorsTable() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let (writer, events) = try open(dir)
        var r = Reading(address: Self.remote, decoderID: "bthome", model: "BTHome", measurements: [], timeMicros: Self.t0)
        r.add(.batteryPercent, 90)
        writer.add(r, now: 0)
        try writer.close(now: 100)
        #expect(try events.alias(of: Self.remote) == nil)
        try StoreReader(path: dir.file("db")).setAlias("hall", for: .address(Self.remote))
        #expect(try events.alias(of: Self.remote) == "hall")
        try events.add(DeviceEvent(.button, "press"), address: Self.remote, model: "BTHome", timeMicros: Self.t0, rssi: nil)
        #expect(try all(dir, sensors: [.alias("hall")]).map(\.alias) == ["hall"])
    }

    @Test func retentionDeletesOldEventsOnly() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let (_, events) = try open(dir, retention: 3600)
        for i in 0..<5 {
            try events.add(DeviceEvent(.button, "press"), address: Self.remote, model: "BTHome",
                           timeMicros: Self.t0 + Int64(i) * 1_800_000_000, rssi: nil)
        }
        // Now = the last event: those more than an hour older go.
        #expect(try events.prune(nowMicros: Self.t0 + 4 * 1_800_000_000) == 2)
        #expect(try all(dir).count == 3)
        // No retention, or a clock at 1970: nothing goes.
        let keepAll = try EventStore(path: dir.file("db"), retentionSeconds: nil)
        #expect(try keepAll.prune(nowMicros: Self.t0 * 2) == 0)
        #expect(try events.prune(nowMicros: 1_000) == 0)
    }

    @Test func aTimeOutsideTheStorableRangeIsRefused() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let (_, events) = try open(dir)
        #expect(throws: StoreError.self) {
            try events.add(DeviceEvent(.button, "press"), address: Self.remote, model: "x", timeMicros: -1, rssi: nil)
        }
        #expect(try all(dir).isEmpty)
    }

    /// The events table is the last migration's (appended, never renumbered): a store at the
    /// version before it gains the table, its readings untouched.
    @Test func theMigrationAddsTheTableToAnOlderStore() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let index = try #require(Schema.migrations.firstIndex { $0.contains("CREATE TABLE events") })
        let c = try Connection(path: dir.file("db"), readOnly: false, create: true, busyTimeoutMillis: 1000)
        for m in Schema.migrations[..<index] { try c.exec(m, "old schema") }
        try c.exec("PRAGMA user_version = \(index)", "old version")
        try c.exec("PRAGMA application_id = \(Schema.applicationID)", "ours")
        #expect(try c.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'events'") == 0)
        let events = try EventStore(path: dir.file("db"), retentionSeconds: nil)
        try events.add(DeviceEvent(.notify, "00"), address: Self.remote, model: "GATT", timeMicros: Self.t0, rssi: nil)
        #expect(try c.scalarInt("PRAGMA user_version") == Int64(Schema.version))
        #expect(try all(dir).count == 1)
    }
}
