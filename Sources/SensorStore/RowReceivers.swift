import SensorDecode

// Rows published by other loggers, as a hub (`collect`) stores them.
//
// RULE. One sensor heard by several receivers is one row per (time, sensor): the copy of the
// receiver that heard it strongest, with its values. Each receiver publishes the row it stored
// with the RSSI it heard the sensor at; the hub keeps, per stored row, the receiver and RSSI of
// the copy it stored (`row_receivers`, Schema.swift). A copy meeting a stored one takes its place
// (values, samples, receiver, RSSI) when it `outranks` it, and is dropped otherwise; so the row
// stored is the strongest copy whatever the order in which the copies arrive, before or after
// the stored one was committed.
//
// INVARIANTS.
// (1) `row_receivers` has at most one entry per `readings` row, naming the receiver whose values
//     the row holds, written in the transaction that writes the row. Only rows added with
//     `SensorStore.add(published:…)` have one: a logger's own rows (`run`) write nothing here,
//     so a Pi's SD card sees no more bytes per row than without it.
// (2) A stored row without an entry (a logger's own, on a hub that also runs one on its file)
//     ranks below every published copy: the copies of the receivers that publish it decide.
// (3) Retention and `forget` delete entries with their rows.

/// The receiver of a published copy of a row, and the RSSI it published.
struct RowReceiver: Equatable {
    var name: String
    var rssi: Int8?

    /// Whether a copy from `self` takes the place of one from `other`: the stronger RSSI (a copy
    /// without one is the weakest), and between equal ones the receiver whose name sorts first,
    /// so that the outcome never depends on the order of arrival.
    func outranks(_ other: RowReceiver?) -> Bool {
        guard let other else { return true }
        let mine = rssi.map(Int.init) ?? Int.min
        let theirs = other.rssi.map(Int.init) ?? Int.min
        return mine != theirs ? mine > theirs : name < other.name
    }
}

/// The statements of `row_receivers`, prepared on the first published row.
final class RowReceiverTable {
    private let select: Statement
    private let upsert: Statement

    init(_ c: Connection) throws(StoreError) {
        select = try c.prepare("SELECT receiver, rssi_dbm FROM row_receivers WHERE time_us = ?1 AND sensor_id = ?2")
        upsert = try c.prepare(
            "INSERT OR REPLACE INTO row_receivers (time_us, sensor_id, receiver, rssi_dbm) VALUES (?1, ?2, ?3, ?4)")
    }

    /// The receiver of the stored row at (time, sensor), `nil` when it has none (invariant 2).
    func receiver(time: Int64, sensorID: Int64) throws(StoreError) -> RowReceiver? {
        try select.bind(1, time)
        try select.bind(2, sensorID)
        defer { select.reset() }
        guard try select.step() else { return nil }
        return RowReceiver(
            name: select.text(0) ?? "", rssi: select.isNull(1) ? nil : Int8(truncatingIfNeeded: select.int64(1)))
    }

    /// Records `receiver` as the one whose copy the row at (time, sensor) now holds.
    func record(_ receiver: RowReceiver, time: Int64, sensorID: Int64) throws(StoreError) {
        try upsert.bind(1, time)
        try upsert.bind(2, sensorID)
        try upsert.bind(3, receiver.name)
        try upsert.bind(4, receiver.rssi.map { Int64($0) })
        try upsert.run()
        upsert.reset()
    }
}

extension StoredRow {
    /// A row as another logger stored and published it: its measurements (the last of a
    /// quantity listed twice), its samples and time, and who published it with which RSSI
    /// (`reading.rssi`). Its span is its time alone: published rows are never merged by span
    /// (the RULE above decides instead).
    init(published reading: Reading, samples: Int, receiver: String) {
        var byKey: [Measurement] = []
        byKey.reserveCapacity(reading.measurements.count)
        for m in reading.measurements {
            if let k = byKey.firstIndex(where: { $0.quantity == m.quantity }) { byKey[k] = m } else { byKey.append(m) }
        }
        byKey.sort { $0.quantity < $1.quantity }
        let facts = RowFacts(
            addressType: reading.addressType, decoderID: reading.decoderID, model: reading.model, name: reading.name,
            keyOrder: nil, receiver: receiver)
        self.init(
            address: reading.address, facts: facts, rssi: reading.rssi, timeMicros: reading.timeMicros,
            firstHeardMicros: reading.timeMicros, lastHeardMicros: reading.timeMicros, samples: max(1, samples),
            listed: byKey)
    }

    /// The receiver and RSSI of a published row, `nil` for a logger's own.
    var publishedBy: RowReceiver? { receiver.map { RowReceiver(name: $0, rssi: rssi) } }
}
