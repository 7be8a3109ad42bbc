#if canImport(Glibc)
import Glibc
#endif
import SensorDecode

/// Runs the rules' commands for events: `posix_spawn` of the argv as written (never a shell, never
/// radio data in argv), the event in the environment, a cooldown per rule, a timeout per command,
/// and a bound on how many run at once.
///
/// Invariants:
/// - At most `maxRunning` children are alive; an event that would start one more is logged and
///   dropped (`whenFull: .drop`, the logger) or waits for a slot (`.wait`, replay, which also
///   starts commands one at a time so that they run in the order of the capture).
/// - Every child started is reaped: `reap` is called from the loop's tick, `finish` waits for all.
/// - A child past its timeout gets SIGTERM (to its process group: it runs in one of its own), and
///   SIGKILL `killGraceSeconds` later.
/// - A rule's cooldown is measured on the events' own times (a replay's cooldowns are the
///   capture's), from the last event that ran it.
/// - Environment values are printable ASCII (anything else becomes `?`), whatever the alias or
///   model says.
final class ActionRunner {
    enum WhenFull { case drop, wait }

    let rules: [ActionRule]
    let maxRunning: Int
    let whenFull: WhenFull
    let log: EventLog
    static let killGraceSeconds = 2.0

    private struct Child {
        var pid: pid_t
        var rule: Int
        var started: Double
        var terminatedAt: Double?
    }

    private var children: [Child] = []
    private var lastRun: [Int: Int64] = [:]
    private(set) var started = 0
    private(set) var dropped = 0

    init(rules: [ActionRule], maxRunning: Int = 4, whenFull: WhenFull, log: EventLog) {
        self.rules = rules
        self.maxRunning = max(1, maxRunning)
        self.whenFull = whenFull
        self.log = log
    }

    var running: Int { children.count }

    /// Starts the command of every rule that matches `e` and is out of its cooldown.
    func handle(_ e: EventContext) {
        for (i, rule) in rules.enumerated() where rule.matches(e) {
            if let last = lastRun[i], rule.cooldownSeconds > 0,
                Double(e.timeMicros - last) / 1e6 < rule.cooldownSeconds, e.timeMicros >= last
            {
                log.debug("action (rule at line \(rule.line)): \(describe(e)) within its cooldown, not run")
                continue
            }
            reap(now: Timestamp.monotonicSeconds())
            if children.count >= maxRunning {
                switch whenFull {
                case .drop:
                    dropped += 1
                    log.warning("action (rule at line \(rule.line)): \(children.count) commands still running; \(describe(e)) dropped")
                    continue
                case .wait:
                    while children.count >= maxRunning {
                        usleep(10_000)
                        reap(now: Timestamp.monotonicSeconds())
                    }
                }
            }
            lastRun[i] = e.timeMicros
            spawn(rule: i, e)
        }
    }

    /// Reaps the children that ended, and signals those past their timeout.
    func reap(now: Double) {
        var i = 0
        while i < children.count {
            var status: Int32 = 0
            let r = waitpid(children[i].pid, &status, WNOHANG)
            if r == children[i].pid || (r < 0 && errno == ECHILD) {
                report(children[i], status: r < 0 ? nil : status)
                children.remove(at: i)
                continue
            }
            let c = children[i]
            let timeout = rules[c.rule].timeoutSeconds
            if c.terminatedAt == nil, now - c.started >= timeout {
                log.warning("action (rule at line \(rules[c.rule].line)): \(rules[c.rule].argv[0]) ran past its timeout of \(TimeArguments.describe(timeout)): terminated")
                _ = kill(-c.pid, SIGTERM)
                children[i].terminatedAt = now
            } else if let t = c.terminatedAt, now - t >= Self.killGraceSeconds {
                _ = kill(-c.pid, SIGKILL)
            }
            i += 1
        }
    }

    /// Waits for every started command (each within its timeout and the kill grace).
    func finish() {
        while !children.isEmpty {
            reap(now: Timestamp.monotonicSeconds())
            if !children.isEmpty { usleep(10_000) }
        }
    }

    private func report(_ c: Child, status: Int32?) {
        let rule = rules[c.rule]
        guard let status else { return }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import (C macros).
        let signal = status & 0x7F
        if signal == 0 {
            let code = (status >> 8) & 0xFF
            if code == 0 {
                log.debug("action (rule at line \(rule.line)): \(rule.argv[0]) exited 0")
            } else {
                log.warning("action (rule at line \(rule.line)): \(rule.argv[0]) exited \(code)")
            }
        } else if c.terminatedAt == nil {
            log.warning("action (rule at line \(rule.line)): \(rule.argv[0]) killed by signal \(signal)")
        }
    }

    private func describe(_ e: EventContext) -> String {
        "\(e.event.kind.rawValue) \(e.event.value) from \(e.alias ?? e.address.description)"
    }

    /// Printable ASCII only: anything else (control characters, bytes of another script) is `?`.
    static func sanitised(_ s: String) -> String {
        String(decoding: s.utf8.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    /// The event's variables, as `NAME=value`.
    static func environment(_ e: EventContext) -> [String] {
        [
            "BLE_ADDRESS=\(e.address)", "BLE_ALIAS=" + sanitised(e.alias ?? ""), "BLE_MODEL=" + sanitised(e.model),
            "BLE_EVENT=\(e.event.kind.rawValue)", "BLE_VALUE=" + sanitised(e.event.value),
            "BLE_TIME=" + Timestamp.iso8601(micros: e.timeMicros, localOffsetSeconds: nil),
            "BLE_RSSI=" + (e.rssi.map { String($0) } ?? ""),
        ]
    }

    private func spawn(rule index: Int, _ e: EventContext) {
        let rule = rules[index]
        // Our environment without any BLE_* of its own, then the event's.
        var env: [String] = []
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if !s.hasPrefix("BLE_") { env.append(s) }
            p += 1
        }
        env += Self.environment(e)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // stdin from /dev/null; stdout and stderr are ours (the journal); nothing else of ours
        // (the HCI socket, the database) reaches the command.
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // (glibc's closefrom action is not imported: each descriptor still open across exec is
        // closed by name; the logger's own are few and low.)
        for fd in Int32(3)..<256 {
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0, flags & FD_CLOEXEC == 0 { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A process group of its own (a timeout stops what it started too), no signal blocked,
        // and the signals we catch back at their defaults.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        // strdup'd copies live until posix_spawn returns (it copies them into the child); freed below.
        let argv = rule.argv.map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer {
            for a in argv { free(a) }
            for v in envp { free(v) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, rule.argv[0], &actions, &attributes, argv, envp)
        guard rc == 0 else {
            log.warning("action (rule at line \(rule.line)): cannot start \(rule.argv[0]): \(String(cString: strerror(rc)))")
            return
        }
        started += 1
        log.debug("action (rule at line \(rule.line)): \(describe(e)): started \(rule.argv[0]) (pid \(pid))")
        children.append(Child(pid: pid, rule: index, started: Timestamp.monotonicSeconds()))
    }
}
