#if canImport(Glibc)
    import Glibc
#endif
import CMosquitto
import Synchronization

// SensorMQTT: an MQTT client over Debian's libmosquitto, at the C boundary and nothing more.
//
// THREADS. The connection runs on a network thread of the client's own (`NetworkLoop`): it
// connects, runs `mosquitto_loop` (which sends, receives, keeps alive and calls our callbacks),
// and after any failure waits and connects again, the wait doubling from 1 s up to
// `maxReconnectDelaySeconds`, back to 1 s once a connection was accepted. (libmosquitto's own
// `mosquitto_loop_start` thread gives up for good when the very first connect fails, e.g. a
// logger booting before its broker: `MQTTClientTests`.) libmosquitto resends the QoS 1
// messages in flight when a connection dropped. The owner of an `MQTTClient` (the logger's one
// thread) publishes (`mosquitto_threaded_set`: the network thread writes them) and reads what
// happened with `drainEvents()`. What the two threads share is a `CallbackState` (immutable
// settings, a queue and flags behind a `Mutex` and atomics), passed to libmosquitto as its
// userdata pointer and retained for the client's life: no global state.
//
// INVARIANTS.
// (1) The `CallbackState` outlives every callback: it is released in `deinit` only after the
//     network thread has been joined and `mosquitto_destroy` has run.
// (2) `handle` is valid from `init` to `deinit` and used only through libmosquitto's functions,
//     which lock where both threads use it (publish, subscribe, disconnect).
// (3) The event queue is bounded: acknowledgements by the messages in flight (`maxInflight`, the
//     owner drains them), failed attempts by the backoff (one a second at most), incoming
//     messages by `maxQueuedMessages`: libmosquitto acknowledges a QoS 1 message before it hands
//     it over, so a full queue makes the network thread wait for the owner to drain (the broker
//     keeps the rest) rather than drop what the broker already counts as delivered. With
//     `maxPayloadBytes` set, each queued message holds at most that many bytes: a larger one is
//     queued as `.oversized`, its payload not copied (a stranger's 256 MB publish would otherwise
//     sit in the queue twice over, beside libmosquitto's own buffer).

/// One MQTT message to publish (or the will, or the birth message).
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int32
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: Int32 = 1, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public init(topic: String, text: String, qos: Int32 = 1, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }
}

/// How to reach the broker and what to say on connecting.
public struct MQTTClientConfiguration: Sendable, Equatable {
    public enum ProtocolVersion: Sendable, Equatable {
        case v311, v5
    }

    public var host: String
    public var port: Int32
    public var clientID: String
    public var username: String?
    public var password: String?
    /// TLS: `nil` for plain TCP; else the CA file to trust, or `nil` inside for the system's CAs.
    public var tls: TLSSettings?
    public var protocolVersion: ProtocolVersion = .v311
    /// A clean session (the default) starts without the broker's memory of earlier ones; a
    /// subscriber that must not miss messages while it is away turns it off.
    public var cleanSession = true
    public var keepAliveSeconds: Int32 = 30
    /// The wait between connection attempts doubles from 1 s up to this.
    public var maxReconnectDelaySeconds: UInt32 = 10
    /// QoS 1 messages sent and not yet acknowledged, at most.
    public var maxInflight: UInt32 = 100
    /// Published by the broker for us when the connection drops without a DISCONNECT.
    public var will: MQTTMessage?
    /// Published on every successful connect, before anything else (e.g. a retained `online`).
    public var birth: MQTTMessage?
    /// Subscribed (QoS 1) on every successful connect.
    public var subscriptions: [String] = []
    /// An incoming message with a longer payload is not handed over: it is an `.oversized`
    /// event instead (`nil`: any length the broker sends).
    public var maxPayloadBytes: Int? = nil

    public struct TLSSettings: Sendable, Equatable {
        /// A PEM file of CA certificates; `nil` trusts the operating system's CAs.
        public var caFile: String?
        public init(caFile: String?) { self.caFile = caFile }
    }

    public init(host: String, port: Int32, clientID: String) {
        self.host = host
        self.port = port
        self.clientID = clientID
    }
}

/// What the network thread saw, in order.
public enum MQTTEvent: Sendable, Equatable {
    /// The broker accepted the connection (CONNACK 0); subscriptions and birth are sent.
    case connected
    /// A connection attempt failed before the broker answered (refused, unreachable, TLS);
    /// another follows after the backoff.
    case connectFailed(reason: String)
    /// The broker answered the CONNECT with a refusal (bad credentials, not authorized, …).
    case refused(reason: String)
    /// An established connection ended without our asking; libmosquitto reconnects.
    case connectionLost(reason: String)
    /// The broker acknowledged the QoS 1 message with this id (PUBACK).
    case acknowledged(mid: Int32)
    /// A message on a subscribed topic.
    case message(topic: String, payload: [UInt8])
    /// A message on a subscribed topic whose payload of `bytes` is longer than `maxPayloadBytes`:
    /// acknowledged to the broker like any other, its payload dropped.
    case oversized(topic: String, bytes: Int)
}

/// A libmosquitto call that failed, with libmosquitto's words for it.
public struct MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int32
    public let message: String

    init(code: Int32, doing what: String) {
        self.code = code
        var text = String(cString: mosquitto_strerror(code))
        if code == Int32(MOSQ_ERR_ERRNO.rawValue) {
            // libmosquitto's text for it is "Unknown error"; errno says what happened.
            text = String(cString: strerror(errno))
        }
        message = "\(what): \(text)"
    }

    public var description: String { message }
}

/// The state libmosquitto's network thread shares with the owner (see the file header).
final class CallbackState: Sendable {
    let birth: MQTTMessage?
    let subscriptions: [String]
    /// MQTT 5: a refusal's code is a v5 reason code (`mosquitto_reason_string`), not a 3.1.1
    /// CONNACK code.
    let isV5: Bool
    let maxPayloadBytes: Int?
    private let queue = Mutex(EventQueue())
    let connected = Atomic<Bool>(false)
    /// Connections the broker accepted so far (the network thread's backoff starts over after one).
    let accepted = Atomic<Int>(0)
    let stopping = Atomic<Bool>(false)
    static let maxQueuedMessages = 256

    struct EventQueue {
        var events: [MQTTEvent] = []
        var queuedMessages = 0
    }

    init(birth: MQTTMessage?, subscriptions: [String], isV5: Bool, maxPayloadBytes: Int?) {
        self.birth = birth
        self.subscriptions = subscriptions
        self.isV5 = isV5
        self.maxPayloadBytes = maxPayloadBytes
    }

    /// Called on the network thread; waits while the queue holds `maxQueuedMessages` messages
    /// (invariant 3), except once the owner is stopping (it drains one last time after the join).
    func post(_ event: MQTTEvent) {
        let isMessage: Bool
        switch event {
        case .message, .oversized: isMessage = true
        default: isMessage = false
        }
        while true {
            let posted = queue.withLock { q in
                if isMessage {
                    guard q.queuedMessages < Self.maxQueuedMessages || stopping.load(ordering: .sequentiallyConsistent)
                    else { return false }
                    q.queuedMessages += 1
                }
                q.events.append(event)
                return true
            }
            if posted { return }
            usleep(2000)
        }
    }

    func drain() -> [MQTTEvent] {
        queue.withLock { q in
            let out = q.events
            q = EventQueue()
            return out
        }
    }
}

/// An MQTT connection run by libmosquitto's network thread (see the file header). Used from one
/// thread; not Sendable.
public final class MQTTClient {
    public let configuration: MQTTClientConfiguration
    private let handle: OpaquePointer
    private let state: CallbackState
    /// `state`, retained for libmosquitto as its userdata (invariant 1).
    private let userdata: Unmanaged<CallbackState>
    private var started = false
    private var stopped = false
    private var thread: pthread_t? = nil

    /// Creates the client and sets everything that must be set before connecting.
    /// - Throws: `MQTTError` for a setting libmosquitto refuses (e.g. an unreadable CA file).
    public init(_ configuration: MQTTClientConfiguration) throws(MQTTError) {
        self.configuration = configuration
        _ = Self.libraryInitialized
        let state = CallbackState(
            birth: configuration.birth, subscriptions: configuration.subscriptions,
            isV5: configuration.protocolVersion == .v5, maxPayloadBytes: configuration.maxPayloadBytes)
        self.state = state
        userdata = Unmanaged.passRetained(state)
        guard let h = mosquitto_new(configuration.clientID, configuration.cleanSession, userdata.toOpaque()) else {
            userdata.release()
            throw MQTTError(code: Int32(MOSQ_ERR_NOMEM.rawValue), doing: "create an MQTT client")
        }
        handle = h
        // Every property is set: if this throws, `deinit` runs and destroys the client.
        try configure()
    }

    private func configure() throws(MQTTError) {
        let c = configuration
        func check(_ rc: Int32, _ what: String) throws(MQTTError) {
            guard rc == Int32(MOSQ_ERR_SUCCESS.rawValue) else { throw MQTTError(code: rc, doing: what) }
        }
        let version = c.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, version), "set the MQTT protocol version")
        if c.username != nil || c.password != nil {
            try check(mosquitto_username_pw_set(handle, c.username ?? "", c.password), "set the MQTT user name")
        }
        if let will = c.will {
            let rc = will.payload.withUnsafeBytes { p in
                mosquitto_will_set(handle, will.topic, Int32(p.count), p.baseAddress, will.qos, will.retain)
            }
            try check(rc, "set the last will on \(will.topic)")
        }
        if let tls = c.tls {
            if let ca = tls.caFile {
                try check(mosquitto_tls_set(handle, ca, nil, nil, nil, nil), "use the CA file \(ca)")
            } else {
                try check(mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "trust the system's CAs")
            }
        }
        try check(mosquitto_threaded_set(handle, true), "let a thread of ours run the connection")
        try check(mosquitto_max_inflight_messages_set(handle, c.maxInflight), "set the messages in flight")

        // The callbacks run on the network thread. `obj` is the userdata given to `mosquitto_new`:
        // the `CallbackState` retained until after that thread is joined (invariant 1).
        mosquitto_connect_callback_set(handle) { mosq, obj, rc in
            guard let obj, let mosq else { return }
            let state = Unmanaged<CallbackState>.fromOpaque(obj).takeUnretainedValue()
            guard rc == 0 else {
                let reason = state.isV5 ? mosquitto_reason_string(rc) : mosquitto_connack_string(rc)
                state.post(.refused(reason: reason.map { String(cString: $0) } ?? "refused (\(rc))"))
                return
            }
            // Subscriptions and the birth message go out on the connection just made, before
            // anything the owner publishes next (libmosquitto sends in order).
            for topic in state.subscriptions { _ = mosquitto_subscribe(mosq, nil, topic, 1) }
            if let birth = state.birth {
                _ = birth.payload.withUnsafeBytes { p in
                    mosquitto_publish(mosq, nil, birth.topic, Int32(p.count), p.baseAddress, birth.qos, birth.retain)
                }
            }
            state.connected.store(true, ordering: .sequentiallyConsistent)
            state.accepted.add(1, ordering: .sequentiallyConsistent)
            state.post(.connected)
        }
        mosquitto_disconnect_callback_set(handle) { _, obj, rc in
            guard let obj else { return }
            let state = Unmanaged<CallbackState>.fromOpaque(obj).takeUnretainedValue()
            let was = state.connected.exchange(false, ordering: .sequentiallyConsistent)
            // rc 0: our own DISCONNECT. A refused CONNECT also ends here: said once, as `.refused`.
            if rc != 0, was { state.post(.connectionLost(reason: String(cString: mosquitto_strerror(rc)))) }
        }
        mosquitto_publish_callback_set(handle) { _, obj, mid in
            guard let obj else { return }
            Unmanaged<CallbackState>.fromOpaque(obj).takeUnretainedValue().post(.acknowledged(mid: mid))
        }
        mosquitto_message_callback_set(handle) { _, obj, message in
            guard let obj, let m = message?.pointee else { return }
            let state = Unmanaged<CallbackState>.fromOpaque(obj).takeUnretainedValue()
            // libmosquitto owns `m` for the callback only: its topic and payload are copied now.
            // `payloadlen` bytes are valid at `payload` (NULL when 0).
            let topic = m.topic.map { String(cString: $0) } ?? ""
            if let max = state.maxPayloadBytes, Int(m.payloadlen) > max {
                state.post(.oversized(topic: topic, bytes: Int(m.payloadlen)))
                return
            }
            let payload = m.payload.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: Int(m.payloadlen))) } ?? []
            state.post(.message(topic: topic, payload: payload))
        }
    }

    /// Starts the network thread, which connects and keeps connecting until `stop()`; every
    /// failed attempt is a `.connectFailed` event.
    /// - Throws: when the thread cannot be started.
    public func start() throws(MQTTError) {
        precondition(!started, "an MQTTClient starts once")
        let loop = NetworkLoop(handle: handle, state: state, configuration: configuration)
        // The thread's argument is `loop`, retained for it and released by the thread itself.
        let context = Unmanaged.passRetained(loop).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { context in
            guard let context else { return nil }
            Unmanaged<NetworkLoop>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<NetworkLoop>.fromOpaque(context).release()
            throw MQTTError(code: Int32(MOSQ_ERR_ERRNO.rawValue), doing: "start the MQTT network thread")
        }
        started = true
        thread = tid
    }

    /// The broker accepted the current connection and it has not dropped since.
    public var isConnected: Bool { state.connected.load(ordering: .sequentiallyConsistent) }

    /// Hands a message to libmosquitto; returns its message id, which an `.acknowledged` event
    /// names once the broker has it (QoS 1).
    public func publish(_ m: MQTTMessage) throws(MQTTError) -> Int32 {
        var mid: Int32 = 0
        let rc = m.payload.withUnsafeBytes { p in
            mosquitto_publish(handle, &mid, m.topic, Int32(p.count), p.baseAddress, m.qos, m.retain)
        }
        guard rc == Int32(MOSQ_ERR_SUCCESS.rawValue) else { throw MQTTError(code: rc, doing: "publish on \(m.topic)") }
        return mid
    }

    /// What happened since the last call, in order.
    public func drainEvents() -> [MQTTEvent] {
        state.drain()
    }

    /// Disconnects cleanly (the broker then does not publish the will) and joins the network
    /// thread. Idempotent.
    public func stop() {
        guard started, !stopped else { return }
        stopped = true
        // The network thread checks `stopping` between loop turns (each at most 100 ms) and in
        // its backoff waits; `mosquitto_disconnect` sends DISCONNECT and ends the loop at once.
        state.stopping.store(true, ordering: .sequentiallyConsistent)
        _ = mosquitto_disconnect(handle)
        if let thread { pthread_join(thread, nil) }
        state.connected.store(false, ordering: .sequentiallyConsistent)
    }

    deinit {
        stop()
        mosquitto_destroy(handle)
        // No callback can run any more (invariant 1).
        userdata.release()
    }

    /// `mosquitto_lib_init` once per process, before the first client; never cleaned up (the
    /// process's end does it). Its counter is not thread-safe, and `mosquitto_lib_cleanup` tears
    /// down OpenSSL under any other client still running: a `static let` runs it exactly once.
    private static let libraryInitialized: Int32 = mosquitto_lib_init()
}

/// The network thread's work (see the file header): connect, loop, wait, connect again.
/// Sendable by its invariant: `handle` is only passed to libmosquitto, which locks (invariant 2),
/// and outlives the thread, which `MQTTClient.stop` joins before `mosquitto_destroy`.
private final class NetworkLoop: @unchecked Sendable {
    let handle: OpaquePointer
    let state: CallbackState
    let configuration: MQTTClientConfiguration

    init(handle: OpaquePointer, state: CallbackState, configuration: MQTTClientConfiguration) {
        self.handle = handle
        self.state = state
        self.configuration = configuration
    }

    private var stopping: Bool { state.stopping.load(ordering: .sequentiallyConsistent) }

    func run() {
        let c = configuration
        var delay: UInt32 = 0
        while !stopping {
            let before = state.accepted.load(ordering: .sequentiallyConsistent)
            // Non-blocking: a connect that hangs (a host that drops SYNs) is finished or given up
            // by the loop below, which looks at `stopping` every 100 ms, so `stop()` never waits
            // for a TCP timeout. Except for a session kept across connections in MQTT 5
            // (`connectKeepingSession`).
            let rc =
                c.protocolVersion == .v5 && !c.cleanSession
                ? connectKeepingSession() : mosquitto_connect_async(handle, c.host, c.port, c.keepAliveSeconds)
            if rc == Int32(MOSQ_ERR_SUCCESS.rawValue) {
                var loop = rc
                while loop == Int32(MOSQ_ERR_SUCCESS.rawValue), !stopping { loop = mosquitto_loop(handle, 100, 1) }
                // Ended before the broker accepted: say why (an accepted one ends as `.connectionLost`).
                if !stopping, state.accepted.load(ordering: .sequentiallyConsistent) == before,
                    loop != Int32(MOSQ_ERR_CONN_REFUSED.rawValue)
                {
                    state.post(.connectFailed(reason: MQTTError(code: loop, doing: "connect to \(c.host):\(c.port)").message))
                }
            } else {
                state.post(.connectFailed(reason: MQTTError(code: rc, doing: "connect to \(c.host):\(c.port)").message))
            }
            if stopping { break }
            // A connection the broker accepted starts the backoff over.
            if state.accepted.load(ordering: .sequentiallyConsistent) != before { delay = 0 }
            delay = delay == 0 ? 1 : min(delay * 2, max(1, c.maxReconnectDelaySeconds))
            for _ in 0..<(delay * 10) where !stopping { usleep(100_000) }
        }
    }

    /// The CONNECT of an MQTT 5 client whose session the broker keeps after it disconnects: in
    /// MQTT 5 clean start off alone resumes a session, and only a session expiry interval in the
    /// CONNECT keeps it past the connection (here: never expires, as a 3.1.1 persistent session).
    /// libmosquitto takes CONNECT properties only in its blocking connect (no async one:
    /// eclipse-mosquitto/mosquitto#2644), so this one waits for TCP (and TLS): a `stop()` meanwhile
    /// waits for it, at worst a TCP timeout towards a host that drops SYNs.
    private func connectKeepingSession() -> Int32 {
        let c = configuration
        // `properties` is a list libmosquitto allocates and this function frees; the connect
        // copies what it needs.
        var properties: OpaquePointer? = nil
        defer { mosquitto_property_free_all(&properties) }
        let added = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), UInt32.max)
        guard added == Int32(MOSQ_ERR_SUCCESS.rawValue) else { return added }
        return mosquitto_connect_bind_v5(handle, c.host, c.port, c.keepAliveSeconds, nil, properties)
    }
}
