import SensorDecode

/// One stored event, as export reads it back.
public struct StoredEvent: Sendable, Equatable {
    public var timeMicros: Int64
    public var address: BDAddress
    /// The sensor's alias, when the address is a stored sensor that has one.
    public var alias: String?
    public var model: String
    public var event: DeviceEvent
    public var rssi: Int8?

    public init(timeMicros: Int64, address: BDAddress, alias: String?, model: String, event: DeviceEvent, rssi: Int8?) {
        self.timeMicros = timeMicros
        self.address = address
        self.alias = alias
        self.model = model
        self.event = event
        self.rssi = rssi
    }
}

/// The `events` table's writer: button presses and notifications, one row each.
///
/// Events are rare (a press, not an advertisement a second), and a press should be on disk before
/// its command runs, so each is inserted at once, in its own transaction, on a connection of its
/// own beside the readings writer's (WAL: the two take turns through SQLite's lock, the busy
/// timeout covering the writer's batch commits). Used from one thread.
///
/// Invariants: rows are never updated; an event already stored (same time, address, kind and
/// value: a capture replayed again) is not stored twice; `id` is arrival order (a cursor for whoever publishes
/// them); retention deletes rows older than `retentionSeconds` before now, at most
/// `pruneRowsPerStep` per step, oldest first.
public final class EventStore {
    public let path: String
    public let retentionSeconds: Int64?
    private let connection: Connection
    private let insert: Statement
    private let aliasByAddress: Statement
    public static let pruneRowsPerStep = 1000

    /// Opens the events table of an existing store (the readings writer created and migrated it).
    public init(path: String, retentionSeconds: Int64?, busyTimeoutMillis: Int32 = 5000) throws(StoreError) {
        self.path = path
        self.retentionSeconds = retentionSeconds
        connection = try Schema.open(path: path, create: false, busyTimeoutMillis: busyTimeoutMillis)
        insert = try connection.prepare(
            "INSERT OR IGNORE INTO events (time_us, address, model, kind, value, rssi_dbm, encrypted) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
        aliasByAddress = try connection.prepare("SELECT alias FROM sensors WHERE address = ?1")
    }

    /// Stores one event (nothing when it is stored already). An event stamped outside the store's time range (a corrupt capture stamp)
    /// is refused like such a reading.
    public func add(_ event: DeviceEvent, address: BDAddress, model: String, timeMicros: Int64, rssi: Int8?)
        throws(StoreError)
    {
        guard Schema.storableTimes.contains(timeMicros) else {
            throw .invalidArgument("event time \(timeMicros) µs is outside the storable range")
        }
        insert.reset()
        try insert.bind(1, timeMicros)
        try insert.bind(2, Int64(bitPattern: address.rawValue))
        try insert.bind(3, model)
        try insert.bind(4, event.kind.rawValue)
        try insert.bind(5, event.value)
        try insert.bind(6, rssi.map(Int64.init))
        try insert.bind(7, Int64(event.encrypted ? 1 : 0))
        defer { insert.reset() }
        try insert.run()
    }

    /// The alias the user gave `address` (`sensors alias`), read now, so a rename applies at once.
    public func alias(of address: BDAddress) throws(StoreError) -> String? {
        aliasByAddress.reset()
        defer { aliasByAddress.reset() }
        try aliasByAddress.bind(1, Int64(bitPattern: address.rawValue))
        return try aliasByAddress.step() ? aliasByAddress.text(0) : nil
    }

    /// One retention step: deletes up to `pruneRowsPerStep` of the rows older than
    /// `retentionSeconds` before `nowMicros`. Returns how many; none without retention or with a
    /// clock that cannot be right.
    @discardableResult
    public func prune(nowMicros: Int64) throws(StoreError) -> Int {
        guard let keep = retentionSeconds, Schema.storableTimes.contains(nowMicros), nowMicros > keep * 1_000_000 else {
            return 0
        }
        let s = try connection.prepare(
            "DELETE FROM events WHERE id IN (SELECT id FROM events WHERE time_us < ?1 ORDER BY time_us LIMIT ?2)")
        try s.bind(1, nowMicros - keep * 1_000_000)
        try s.bind(2, Self.pruneRowsPerStep)
        try s.run()
        return Int(try connection.scalarInt("SELECT changes()") ?? 0)
    }
}

extension StoreReader {
    /// Calls `body` with the stored events in `range` (of the selected sensors, all if none), in
    /// time then arrival order, from one snapshot, one at a time.
    /// - Throws: `.unknownSensor` for an alias no sensor has.
    public func forEachEvent(
        range: TimeRange, sensors: [SensorSelector] = [], _ body: (StoredEvent) throws(StoreError) -> Void
    ) throws(StoreError) {
        try inReadTransaction { () throws(StoreError) in
            var addresses: [Int64] = []
            for selector in sensors {
                switch selector {
                case .address(let a): addresses.append(Int64(bitPattern: a.rawValue))
                case .alias: addresses.append(Int64(bitPattern: try sensor(selector).address.rawValue))
                }
            }
            let only = addresses.isEmpty ? "" : " AND e.address IN (" + addresses.map(String.init).joined(separator: ",") + ")"
            let s = try connection.prepare(
                "SELECT e.time_us, e.address, s.alias, e.model, e.kind, e.value, e.rssi_dbm, e.encrypted "
                    + "FROM events e LEFT JOIN sensors s ON s.address = e.address "
                    + "WHERE e.time_us >= ?1 AND e.time_us < ?2\(only) ORDER BY e.time_us, e.id")
            try s.bind(1, range.from ?? .min)
            try s.bind(2, range.to ?? .max)
            while try s.step() {
                // A kind this build does not know (a newer writer's) is skipped.
                guard let kind = DeviceEvent.Kind(rawValue: s.text(4) ?? "") else { continue }
                try body(
                    StoredEvent(
                        timeMicros: s.int64(0), address: BDAddress(rawValue: UInt64(bitPattern: s.int64(1))),
                        alias: s.text(2), model: s.text(3) ?? "",
                        event: DeviceEvent(kind, s.text(5) ?? "", encrypted: s.int64(7) != 0),
                        rssi: s.isNull(6) ? nil : Int8(truncatingIfNeeded: s.int64(6))))
            }
        }
    }
}
