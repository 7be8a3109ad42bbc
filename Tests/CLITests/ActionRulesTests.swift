import AdvScanner
import Foundation
import SensorDecode
import Testing

@testable import blesensor_log

@Suite struct ActionRulesTests {
    static let remote = BDAddress("C0:98:E5:00:00:01")!

    func parse(_ text: String) throws(ActionFile.RuleError) -> ActionFile { try ActionFile.parse(Array(text.utf8)) }

    func event(_ kind: DeviceEvent.Kind, _ value: String, alias: String? = nil, encrypted: Bool = false) -> EventContext {
        EventContext(address: Self.remote, alias: alias, model: "m", event: DeviceEvent(kind, value, encrypted: encrypted),
                     timeMicros: 0, rssi: nil)
    }

    /// The issue's example file, as written.
    @Test func theIssuesExampleParses() throws {
        let f = try parse("""
            {"remotes": [{"address": "C0:98:E5:00:00:01", "service": "2220", "characteristic": "2221"}],
             "rules": [
               {"match": {"sensor": "C0:98:E5:00:00:01", "event": "notify", "value": "00"}, "run": ["/bin/true", "next"]},
               {"match": {"sensor": "kitchen-button", "event": "button", "value": "double_press"}, "run": ["/bin/true"], "cooldown": "1s", "timeout": 2.5}]}
            """)
        #expect(f.remotes == [GATTRemoteSpec(address: Self.remote, service: .uuid16(0x2220), characteristic: .uuid16(0x2221))])
        #expect(f.rules.count == 2)
        #expect(f.rules[0].argv == ["/bin/true", "next"] && f.rules[0].cooldownSeconds == 0 && f.rules[0].timeoutSeconds == 10)
        #expect(f.rules[1].cooldownSeconds == 1 && f.rules[1].timeoutSeconds == 2.5 && f.rules[1].line == 4)
        #expect(f.rules[0].matches(event(.notify, "00")))
        #expect(!f.rules[0].matches(event(.notify, "01")))
        #expect(!f.rules[0].matches(event(.button, "00")))
        #expect(f.rules[1].matches(event(.button, "double_press", alias: "kitchen-button")))
        #expect(!f.rules[1].matches(event(.button, "double_press", alias: "hall")))
        #expect(!f.rules[1].matches(event(.button, "double_press")))
    }

    @Test func anOmittedKeyMatchesAnythingAndEncryptedIsRequiredWhenSet() throws {
        let f = try parse("{\"rules\": [{\"match\": {}, \"run\": [\"/bin/true\"]}, {\"match\": {\"encrypted\": true}, \"run\": [\"/bin/true\"]}]}")
        #expect(f.rules[0].matches(event(.dimmer, "rotate_left:1")))
        #expect(!f.rules[1].matches(event(.button, "press")))
        #expect(f.rules[1].matches(event(.button, "press", encrypted: true)))
    }

    @Test(arguments: [
        ("[]", "line 1: wants an object, got an array"),
        ("{\"rules\": {}}", "line 1: rules: wants an array, got an object"),
        ("{}", "line 1: rules: missing"),
        ("{\"rules\": [{\"run\": [\"/bin/true\"]}]}", "line 1: rules[0].match: missing"),
        ("{\"rules\": [{\"match\": {\"encrypted\": \"yes\"}, \"run\": [\"/bin/true\"]}]}", "rules[0].match.encrypted: wants true or false, got a string"),
        ("{\"rules\": [{\"match\": {\"sensor\": 5}, \"run\": [\"/bin/true\"]}]}", "rules[0].match.sensor: wants a string, got a number"),
        ("{\"rules\": [{\"match\": {}, \"run\": [\"/bin/true\", \"a\\u0000b\"]}]}", "rules[0].run[1]: holds a NUL character"),
        ("{\"rules\": [{\"match\": {}, \"run\": [\"/bin/true\"], \"cooldown\": \"-1s\"}]}", "rules[0].cooldown: wants a duration from 0"),
        ("{\"rules\": [{\"match\": {}, \"run\": [\"/bin/true\"], \"timeout\": \"2d\"}]}", "rules[0].timeout: wants a duration over 0 up to 1d"),
        ("{\"remotes\": [{\"address\": \"C0:98:E5:00:00:01\", \"service\": \"22\", \"characteristic\": \"2221\"}], \"rules\": []}", "remotes[0].service: not a UUID"),
        ("{\"remotes\": [{\"address\": \"C0:98:E5:00:00:01\", \"service\": \"2220\"}], \"rules\": []}", "remotes[0].characteristic: missing"),
    ])
    func errorsNameTheField(_ text: String, _ message: String) {
        #expect {
            _ = try parse(text)
        } throws: { error in
            (error as? ActionFile.RuleError).map { "\($0)".contains(message) } ?? false
        }
    }
}

extension ActionRulesTests {
    /// The example shipped in packaging/ parses (its programs need not exist here: checked apart).
    @Test func thePackagedExampleIsAValidFile() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("packaging/actions-rfduino-remote.json").path
        var text = try String(contentsOfFile: path, encoding: .utf8)
        for program in ["/usr/bin/playerctl", "/usr/local/bin/lights"] { text = text.replacingOccurrences(of: program, with: "/bin/true") }
        let f = try parse(text)
        #expect(f.remotes.map(\.address) == [Self.remote])
        #expect(f.rules.map(\.value) == ["00", "01", "double_press"])
        #expect(f.rules[2].requireEncrypted)
    }
}
