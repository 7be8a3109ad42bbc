import Foundation
import SensorDecode
import Testing

@testable import blesensor_log

@Suite struct ActionRunnerTests {
    static let address = BDAddress("C0:98:E5:00:00:01")!

    func rule(_ argv: [String], cooldown: Double = 0, timeout: Double = 10) -> ActionRule {
        ActionRule(sensor: nil, event: nil, value: nil, requireEncrypted: false, argv: argv, cooldownSeconds: cooldown,
                   timeoutSeconds: timeout, line: 1)
    }

    func event(_ value: String, at seconds: Double = 0) -> EventContext {
        EventContext(address: Self.address, alias: nil, model: "GATT", event: DeviceEvent(.notify, value),
                     timeMicros: 1_767_225_600_000_000 + Int64(seconds * 1e6), rssi: nil)
    }

    /// At most `maxRunning` at once: an event beyond is dropped, never queued.
    @Test func eventsBeyondTheBoundAreDropped() {
        let runner = ActionRunner(rules: [rule(["/bin/sleep", "5"], timeout: 0.5)], maxRunning: 2, whenFull: .drop,
                                  log: EventLog(verbose: false))
        for i in 0..<5 { runner.handle(event("0\(i)")) }
        #expect(runner.started == 2)
        #expect(runner.dropped == 3)
        #expect(runner.running == 2)
        let began = Date()
        runner.finish()
        // Both ended by their timeout (SIGTERM), well before sleep's 5 s.
        #expect(runner.running == 0)
        #expect(Date().timeIntervalSince(began) < 4)
    }

    /// A command that ignores SIGTERM is killed after the grace period.
    @Test func aCommandIgnoringSIGTERMIsKilled() {
        let runner = ActionRunner(rules: [rule(["/bin/sh", "-c", "trap '' TERM; sleep 30"], timeout: 0.3)], whenFull: .drop,
                                  log: EventLog(verbose: false))
        runner.handle(event("00"))
        let began = Date()
        runner.finish()
        let took = Date().timeIntervalSince(began)
        #expect(took >= ActionRunner.killGraceSeconds && took < ActionRunner.killGraceSeconds + 5, "took \(took) s")
    }

    @Test func theCooldownCountsOnTheEventsOwnClock() throws {
        let dir = NSTemporaryDirectory() + "runner-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/out"
        let runner = ActionRunner(
            rules: [rule(["/bin/sh", "-c", "echo \"$BLE_VALUE\" >> \"$0\"", out], cooldown: 2)], maxRunning: 1, whenFull: .wait,
            log: EventLog(verbose: false))
        for (value, at) in [("a", 0.0), ("b", 1.0), ("c", 2.5), ("d", 3.0), ("e", 4.6)] { runner.handle(event(value, at: at)) }
        runner.finish()
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "a\nc\ne\n")
    }

    @Test func theEnvironmentIsPrintableASCII() {
        let e = EventContext(address: Self.address, alias: "kü\u{1B}[31m\nche", model: "M\0X", event: DeviceEvent(.button, "press"),
                             timeMicros: 0, rssi: -70)
        #expect(ActionRunner.environment(e) == [
            "BLE_ADDRESS=C0:98:E5:00:00:01", "BLE_ALIAS=k???[31m?che", "BLE_MODEL=M?X", "BLE_EVENT=button", "BLE_VALUE=press",
            "BLE_TIME=1970-01-01T00:00:00Z", "BLE_RSSI=-70",
        ])
    }
}
