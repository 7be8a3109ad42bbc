import Glibc
import SensorMQTT
import Testing

@testable import blesensor_log

/// `--mqtt URL` and its companions (MQTTOptions.swift): parsing only, no broker.
@Suite struct MQTTOptionsTests {
    func settings(_ args: [String], environment: [String: String] = [:]) throws(CLIError) -> MQTTSettings? {
        let spec = CommandSpec(name: "t", abstract: "", options: MQTTOptions.specs)
        return try MQTTOptions.settings(ParsedArguments(args, spec: spec), environment: { environment[$0] })
    }

    @Test func urlsWithUserPasswordPortAndIPv6() throws {
        #expect(try MQTTBrokerURL.parse("mqtt://broker.lan")
            == MQTTBrokerURL(tls: false, host: "broker.lan", port: 1883, username: nil, password: nil))
        #expect(try MQTTBrokerURL.parse("mqtts://broker.lan/")
            == MQTTBrokerURL(tls: true, host: "broker.lan", port: 8883, username: nil, password: nil))
        #expect(try MQTTBrokerURL.parse("mqtt://pi:s%40cret:x@10.0.0.2:1884")
            == MQTTBrokerURL(tls: false, host: "10.0.0.2", port: 1884, username: "pi", password: "s@cret:x"))
        #expect(try MQTTBrokerURL.parse("mqtt://[::1]:1999")
            == MQTTBrokerURL(tls: false, host: "::1", port: 1999, username: nil, password: nil))
        #expect(try MQTTBrokerURL.parse("mqtt://u:pw@[::1]:1999").redacted == "mqtt://u@[::1]:1999")
    }

    @Test(arguments: [
        "tcp://host", "mqtt://", "mqtt://host:0", "mqtt://host:70000", "mqtt://host:-1", "mqtt://host/x", "mqtt://host?q",
        "mqtt://[::1", "mqtt://ho st", "mqtt://u:%zz@host", "mqtt://@host",
    ])
    func badURLsAreUsageErrorsThatNeverShowThePassword(url: String) {
        do {
            _ = try MQTTBrokerURL.parse(url)
            Issue.record("accepted \(url)")
        } catch {
            #expect(error.code == ExitCode.usage)
            #expect(!error.message.contains("%zz"))
        }
    }

    @Test func thePasswordComesFromTheFileThenTheEnvironmentThenTheURL() throws {
        let path = "/tmp/mqtt-options-test-\(getpid())"
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = "from-file\nsecond line\n".withCString { write(fd, $0, strlen($0)) }
        close(fd)
        #expect(try settings(["--mqtt", "mqtt://u:from-url@h"])?.password == "from-url")
        #expect(try settings(["--mqtt", "mqtt://u:from-url@h"], environment: ["BLESENSOR_MQTT_PASSWORD": "from-env"])?.password
            == "from-env")
        #expect(try settings(["--mqtt", "mqtt://u@h", "--mqtt-password-file", path], environment: ["BLESENSOR_MQTT_PASSWORD": "e"])?
            .password == "from-file")
        #expect(throws: CLIError.self) { try settings(["--mqtt", "mqtt://h", "--mqtt-password-file", path]) }
        #expect(throws: CLIError.self) { try settings(["--mqtt", "mqtt://u@h", "--mqtt-password-file", "/nonexistent"]) }
    }

    @Test func defaultsAndTheirLimits() throws {
        let s = try #require(try settings(["--mqtt", "mqtt://h"]))
        #expect(s.prefix == "blesensor" && s.discovery && s.statusTopic == "blesensor/\(s.receiver)/status")
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, 255)
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: ".").first.map(String.init)
        #expect(s.receiver == host)
        #expect(try settings([]) == nil)
        for bad in [["--receiver", "a/b"], ["--receiver", "#"], ["--mqtt-prefix", "a/+/b"], ["--mqtt-prefix", "/a"],
            ["--ha-discovery", "yes"], ["--mqtt-ca", "/etc/hostname"]]
        {
            #expect(throws: CLIError.self, "\(bad)") { try settings(["--mqtt", "mqtt://h"] + bad) }
        }
        #expect(throws: CLIError.self, "--receiver without --mqtt") { try settings(["--receiver", "pi"]) }
        let c = MQTTOptions.clientConfiguration(try #require(try settings(["--mqtt", "mqtts://u:p@h", "--receiver", "pi"])))
        #expect(c.will == MQTTMessage(topic: "blesensor/pi/status", text: "offline", qos: 1, retain: true))
        #expect(c.birth?.payload == Array("online".utf8) && c.birth?.retain == true)
        #expect(c.tls == .init(caFile: nil) && c.port == 8883 && c.username == "u" && c.password == "p")
        #expect(c.subscriptions == ["homeassistant/status"])
    }
}
