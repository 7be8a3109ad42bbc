import SensorDecode
import SensorStore

/// Events from readings (and GATT notifications) to the events table and the rules' commands:
/// the part of the flow `run` and `replay` share.
///
/// Order per event: deduplicated once (`EventDeduper`, advertised events only: every GATT
/// notification is news), held to `EventRateLimit` (a radio flood of "new presses"), stored, then
/// handed to the actions. A store that refuses a row (disk full, locked) is said once until it
/// accepts one again; the command still runs.
///
/// The events table's connection is opened at the first event, not at start-up: most runs have no
/// button, and a second connection opened beside the readings writer's while several processes
/// create one file together only adds to their contention for its lock.
final class EventFlow {
    private var deduper = EventDeduper()
    private var limit = EventRateLimit()
    let path: String
    let retentionSeconds: Int64?
    private var store: EventStore?
    let actions: ActionRunner?
    let log: EventLog
    /// Told each event that got through (`--mqtt` publishes it), after it was stored.
    var onEvent: ((EventContext) -> Void)?
    private(set) var events = 0
    private var storeFailing = false
    private var lastPrune = -Double.infinity

    init(path: String, retentionSeconds: Int64?, actions: ActionRunner?, log: EventLog) {
        self.path = path
        self.retentionSeconds = retentionSeconds
        self.actions = actions
        self.log = log
    }

    /// The flow of `run` and `replay`: the events table of the store at `path` (which the readings
    /// writer made), and the rules' commands when there are rules.
    static func open(
        path: String, _ configuration: StoreConfiguration, _ rules: ActionFile?, whenFull: ActionRunner.WhenFull,
        log: EventLog
    ) -> EventFlow {
        let runner = rules.map {
            ActionRunner(rules: $0.rules, maxRunning: whenFull == .wait ? 1 : 4, whenFull: whenFull, log: log)
        }
        return EventFlow(path: path, retentionSeconds: configuration.retentionSeconds, actions: runner, log: log)
    }

    /// The events of one decoded reading. `now` is the loop's clock (monotonic, or the capture's).
    func take(_ r: borrowing Reading, now: Double) {
        guard !r.events.isEmpty else { return }
        for e in deduper.admit(r, now: now) {
            deliver(EventContext(address: r.address, alias: nil, model: r.model, event: e, timeMicros: r.timeMicros, rssi: r.rssi), now: now)
        }
    }

    /// One GATT notification, already an event.
    func take(notification e: EventContext) { deliver(e, now: Timestamp.monotonicSeconds()) }

    private func deliver(_ context: EventContext, now: Double) {
        guard limit.admit(now: now) else {
            if limit.droppedInWindow == 1 {
                log.warning("events: more than \(limit.maxPerWindow) in \(Int(limit.windowSeconds)) s; dropping the rest of this minute (\(context.event.kind.rawValue) from \(context.address) first)")
            }
            return
        }
        var e = context
        events += 1
        do throws(StoreError) {
            let store: EventStore
            if let open = self.store { store = open } else { store = try EventStore(path: path, retentionSeconds: retentionSeconds) }
            self.store = store
            e.alias = try store.alias(of: e.address)
            try store.add(e.event, address: e.address, model: e.model, timeMicros: e.timeMicros, rssi: e.rssi)
            if storeFailing {
                storeFailing = false
                log.info("events: \(path) accepts events again")
            }
        } catch {
            if !storeFailing {
                storeFailing = true
                log.warning("events: \(error); events are not stored until it recovers")
            }
        }
        log.debug("event \(e.event.kind.rawValue) \(e.event.value) from \(e.address)")
        onEvent?(e)
        actions?.handle(e)
    }

    /// The loop's tick: reaps commands, and a retention step a minute.
    func tick(now: Double, wallMicros: Int64) {
        actions?.reap(now: Timestamp.monotonicSeconds())
        guard let store, now - lastPrune >= 60 else { return }
        lastPrune = now
        do { try store.prune(nowMicros: wallMicros) } catch { log.warning("events: retention: \(error)") }
    }

    /// Waits for the commands still running.
    func finish() { actions?.finish() }
}
