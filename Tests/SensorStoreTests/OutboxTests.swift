import TestSupport
import Foundation
import SensorDecode
import Testing

@testable import SensorStore

/// The outbox (Outbox.swift): what a writer with it open commits is entered, in commit order,
/// and read back as the stored rows; acknowledged entries go; retention bounds it.
@Suite struct OutboxTests {
    func config(interval: Int = 0) -> StoreConfiguration {
        var c = StoreConfiguration()
        c.downsample.intervalSeconds = interval
        c.batchRows = 5
        return c
    }

    /// Adds `readings` one a second of the caller's clock and commits.
    func feed(_ store: SensorStore, _ readings: [Reading]) throws {
        var now = 0.0
        for r in readings {
            now += 1
            store.add(r, now: now)
        }
        try store.close(now: now)
    }

    @Test func committedRowsAreEnteredInCommitOrderAsExportReadsThem() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        let clock = FakeClock(wall: june2026Micros + 86_400_000_000)
        let store = try SensorStore(path: path, configuration: config(), clock: clock)
        // Committed before the outbox was opened: not entered (invariant 1).
        try feed(store, (0..<4).map { tortureReading($0, sensors: 2, start: june2026Micros) })
        let outbox = try store.openOutbox()
        #expect(try outbox.backlog() == 0)
        try feed(store, (4..<16).map { tortureReading($0, sensors: 2, start: june2026Micros) })
        let entries = try outbox.entries(after: 0, limit: 100)
        #expect(entries.count == 12)
        #expect(entries.map(\.seq) == entries.map(\.seq).sorted() && Set(entries.map(\.seq)).count == 12)
        let stored = try exportAll(try StoreReader(path: path)).rows
        #expect(entries.compactMap(\.row) == Array(stored.suffix(12)))
        // Paging from a seq.
        #expect(try outbox.entries(after: entries[9].seq, limit: 100).map(\.seq) == entries.suffix(2).map(\.seq))
        #expect(try outbox.entries(after: 0, limit: 3).count == 3)
    }

    @Test func acknowledgedEntriesGoAndASequenceNumberIsNeverGivenTwice() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let store = try SensorStore(path: dir.file("a.db"), configuration: config(), clock: FakeClock(wall: june2026Micros + 86_400_000_000))
        let outbox = try store.openOutbox()
        try feed(store, (0..<6).map { tortureReading($0, sensors: 1, start: june2026Micros) })
        let first = try outbox.entries(after: 0, limit: 100)
        try outbox.acknowledge(through: first[3].seq)
        #expect(try outbox.backlog() == 2)
        #expect(try outbox.entries(after: 0, limit: 100).map(\.seq) == first.suffix(2).map(\.seq))
        try outbox.acknowledge(through: first[5].seq)
        #expect(try outbox.backlog() == 0)
        try feed(store, (6..<8).map { tortureReading($0, sensors: 1, start: june2026Micros) })
        let next = try outbox.entries(after: 0, limit: 100)
        #expect(next.count == 2 && next.allSatisfy { $0.seq > first[5].seq }, "AUTOINCREMENT: the cursor never goes back")
    }

    @Test func aMergedRowIsEnteredAgainWithItsMergedValues() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        let store = try SensorStore(path: path, configuration: config(interval: 3600), clock: FakeClock(wall: june2026Micros + 86_400_000_000))
        let outbox = try store.openOutbox()
        let address = BDAddress(rawValue: 0xA4C1_3800_0001)
        func reading(_ t: Int64, _ temperature: Double) -> Reading {
            Reading(address: address, addressType: .publicDevice, decoderID: "test", model: "M",
                measurements: [Measurement(.temperatureC, temperature)], timeMicros: t, rssi: -50)
        }
        // Two halves of one hour, committed apart: the second is merged into the first row.
        try feed(store, [reading(june2026Micros + 60_000_000, 20)])
        try feed(store, [reading(june2026Micros + 1_800_000_000, 22)])
        let entries = try outbox.entries(after: 0, limit: 10)
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { $0.row?.timeMicros == june2026Micros })
        #expect(entries.last?.row?.measurements.first?.value == 21, "the row as stored after the merge")
        #expect(entries.last?.row == (try exportAll(try StoreReader(path: path)).rows.first))
    }

    @Test func entriesOfRowsRetentionDeletedAreSkippedAndGoWithTheNextAcknowledgement() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        let now = june2026Micros + 10 * 86_400_000_000
        var c = config()
        let store = try SensorStore(path: path, configuration: c, clock: FakeClock(wall: now))
        let outbox = try store.openOutbox()
        // Rows of 5 and 1 days ago, then retention of 2 days removes the older ones.
        let old = (0..<3).map { tortureReading($0, sensors: 1, start: now - 5 * 86_400_000_000) }
        let recent = (0..<3).map { tortureReading($0, sensors: 1, start: now - 86_400_000_000) }
        try feed(store, old + recent)
        c.retentionSeconds = 2 * 86_400
        let keeping = try SensorStore(path: path, configuration: c, clock: FakeClock(wall: now))
        #expect(try keeping.pruneStep() == 3)
        let entries = try outbox.entries(after: 0, limit: 10)
        #expect(entries.map { $0.row == nil } == [true, true, true, false, false, false])
        // Acknowledging nothing yet still drops what lies before the retention horizon.
        try outbox.acknowledge(through: 0)
        #expect(try outbox.backlog() == 3)
    }

    @Test func aReaderCountsTheBacklog() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("a.db")
        let store = try SensorStore(path: path, configuration: config(), clock: FakeClock(wall: june2026Micros + 86_400_000_000))
        let outbox = try store.openOutbox()
        try feed(store, (0..<7).map { tortureReading($0, sensors: 1, start: june2026Micros) })
        #expect(try StoreReader(path: path).outboxBacklog() == 7)
        try outbox.acknowledge(through: try outbox.entries(after: 0, limit: 100)[1].seq)
        #expect(try StoreReader(path: path).outboxBacklog() == 5)
    }
}
