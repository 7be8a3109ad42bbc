#if canImport(Glibc)
    import Glibc
#endif
import SensorMQTT

/// `mqtt://[user[:password]@]host[:port]` or `mqtts://…`, as `--mqtt` takes it. User and password
/// may be percent-encoded (`%40` for `@`); a host may be an IPv6 literal in brackets.
struct MQTTBrokerURL: Equatable {
    var tls: Bool
    var host: String
    var port: Int32
    var username: String?
    var password: String?

    /// The URL without its password, for messages.
    var redacted: String {
        let user = username.map { "\($0)@" } ?? ""
        let h = host.contains(":") ? "[\(host)]" : host
        return (tls ? "mqtts://" : "mqtt://") + user + h + ":\(port)"
    }

    /// Parses `text`; the error never quotes the password.
    static func parse(_ text: String) throws(CLIError) -> MQTTBrokerURL {
        func bad(_ why: String) -> CLIError {
            .usage("--mqtt wants mqtt://[user[:password]@]host[:port] or mqtts://…: \(why)")
        }
        let tls: Bool
        var rest: Substring
        if text.hasPrefix("mqtt://") {
            tls = false
            rest = text.dropFirst(7)
        } else if text.hasPrefix("mqtts://") {
            tls = true
            rest = text.dropFirst(8)
        } else {
            throw bad("the scheme must be mqtt:// or mqtts://")
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains("/") || rest.contains("?") || rest.contains("#") {
            throw bad("no path, query or fragment after the host")
        }
        var username: String? = nil
        var password: String? = nil
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                username = try percentDecoded(userInfo[..<colon], bad)
                password = try percentDecoded(userInfo[userInfo.index(after: colon)...], bad)
            } else {
                username = try percentDecoded(userInfo, bad)
            }
            if username?.isEmpty == true { throw bad("an empty user name") }
        }
        var host: Substring
        var portText: Substring? = nil
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw bad("an IPv6 address needs its closing ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw bad("unexpected text after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw bad("no host") }
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:%".contains($0)) }) else {
            throw bad("the host has characters a host name cannot have")
        }
        var port: Int32 = tls ? 8883 : 1883
        if let portText {
            guard let p = Int32(portText), (1...65535).contains(p) else { throw bad("the port must be 1 to 65535") }
            port = p
        }
        return MQTTBrokerURL(tls: tls, host: String(host), port: port, username: username, password: password)
    }

    private static func percentDecoded(_ s: Substring, _ bad: (String) -> CLIError) throws(CLIError) -> String {
        var out: [UInt8] = []
        var bytes = s.utf8[...]
        while let b = bytes.first {
            bytes = bytes.dropFirst()
            guard b == UInt8(ascii: "%") else {
                out.append(b)
                continue
            }
            guard bytes.count >= 2, let v = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) else {
                throw bad("a % in the user or password must be followed by two hex digits")
            }
            out.append(v)
            bytes = bytes.dropFirst(2)
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// What `--mqtt` and its companions configure (`run`, `replay`).
struct MQTTSettings: Equatable {
    var broker: MQTTBrokerURL
    var caFile: String?
    /// The password to use, from the file, the environment or the URL, in that order.
    var password: String?
    var prefix: String
    var receiver: String
    var discovery: Bool
    /// `--mqtt-protocol`: MQTT 3.1.1 (the default) or 5.
    var protocolVersion: MQTTClientConfiguration.ProtocolVersion = .v311

    /// `<prefix>/<receiver>`: state topics are below it, and its `status` says `online`/`offline`.
    var baseTopic: String { prefix + "/" + receiver }
    var statusTopic: String { baseTopic + "/status" }
}

enum MQTTOptions {
    static let passwordVariable = "BLESENSOR_MQTT_PASSWORD"

    static let specs: [OptionSpec] = [
        .value(
            "mqtt", "URL",
            help: "Also publish every stored row to an MQTT broker: mqtt://[user[:password]@]host[:port] or mqtts://…"),
        .value("mqtt-ca", "FILE", help: "With mqtts://: trust the CA certificates in FILE (default: the system's)."),
        .value(
            "mqtt-password-file", "FILE",
            help: "The broker password is FILE's first line (else $\(passwordVariable), else the URL's)."),
        .value("mqtt-prefix", "TOPIC", help: "State topics are TOPIC/<receiver>/<ADDRESS> (default blesensor)."),
        .value("receiver", "NAME", help: "This logger's name in topics and Home Assistant (default: the host name)."),
        .value("ha-discovery", "on|off", help: "Home Assistant discovery configs under homeassistant/ (default on)."),
        .value("mqtt-protocol", "3.1.1|5", help: "The MQTT version to speak to the broker (default 3.1.1)."),
    ]

    /// The settings of `args`, or `nil` without `--mqtt` (then no other MQTT option may be given).
    static func settings(_ args: ParsedArguments, environment: (String) -> String? = Paths.environment)
        throws(CLIError) -> MQTTSettings?
    {
        guard let text = args.value("mqtt") else {
            for o in specs.dropFirst() where args.has(o.name) { throw .usage("--\(o.name) needs --mqtt") }
            return nil
        }
        let broker = try MQTTBrokerURL.parse(text)
        let caFile = args.value("mqtt-ca")
        if caFile != nil, !broker.tls { throw .usage("--mqtt-ca needs an mqtts:// URL") }
        if let caFile, access(caFile, R_OK) != 0 {
            throw CLIError("--mqtt-ca: cannot read \(caFile): \(String(cString: strerror(errno)))", code: ExitCode.noInput)
        }
        var password = broker.password
        if let v = environment(passwordVariable), !v.isEmpty { password = v }
        if let file = args.value("mqtt-password-file") { password = try readPassword(file) }
        if password != nil, broker.username == nil {
            throw .usage("a broker password needs a user name in the URL (mqtt://user@host)")
        }
        let prefix = args.value("mqtt-prefix") ?? "blesensor"
        guard !prefix.isEmpty, !prefix.hasPrefix("/"), !prefix.hasSuffix("/"), !prefix.contains("//"),
            isTopicText(prefix, allowingSlash: true)
        else {
            throw .usage("--mqtt-prefix wants topic levels without +, # or empty levels, got '\(prefix)'")
        }
        let receiver = args.value("receiver") ?? hostName()
        guard !receiver.isEmpty, receiver.utf8.count <= 64, isTopicText(receiver, allowingSlash: false) else {
            throw .usage("--receiver wants a name of 1 to 64 characters without /, +, #, got '\(receiver)'")
        }
        let discovery: Bool
        switch args.value("ha-discovery") ?? "on" {
        case "on": discovery = true
        case "off": discovery = false
        case let other: throw .usage("--ha-discovery wants on or off, got '\(other)'")
        }
        let protocolVersion: MQTTClientConfiguration.ProtocolVersion
        switch args.value("mqtt-protocol") ?? "3.1.1" {
        case "3.1.1": protocolVersion = .v311
        case "5": protocolVersion = .v5
        case let other: throw .usage("--mqtt-protocol wants 3.1.1 or 5, got '\(other)'")
        }
        return MQTTSettings(
            broker: broker, caFile: caFile, password: password, prefix: prefix, receiver: receiver,
            discovery: discovery, protocolVersion: protocolVersion)
    }

    /// Text that may stand in an MQTT topic name: no wildcards, no control characters.
    static func isTopicText(_ s: String, allowingSlash: Bool) -> Bool {
        s.unicodeScalars.allSatisfy { c in
            c != "+" && c != "#" && (allowingSlash || c != "/") && c.value >= 0x20 && c.value != 0x7F
        }
    }

    /// The first line of `path`, which holds a password (never printed).
    static func readPassword(_ path: String) throws(CLIError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw CLIError(
                "--mqtt-password-file: cannot open \(path): \(String(cString: strerror(errno)))", code: ExitCode.noInput)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        // A password file is a line; anything beyond 64 KiB is not one.
        while bytes.count <= 65536 {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else {
                throw CLIError(
                    "--mqtt-password-file: cannot read \(path): \(String(cString: strerror(errno)))", code: ExitCode.ioError)
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        let line = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        let text = String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...], as: UTF8.self)
        guard !text.isEmpty else { throw CLIError("--mqtt-password-file: \(path) is empty", code: ExitCode.dataError) }
        return text
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "blesensor" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // The short name: a receiver is one topic level, and domain dots read badly in Home Assistant.
        let short = name.split(separator: ".").first.map(String.init) ?? ""
        return short.isEmpty ? "blesensor" : short
    }

    /// The client's configuration: the broker, TLS, the will (`offline`, retained, on the status
    /// topic) and the birth (`online`), and Home Assistant's status topic when discovery is on.
    static func clientConfiguration(_ s: MQTTSettings) -> MQTTClientConfiguration {
        var c = MQTTClientConfiguration(
            host: s.broker.host, port: s.broker.port, clientID: "blesensor-log-\(s.receiver)")
        c.username = s.broker.username
        c.password = s.password
        c.protocolVersion = s.protocolVersion
        if s.broker.tls { c.tls = .init(caFile: s.caFile) }
        c.will = MQTTMessage(topic: s.statusTopic, text: "offline", qos: 1, retain: true)
        c.birth = MQTTMessage(topic: s.statusTopic, text: "online", qos: 1, retain: true)
        if s.discovery { c.subscriptions = [HomeAssistant.statusTopic] }
        return c
    }
}
