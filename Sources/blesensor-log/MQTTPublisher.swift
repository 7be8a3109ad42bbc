#if canImport(Glibc)
    import Glibc
#endif
import SensorMQTT
import SensorStore

/// `--mqtt`: publishes what the store committed, read from its outbox (Sources/SensorStore/Outbox.swift),
/// so what is published is what is stored and a broker outage loses nothing.
///
/// TOPICS. `<prefix>/<receiver>/<ADDRESS>`: each stored row as compact JSON (`JSON.storedRow`
/// with the receiver; QoS 1, not retained). `<prefix>/<receiver>/status`: `online` (retained, at
/// every connect), `offline` (retained: the last will, and at a clean stop). With discovery on,
/// Home Assistant's configs (`HomeAssistant`). Events of buttons and remotes, when they come, go
/// to a topic of their own below the sensor's (`<prefix>/<receiver>/<ADDRESS>/event`), never
/// retained, published as they happen and not through the outbox (MQTTEvents.swift).
///
/// DELIVERY: at least once. A row's outbox entry is deleted only after the broker acknowledged
/// it and every row before it (QoS 1 PUBACK); the cursor is written every `cursorSeconds` and at
/// the end, so a crash republishes at most the rows acknowledged since (duplicates carry the
/// same `time`). libmosquitto resends what was in flight when a connection dropped; should an
/// acknowledgement never come (`stallSeconds`), publishing starts again from the cursor.
///
/// PACE. Driven by the logger's loop (`tick`, once a second): at most `perTick` rows a tick and
/// `window` unacknowledged, oldest first, with their original times, so a backlog after an
/// outage drains at up to ~1000 rows/s without starving the radio loop.
///
/// FAILURES of the broker (unreachable, refused, lost) are logged once per kind, and once when
/// it is back; the logger keeps storing meanwhile.
final class MQTTPublisher {
    let settings: MQTTSettings
    let client: MQTTClient
    private let outbox: Outbox
    let log: EventLog
    private let expireAfter: Int

    static let perTick = 1000
    static let window = 1000
    static let cursorSeconds = 5.0
    static let stallSeconds = 30.0
    /// Discovery configs remembered to send again (HA restarts, reconnects); cleared when full.
    static let maxAnnounced = 4096

    /// Highest outbox seq handed to the client, and the seqs handed since the cursor, in order,
    /// with those not yet acknowledged.
    private var lastQueued: Int64 = 0
    private var queued: [Int64] = []
    private var queuedHead = 0
    private var unacked: Set<Int64> = []
    private var seqByMid: [Int32: Int64] = [:]
    /// Every seq up to here is acknowledged; up to `committed` also deleted from the outbox.
    private var ackedThrough: Int64 = 0
    private var committed: Int64 = 0
    private var lastCommitAt = -Double.infinity
    private var lastAckAt = Timestamp.monotonicSeconds()
    private var announced: [String: [UInt8]] = [:]

    private(set) var connected = false
    var events = MQTTEventQueue()
    private var everConnected = false
    private var reportedProblem: String? = nil
    private let startedAt = Timestamp.monotonicSeconds()
    private var lastBacklogNote = -Double.infinity
    /// State messages the broker acknowledged.
    private(set) var acknowledgedRows = 0
    private var storeProblem: String? = nil

    init(settings: MQTTSettings, outbox: Outbox, intervalSeconds: Int, log: EventLog) throws(CLIError) {
        self.settings = settings
        self.outbox = outbox
        self.log = log
        expireAfter = HomeAssistant.expireAfter(intervalSeconds: intervalSeconds)
        do { client = try MQTTClient(MQTTOptions.clientConfiguration(settings)) } catch {
            throw CLIError("mqtt: \(error)", code: ExitCode.usage)
        }
    }

    /// Starts connecting (in the background); the logger goes on whatever the broker does.
    func start() throws(CLIError) {
        do { try client.start() } catch { throw CLIError("mqtt: \(error)", code: ExitCode.software) }
    }

    private var broker: String { settings.broker.redacted }

    /// Logs a broker problem once while it lasts (a different one is logged again).
    private func report(_ problem: String) {
        guard problem != reportedProblem else { return }
        reportedProblem = problem
        log.error(
            "mqtt: \(problem); still logging to the database, retrying (at most "
                + "\(client.configuration.maxReconnectDelaySeconds) s apart), "
                + "and the rows are published once the broker takes them")
    }

    /// One turn of the loop: what the network thread saw, the cursor, and the next rows.
    func tick() {
        let now = Timestamp.monotonicSeconds()
        for event in client.drainEvents() { handle(event, now: now) }
        advanceCursor()
        if queuedHead > 4096 {
            queued.removeFirst(queuedHead)
            queuedHead = 0
        }
        if now - lastCommitAt >= Self.cursorSeconds { commitCursor(now: now) }
        if !everConnected, reportedProblem == nil, now - startedAt >= 10 {
            report("no connection to \(broker) yet")
        }
        if connected, !unacked.isEmpty, now - lastAckAt >= Self.stallSeconds {
            // No acknowledgement for long although connected: publish again from the cursor.
            log.warning("mqtt: \(unacked.count) rows unacknowledged for \(Int(Self.stallSeconds)) s; publishing again from the last acknowledged one")
            resendFromCursor()
            lastAckAt = now
        }
        if connected { publishPendingEvents(now: now) }
        if connected { publishRows(budget: min(Self.perTick, Self.window - unacked.count)) }
        if log.verbose, now - lastBacklogNote >= 30 {
            lastBacklogNote = now
            commitCursor(now: now)
            if let n = backlog, n > 0 || !connected {
                log.debug("mqtt: \(n) rows wait in the outbox for \(broker) (\(connected ? "connected" : "not connected"))")
            }
        }
    }

    private func handle(_ event: MQTTEvent, now: Double) {
        switch event {
        case .connected:
            connected = true
            if !everConnected || reportedProblem != nil {
                log.info("mqtt: connected to \(broker), publishing on \(settings.baseTopic)/<ADDRESS>")
            }
            everConnected = true
            reportedProblem = nil
            lastAckAt = now
            if settings.discovery { announceAgain() }
        case .connectFailed(let reason):
            report(reason)
        case .refused(let reason):
            report("\(broker) refused the connection: \(reason)")
        case .connectionLost(let reason):
            connected = false
            events.inFlight.removeAll()
            report("lost the connection to \(broker): \(reason)")
        case .acknowledged(let mid):
            lastAckAt = now
            events.inFlight.remove(mid)
            if let seq = seqByMid.removeValue(forKey: mid) {
                unacked.remove(seq)
                acknowledgedRows += 1
            }
        case .message(let topic, let payload):
            // Home Assistant (re)started: it forgot the configs that are not retained anywhere.
            if settings.discovery, topic == HomeAssistant.statusTopic, payload == Array("online".utf8) {
                announceAgain()
            }
        case .oversized: break
        }
    }

    /// Publishes the receiver's config and every config remembered.
    private func announceAgain() {
        guard connected else { return }
        _ = try? client.publish(HomeAssistant.receiverConfig(settings))
        for (topic, payload) in announced { _ = try? client.publish(MQTTMessage(topic: topic, payload: payload, retain: true)) }
    }

    /// Publishes the configs of `row`'s quantities that HA was not told about in this form.
    private func announce(_ row: ExportRow, stateTopic: String) {
        for config in HomeAssistant.configs(for: row, stateTopic: stateTopic, settings: settings, expireAfter: expireAfter) {
            announce(config)
        }
    }

    /// Publishes a discovery config unless HA was told it in this form, and remembers it for
    /// `announceAgain`.
    func announce(_ config: MQTTMessage) {
        guard announced[config.topic] != config.payload else { return }
        if announced.count >= Self.maxAnnounced { announced.removeAll() }
        announced[config.topic] = config.payload
        _ = try? client.publish(config)
    }

    /// Hands up to `budget` rows after `lastQueued` to the client, in order.
    private func publishRows(budget: Int) {
        var budget = budget
        while budget > 0 {
            let entries: [OutboxEntry]
            do { entries = try outbox.entries(after: lastQueued, limit: min(budget, 256)) } catch {
                storeFailed("\(error)")
                return
            }
            if entries.isEmpty { return }
            for entry in entries {
                guard let row = entry.row else {
                    // Its row is gone (retention, forget): nothing to publish, nothing to wait for.
                    queued.append(entry.seq)
                    lastQueued = entry.seq
                    continue
                }
                let topic = settings.baseTopic + "/\(row.sensor.address)"
                if settings.discovery { announce(row, stateTopic: topic) }
                let payload = JSON.storedRow(row, time: JSON.time(micros: row.timeMicros), receiver: settings.receiver)
                let mid: Int32
                do { mid = try client.publish(MQTTMessage(topic: topic, text: payload, qos: 1)) } catch {
                    // Disconnected meanwhile: this row is the first of the next round.
                    return
                }
                seqByMid[mid] = entry.seq
                unacked.insert(entry.seq)
                queued.append(entry.seq)
                lastQueued = entry.seq
                budget -= 1
            }
        }
    }

    /// `ackedThrough` up to the first seq handed over and not yet acknowledged.
    private func advanceCursor() {
        while queuedHead < queued.count, !unacked.contains(queued[queuedHead]) {
            ackedThrough = queued[queuedHead]
            queuedHead += 1
        }
    }

    private func resendFromCursor() {
        seqByMid.removeAll()
        unacked.removeAll()
        queued.removeAll()
        queuedHead = 0
        lastQueued = ackedThrough
    }

    private func storeFailed(_ problem: String) {
        guard problem != storeProblem else { return }
        storeProblem = problem
        log.error("mqtt: cannot read the outbox: \(problem)")
    }

    /// Deletes the acknowledged entries from the outbox (the cursor; at most every `cursorSeconds`:
    /// each is a small commit on the SD card).
    private func commitCursor(now: Double) {
        lastCommitAt = now
        guard ackedThrough > committed else { return }
        do {
            try outbox.acknowledge(through: ackedThrough)
            committed = ackedThrough
            storeProblem = nil
        } catch {
            storeFailed("\(error)")
        }
    }

    /// Rows in the outbox whose acknowledgement is not yet written (as of the last cursor),
    /// `nil` when it cannot be read.
    var backlog: Int? { try? outbox.backlog() }

    /// Everything stored is handed over and acknowledged.
    private var caughtUp: Bool {
        unacked.isEmpty && events.isIdle && ((try? outbox.entries(after: lastQueued, limit: 1).isEmpty) ?? true)
    }

    /// Before exiting: publishes what the broker takes within `seconds` (and stops early once
    /// nothing was acknowledged for 5 s), says `offline`, writes the cursor and disconnects.
    func finish(within seconds: Double) {
        let start = Timestamp.monotonicSeconds()
        var lastProgress = start
        var lastAcked = acknowledgedRows
        while true {
            tick()
            let now = Timestamp.monotonicSeconds()
            if acknowledgedRows != lastAcked {
                lastAcked = acknowledgedRows
                lastProgress = now
            }
            if connected, caughtUp { break }
            if now - start >= seconds || now - lastProgress >= 5 || (!connected && now - start >= 1) { break }
            usleep(10_000)
        }
        if connected, let mid = try? client.publish(MQTTMessage(topic: settings.statusTopic, text: "offline", retain: true)) {
            // The status is the last message: waited for briefly, so the broker has it before DISCONNECT.
            let deadline = Timestamp.monotonicSeconds() + 2
            var acked = false
            while !acked, Timestamp.monotonicSeconds() < deadline {
                for event in client.drainEvents() {
                    if case .acknowledged(let m) = event, m == mid { acked = true } else { handle(event, now: 0) }
                }
                if !acked { usleep(10_000) }
            }
        }
        advanceCursor()
        commitCursor(now: Timestamp.monotonicSeconds())
        client.stop()
        let left = backlog ?? 0
        log.info(
            "mqtt: \(acknowledgedRows) rows published to \(broker)"
                + (left > 0 ? ", \(left) wait in the outbox for the next run" : ""))
    }
}

extension MQTTPublisher {
    /// A clean stop (SIGTERM, `--duration`) waits this long at most for the broker.
    static let stopSeconds = 5.0

    /// The publisher of `settings` on `store`'s outbox, started; `nil` without `--mqtt`.
    static func open(
        _ settings: MQTTSettings?, store: SensorStore, configuration: StoreConfiguration, log: EventLog
    ) throws(CLIError) -> MQTTPublisher? {
        guard let settings else { return nil }
        let outbox: Outbox
        do { outbox = try store.openOutbox() } catch { throw StoreAccess.cliError(error) }
        let publisher = try MQTTPublisher(
            settings: settings, outbox: outbox, intervalSeconds: Int(configuration.downsample.intervalSeconds), log: log)
        try publisher.start()
        return publisher
    }
}
