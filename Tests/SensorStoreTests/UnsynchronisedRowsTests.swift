import Foundation
import SensorDecode
import Testing

@testable import SensorStore

/// Which stored rows `clock_unsynced` flags: a row holding at least one reading whose receive
/// time lies in a span, counted once, and the export cursor's flag by the same rule.
@Suite struct UnsynchronisedRowsTests {
    static let minute: Int64 = 60_000_000

    @Test func rowsHoldingAFlaggedReadingAreCountedOnceAndTheCursorFlagsThem() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let t0 = june2026Micros / Self.minute * Self.minute
        let store = try SensorStore(path: dir.file("a.db"), clock: FakeClock(wall: t0 + 3 * 86_400_000_000))
        func add(_ offset: Int64, sensor: UInt64 = 1, flagged: Bool) {
            store.add(
                Reading(
                    address: BDAddress(rawValue: 0xC0FF_EE00_0000 + sensor), decoderID: "test", model: "M",
                    measurements: [Measurement(.temperatureC, 20)], timeMicros: t0 + offset),
                now: 0, unsynchronised: flagged)
        }
        add(10_000_000, flagged: true)  // row t0: flagged
        add(20_000_000, flagged: false)  // the same row: still flagged (it holds the first)
        add(15_000_000, sensor: 2, flagged: false)  // another sensor at t0, heard after the span: not flagged
        add(70_000_000, flagged: false)  // row t0+1min: trusted
        // Committed: the next flagged reading opens a second span (an uncommitted one would be
        // widened over the trusted readings between, by design).
        store.flush(now: 0)
        let later: Int64 = 2 * 86_400_000_000
        add(later + 5_000_000, flagged: true)  // a second span, two days on
        add(later + 6_000_000, sensor: 2, flagged: false)  // another sensor, a second after the span: not flagged
        try store.close(now: 0)

        let reader = try StoreReader(path: dir.file("a.db"))
        #expect(try reader.unsynchronisedSpans().count == 2)
        let u = try reader.unsynchronisedRows()
        #expect(u == UnsynchronisedRows(spans: 2, rows: 2, firstMicros: t0, lastMicros: t0 + later))

        let cursor = try reader.export()
        var flagged: [(Int64, Int64)] = []
        var all = 0
        while try cursor.step() {
            all += 1
            if cursor.clockUnsynchronised { flagged.append((cursor.timeMicros, cursor.sensorID)) }
        }
        #expect(all == 5)
        #expect(flagged.map(\.0) == [t0, t0 + later])
    }

    @Test func aStoreWithoutSpansFlagsNothingAndCostsTheCursorNothing() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let store = try SensorStore(path: dir.file("a.db"), clock: FakeClock(wall: june2026Micros + 3_600_000_000))
        store.add(
            Reading(address: BDAddress(rawValue: 1), decoderID: "test", model: "M",
                    measurements: [Measurement(.temperatureC, 20)], timeMicros: june2026Micros),
            now: 0)
        try store.close(now: 0)
        let reader = try StoreReader(path: dir.file("a.db"))
        #expect(try reader.unsynchronisedRows() == UnsynchronisedRows())
        let cursor = try reader.export()
        #expect(!cursor.mayFlagClock)
        #expect(try cursor.step() && !cursor.clockUnsynchronised)
    }

    /// Boots that never synced each stamp from the same stand-in time on: their spans overlap.
    @Test func overlappingSpansAreJoined() {
        #expect(StoreReader.merged([5...9, 1...3, 2...6, 20...20, 11...12]) == [1...9, 11...12, 20...20])
        #expect(StoreReader.merged([]) == [])
    }
}
