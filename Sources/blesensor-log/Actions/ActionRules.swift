#if canImport(Glibc)
import Glibc
#endif
import AdvScanner
import SensorDecode

/// One event as rules see it: the device, what it did, when.
struct EventContext {
    var address: BDAddress
    var alias: String?
    var model: String
    var event: DeviceEvent
    /// µs since the Unix epoch.
    var timeMicros: Int64
    var rssi: Int8?
}

/// One rule: which events, what to run.
struct ActionRule: Equatable {
    /// An address or an alias; `nil` matches any device.
    var sensor: String?
    var event: DeviceEvent.Kind?
    var value: String?
    /// Matches only events of an encrypted, authenticated frame.
    var requireEncrypted: Bool
    /// The program (an absolute path) and its arguments, exactly as written.
    var argv: [String]
    var cooldownSeconds: Double
    var timeoutSeconds: Double
    /// Where it starts in the file, for log lines.
    var line: Int

    static let defaultTimeoutSeconds = 10.0

    func matches(_ e: EventContext) -> Bool {
        if let sensor {
            if let a = BDAddress(sensor) {
                guard a == e.address else { return false }
            } else {
                guard sensor == e.alias else { return false }
            }
        }
        if let event, event != e.event.kind { return false }
        if let value, value != e.event.value { return false }
        if requireEncrypted, !e.event.encrypted { return false }
        return true
    }
}

/// `--actions FILE`: the rules file, read and checked at start-up, before anything runs.
///
/// ```json
/// {"remotes": [{"address": "C0:98:E5:00:00:01", "service": "2220", "characteristic": "2221"}],
///  "rules": [{"match": {"sensor": "kitchen-button", "event": "button", "value": "double_press"},
///             "run": ["/home/pi/lights.sh", "toggle"], "cooldown": "1s", "timeout": "10s"}]}
/// ```
/// Every key is checked (an unknown one is a typo, refused); an error names the line and the
/// field (`rules[1].run[0]`).
struct ActionFile: Equatable {
    var remotes: [GATTRemoteSpec] = []
    var rules: [ActionRule] = []

    static let maxBytes = 1 << 20
    static let maxRules = 1000
    static let maxRemotes = 16

    static let option = OptionSpec.value(
        "actions", "FILE", help: "Run commands on button presses and GATT notifications, by the rules in FILE (JSON; see README \"Actions\").")

    /// Reads `path`. A file that cannot be read is a usage error (64), a bad one a data error (65).
    static func load(path: String) throws(CLIError) -> ActionFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw CLIError("--actions \(path): \(String(cString: strerror(errno)))", code: ExitCode.usage)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError("--actions \(path): \(String(cString: strerror(errno)))", code: ExitCode.usage)
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > maxBytes {
                throw CLIError("--actions \(path): larger than \(maxBytes) bytes", code: ExitCode.dataError)
            }
        }
        do throws(RuleError) {
            return try parse(bytes)
        } catch {
            throw CLIError("--actions \(path): \(error)", code: ExitCode.dataError)
        }
    }

    struct RuleError: Error, CustomStringConvertible {
        var line: Int
        var field: String
        var reason: String
        var description: String { field.isEmpty ? "line \(line): \(reason)" : "line \(line): \(field): \(reason)" }
    }

    static func parse(_ bytes: [UInt8]) throws(RuleError) -> ActionFile {
        let root: JSONNode
        do { root = try JSONParser.parse(bytes) } catch {
            throw RuleError(line: error.line, field: "", reason: error.reason)
        }
        var file = ActionFile()
        let top = try members(root, "", allowed: ["remotes", "rules"])
        if let remotes = top["remotes"] {
            for (i, node) in try items(remotes, "remotes").enumerated() {
                let field = "remotes[\(i)]"
                let m = try members(node, field, allowed: ["address", "service", "characteristic"])
                let address = try required(m, node, field, "address")
                guard let a = BDAddress(try text(address, field + ".address")) else {
                    throw RuleError(line: address.line, field: field + ".address", reason: "not an address like C0:98:E5:00:00:01")
                }
                var uuids: [GATTUUID] = []
                for key in ["service", "characteristic"] {
                    let n = try required(m, node, field, key)
                    guard let u = GATTUUID(try text(n, field + "." + key)) else {
                        throw RuleError(line: n.line, field: field + "." + key, reason: "not a UUID like 2220 or 6e400001-b5a3-f393-e0a9-e50e24dcca9e")
                    }
                    uuids.append(u)
                }
                file.remotes.append(GATTRemoteSpec(address: a, service: uuids[0], characteristic: uuids[1]))
            }
            if file.remotes.count > maxRemotes {
                throw RuleError(line: remotes.line, field: "remotes", reason: "more than \(maxRemotes) remotes")
            }
        }
        guard let rules = top["rules"] else {
            throw RuleError(line: root.line, field: "rules", reason: "missing: the file has no rules")
        }
        for (i, node) in try items(rules, "rules").enumerated() {
            let field = "rules[\(i)]"
            let m = try members(node, field, allowed: ["match", "run", "cooldown", "timeout"])
            let match = try required(m, node, field, "match")
            let mm = try members(match, field + ".match", allowed: ["sensor", "event", "value", "encrypted"])
            var rule = ActionRule(
                sensor: nil, event: nil, value: nil, requireEncrypted: false, argv: [], cooldownSeconds: 0,
                timeoutSeconds: ActionRule.defaultTimeoutSeconds, line: node.line)
            if let s = mm["sensor"] { rule.sensor = try text(s, field + ".match.sensor") }
            if let e = mm["event"] {
                let name = try text(e, field + ".match.event")
                guard let kind = DeviceEvent.Kind(rawValue: name) else {
                    throw RuleError(
                        line: e.line, field: field + ".match.event",
                        reason: "'\(name)' is none of " + DeviceEvent.Kind.allCases.map(\.rawValue).joined(separator: ", "))
                }
                rule.event = kind
            }
            if let v = mm["value"] { rule.value = try text(v, field + ".match.value") }
            if let e = mm["encrypted"] {
                guard case .bool(let b) = e.value else {
                    throw RuleError(line: e.line, field: field + ".match.encrypted", reason: "wants true or false, got \(e.value.kindName)")
                }
                rule.requireEncrypted = b
            }
            let run = try required(m, node, field, "run")
            let argv = try items(run, field + ".run")
            guard !argv.isEmpty else { throw RuleError(line: run.line, field: field + ".run", reason: "empty: name a program") }
            for (j, a) in argv.enumerated() {
                let arg = try text(a, field + ".run[\(j)]")
                guard !arg.utf8.contains(0) else {
                    throw RuleError(line: a.line, field: field + ".run[\(j)]", reason: "holds a NUL character")
                }
                rule.argv.append(arg)
            }
            let program = rule.argv[0]
            // No shell and no PATH search: the program is the file named, and it is checked now, not at the first press.
            guard program.hasPrefix("/") else {
                throw RuleError(line: argv[0].line, field: field + ".run[0]", reason: "'\(program)' is not an absolute path (commands run without a shell or PATH search)")
            }
            guard access(program, X_OK) == 0 else {
                throw RuleError(line: argv[0].line, field: field + ".run[0]", reason: "\(program): \(String(cString: strerror(errno)))")
            }
            if let c = m["cooldown"] { rule.cooldownSeconds = try duration(c, field + ".cooldown", allowZero: true) }
            if let t = m["timeout"] { rule.timeoutSeconds = try duration(t, field + ".timeout", allowZero: false) }
            file.rules.append(rule)
        }
        if file.rules.count > maxRules {
            throw RuleError(line: rules.line, field: "rules", reason: "more than \(maxRules) rules")
        }
        return file
    }

    // MARK: checked access

    private static func members(_ node: JSONNode, _ field: String, allowed: [String]) throws(RuleError) -> [String: JSONNode] {
        guard case .object(let pairs) = node.value else {
            throw RuleError(line: node.line, field: field, reason: "wants an object, got \(node.value.kindName)")
        }
        var out: [String: JSONNode] = [:]
        for (key, value) in pairs {
            guard allowed.contains(key) else {
                throw RuleError(
                    line: value.line, field: field.isEmpty ? key : field + "." + key,
                    reason: "unknown key (known: \(allowed.joined(separator: ", ")))")
            }
            out[key] = value
        }
        return out
    }

    private static func required(_ m: [String: JSONNode], _ node: JSONNode, _ field: String, _ key: String) throws(RuleError) -> JSONNode {
        guard let v = m[key] else { throw RuleError(line: node.line, field: field + "." + key, reason: "missing") }
        return v
    }

    private static func items(_ node: JSONNode, _ field: String) throws(RuleError) -> [JSONNode] {
        guard case .array(let a) = node.value else {
            throw RuleError(line: node.line, field: field, reason: "wants an array, got \(node.value.kindName)")
        }
        return a
    }

    private static func text(_ node: JSONNode, _ field: String) throws(RuleError) -> String {
        guard case .string(let s) = node.value else {
            throw RuleError(line: node.line, field: field, reason: "wants a string, got \(node.value.kindName)")
        }
        return s
    }

    /// "1s", "2m", or a number of seconds; at most a day.
    private static func duration(_ node: JSONNode, _ field: String, allowZero: Bool) throws(RuleError) -> Double {
        let seconds: Double?
        switch node.value {
        case .number(let n, _): seconds = n
        case .string(let s): seconds = TimeArguments.duration(s)
        default: seconds = nil
        }
        guard let d = seconds, d.isFinite, d <= 86400, allowZero ? d >= 0 : d > 0 else {
            throw RuleError(
                line: node.line, field: field,
                reason: "wants a duration \(allowZero ? "from 0" : "over 0") up to 1d, like \"1s\" or \"2m\"")
        }
        return d
    }
}
