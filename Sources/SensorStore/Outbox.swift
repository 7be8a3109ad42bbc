import CSQLite
import SensorDecode

// The outbox: the store is the outbox of whatever publishes its rows (MQTT).
//
// TABLE. `outbox (seq, time_us, sensor_id)` (migration 3): one entry per row a writer with the
// outbox enabled committed, inserted or merged into (a merged row changed: it goes out again),
// in commit order (`seq`, AUTOINCREMENT, so a number is never given twice even once the table
// is empty). An entry names its row; the payload is read from `readings` when it is published,
// so what is published is what is stored.
//
// CURSOR. The entries still in the table are the rows the broker has not acknowledged; the
// publisher deletes an entry once the broker acknowledged it and every entry before it
// (`acknowledge(through:)`), so the lowest `seq` left is where a restarted logger resumes.
//
// INVARIANTS.
// (1) Entries are written by TEMP triggers on the writer's own connection, inside the commit's
//     transaction: a row is committed together with its entry or neither is. Only a writer that
//     called `SensorStore.openOutbox()` records entries; rows stored by other writers (a logger
//     without `--mqtt`) are never entered.
// (2) Bounded by retention: entries of rows that retention or `forget` deleted are skipped when
//     read (`OutboxEntry.row` nil) and deleted with the next acknowledgement, and those older
//     than the retention horizon are deleted then too.
// (3) Used from the writer's thread only (the store's connection is not shared).

/// One outbox entry: its sequence number and the row it names, `nil` when the row is gone.
public struct OutboxEntry: Sendable, Equatable {
    public var seq: Int64
    public var row: ExportRow?
}

/// The outbox of one `SensorStore` (see the file header). Not Sendable: the writer's thread.
public final class Outbox {
    private let store: SensorStore
    private let select: Statement
    private let acknowledge: Statement
    private let count: Statement
    private var quantities: [Int64: Quantity] = [:]

    init(store: SensorStore) throws(StoreError) {
        self.store = store
        let c = store.connection
        // TEMP triggers may write to the main database (an unqualified name there: no temp table
        // is called outbox); they live as long as this connection.
        for (name, event) in [("outbox_after_insert", "INSERT"), ("outbox_after_update", "UPDATE")] {
            try c.exec(
                "CREATE TEMP TRIGGER IF NOT EXISTS \(name) AFTER \(event) ON main.readings BEGIN "
                    + "INSERT INTO outbox (time_us, sensor_id) VALUES (new.time_us, new.sensor_id); END",
                "enable the outbox of \(store.path)")
        }
        select = try c.prepare(
            "SELECT \(StoreReader.sensorColumns), o.seq, o.time_us, r.samples, r.data FROM outbox o "
                + "LEFT JOIN readings r ON r.time_us = o.time_us AND r.sensor_id = o.sensor_id "
                + "LEFT JOIN sensors ON sensors.id = o.sensor_id WHERE o.seq > ?1 ORDER BY o.seq LIMIT ?2")
        acknowledge = try c.prepare(
            "DELETE FROM outbox WHERE seq <= ?1 "
                + "OR time_us < coalesce((SELECT value FROM meta WHERE key = 'prune_horizon_us'), -9223372036854775808)")
        count = try c.prepare("SELECT count(*) FROM outbox")
    }

    /// Up to `limit` entries after `seq`, oldest first.
    public func entries(after seq: Int64, limit: Int) throws(StoreError) -> [OutboxEntry] {
        let s = select
        defer { s.reset() }
        try s.bind(1, seq)
        try s.bind(2, Int64(max(0, limit)))
        var out: [OutboxEntry] = []
        while try s.step() {
            var entry = OutboxEntry(seq: s.int64(11), row: nil)
            if !s.isNull(0), !s.isNull(14) {
                var ms: [Measurement] = []
                var damaged = false
                var unknown: [Int64] = []
                let ok = s.decodeMeasurements(14) { qid, v in
                    if let q = quantities[qid] { ms.append(Measurement(q, v)) } else { unknown.append(qid) }
                }
                if !ok { damaged = true }
                if !unknown.isEmpty {
                    // A quantity first stored after the last load: read the table again, then decode once more.
                    try loadQuantities()
                    ms.removeAll()
                    _ = s.decodeMeasurements(14) { qid, v in
                        ms.append(Measurement(quantities[qid] ?? Quantity("quantity_\(qid)"), v))
                    }
                }
                if damaged {
                    throw .sqlite(
                        code: SQLITE_CORRUPT, message: "malformed measurements in the row of outbox entry \(entry.seq)",
                        attempted: "read the outbox of \(store.path)")
                }
                ms.sort { $0.quantity < $1.quantity }
                entry.row = ExportRow(
                    timeMicros: s.int64(12), sensor: StoreReader.sensor(s), samples: s.int(13), measurements: ms)
            }
            out.append(entry)
        }
        return out
    }

    private func loadQuantities() throws(StoreError) {
        let s = try store.connection.prepare("SELECT id, key, is_integer FROM quantities")
        while try s.step() { quantities[s.int64(0)] = Quantity(s.text(1) ?? "?", integer: s.int64(2) != 0) }
    }

    /// Deletes the entries up to `seq` (the broker has them) and those of rows retention removed
    /// (invariant 2).
    public func acknowledge(through seq: Int64) throws(StoreError) {
        try acknowledge.bind(1, seq)
        defer { acknowledge.reset() }
        try acknowledge.run()
    }

    /// Entries not yet acknowledged.
    public func backlog() throws(StoreError) -> Int {
        defer { count.reset() }
        return try count.step() ? count.int(0) : 0
    }
}

extension SensorStore {
    /// From now on, every row this store commits is entered in the outbox (invariant 1).
    public func openOutbox() throws(StoreError) -> Outbox { try Outbox(store: self) }
}

extension StoreReader {
    /// Outbox entries not yet acknowledged by a broker (for `doctor`).
    public func outboxBacklog() throws(StoreError) -> Int {
        try inReadTransaction { () throws(StoreError) in
            try connection.scalarInt("SELECT count(*) FROM outbox").map(Int.init) ?? 0
        }
    }
}
