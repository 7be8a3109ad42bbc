import Foundation
import Testing

/// A real Mosquitto broker (`/usr/sbin/mosquitto`) on a free loopback port with a generated
/// config, for one test; and `mosquitto_sub` subscribers reading what it delivers.
final class MQTTBroker {
    static let mosquitto = "/usr/sbin/mosquitto"
    static let sub = "/usr/bin/mosquitto_sub"
    static let pub = "/usr/bin/mosquitto_pub"
    static var isAvailable: Bool {
        [mosquitto, sub, pub].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    let dir: String
    let port: Int
    /// Listener lines beyond `listener PORT 127.0.0.1` (TLS files, auth).
    let listenerConfig: String
    private var process: Child?

    init(dir: String, listenerConfig: String = "allow_anonymous true") {
        self.dir = dir
        self.port = Self.freePort()
        self.listenerConfig = listenerConfig
    }

    /// A port the kernel just gave out on 127.0.0.1 (closed again: the broker binds it next).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
        }
        _ = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Starts the broker (again, after `stop`: with the same port and persistence file, so
    /// persistent sessions and retained messages survive) and waits until it accepts connections.
    func start() throws {
        let conf = dir + "/mosquitto.conf"
        let text = """
            per_listener_settings true
            user root
            persistence true
            persistence_location \(dir)/
            # A hub's queue (README, "collect"): mosquitto's default of 1,000 queued QoS 1
            # messages per client silently drops the rest of three loggers' backlogs.
            max_queued_messages 100000
            log_dest file \(dir)/mosquitto.log
            # The defaults, and each subscription ("CLIENT QOS FILTER"), which `awaitSubscription` reads.
            log_type error
            log_type warning
            log_type notice
            log_type information
            log_type subscribe
            listener \(port) 127.0.0.1
            \(listenerConfig)

            """
        try text.write(toFile: conf, atomically: true, encoding: .utf8)
        process = try Child(Self.mosquitto, ["-c", conf])
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if Self.accepts(port: port) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("mosquitto did not listen on \(port): \(log)")
    }

    /// SIGTERM (the broker saves its persistence file) and wait.
    func stop() {
        guard let p = process else { return }
        p.wait(signal: SIGTERM)
        process = nil
    }

    deinit { stop() }

    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        return withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    var url: String { "mqtt://127.0.0.1:\(port)" }

    /// What the broker logged so far.
    var log: String { (try? String(contentsOfFile: dir + "/mosquitto.log", encoding: .utf8)) ?? "" }

    /// Waits until the broker has logged `client` subscribing to `filter` (`CLIENT QOS FILTER`)
    /// more than `before` times: from then on it receives what is published there.
    @discardableResult
    func awaitSubscription(by client: String, to filter: String, before: Int = 0, seconds: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while subscriptions(by: client, to: filter) <= before {
            guard Date() < deadline else {
                Issue.record("\(client) did not subscribe to \(filter) within \(Int(seconds)) s: \(log.suffix(1500))")
                return false
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return true
    }

    /// How often the broker logged `client` subscribing to `filter`.
    func subscriptions(by client: String, to filter: String) -> Int {
        log.split(separator: "\n").filter { line in
            let words = line.split(separator: " ")
            return words.count == 4 && words[1] == client && words[3] == filter
        }.count
    }

    /// One delivered message: its topic, payload, and whether it came as a retained one.
    struct Message {
        var topic: String
        var payload: String
        var retained: Bool
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any] }
    }

    /// A `mosquitto_sub` on `topics`, QoS 1, printing each message as `retain topic payload`.
    /// `session`: a client id whose session the broker keeps (clean session off), so that the
    /// subscriber misses nothing while it reconnects after a broker restart. `login`: the
    /// `-u`/`-P` arguments a broker without anonymous access wants.
    ///
    /// MQTT never says "you are subscribed now" to a command-line client, and a loaded machine
    /// can outlast any fixed wait. So each subscriber also takes a sentinel topic of its own and
    /// is ready once a live message published there has come back: the broker delivers a
    /// subscription's retained messages before any later publish.
    final class Subscriber {
        let process: Child
        let output: String
        private let sentinel = "test-sentinel/\(UUID().uuidString)"

        init(broker: MQTTBroker, topics: [String], session: String? = nil, login: [String] = [], extra: [String] = []) throws {
            output = broker.dir + "/sub-\(UUID().uuidString).txt"
            var args = ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-F", "%r %t %p"] + login
            if let session { args += ["-c", "-i", session] }
            for t in topics + [sentinel] { args += ["-t", t] }
            process = try Child(MQTTBroker.sub, args + extra, stdout: output)
            // With `--retained-only` the sentinel is not printed but ends the subscriber.
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning, !lines.contains(where: { $0.contains(sentinel) }), Date() < deadline {
                try Child(MQTTBroker.pub, ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", sentinel, "-m", "ready"] + login).wait()
                Thread.sleep(forTimeInterval: 0.1)
            }
            if Date() >= deadline { Issue.record("mosquitto_sub on \(topics) got no message for a minute") }
        }

        private var lines: [Substring] {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n")
        }

        var messages: [Message] {
            lines.compactMap { line in
                let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
                guard parts.count == 3, parts[1] != sentinel else { return nil }
                return Message(topic: String(parts[1]), payload: String(parts[2]), retained: parts[0] == "1")
            }
        }

        /// Waits until `done` holds for the messages so far, or `seconds` pass.
        @discardableResult
        func wait(seconds: Double, until done: ([Message]) -> Bool) -> [Message] {
            let deadline = Date().addingTimeInterval(seconds)
            var m = messages
            while !done(m), Date() < deadline {
                Thread.sleep(forTimeInterval: 0.1)
                m = messages
            }
            return m
        }

        func stop() { process.wait(signal: SIGTERM) }

        deinit { stop() }
    }

    /// The retained messages on `topic` (a filter) now: a fresh subscriber that leaves at its
    /// sentinel, the first live message (`--retained-only`).
    func retained(_ topic: String) throws -> [Message] {
        let s = try Subscriber(broker: self, topics: [topic], extra: ["-W", "60", "--retained-only"])
        if s.process.wait() != 0 { Issue.record("mosquitto_sub for the retained messages on \(topic) did not end at its sentinel") }
        return s.messages
    }
}

/// A child process started with every signal unblocked and at its default: a test process
/// blocks most signals in its threads, and a child inheriting that mask (as Foundation's
/// `Process` leaves it) never sees SIGTERM or `mosquitto_sub -W`'s SIGALRM.
final class Child {
    let pid: pid_t
    private var status: Int32? = nil

    /// Starts `path args…` with standard output appended to `stdout` (or /dev/null), stderr to /dev/null.
    init(_ path: String, _ args: [String], stdout: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attr, &none)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + args).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, &attr, argv, environ)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        self.pid = pid
    }

    var isRunning: Bool {
        guard status == nil else { return false }
        var st: Int32 = 0
        if waitpid(pid, &st, WNOHANG) == pid { status = st }
        return status == nil
    }

    /// Waits for the exit (after `signal`, if given) and returns the raw wait status.
    @discardableResult
    func wait(signal: Int32? = nil) -> Int32 {
        if let status { return status }
        if let signal { kill(pid, signal) }
        var st: Int32 = 0
        while waitpid(pid, &st, 0) < 0, errno == EINTR {}
        status = st
        return st
    }
}
