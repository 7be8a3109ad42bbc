import Foundation
import Testing

@testable import AdvScanner

/// rfkill: switches read from a folder laid out like /sys/class/rfkill, and unblocking by the
/// event written to /dev/rfkill (here a plain file, to see the bytes).
@Suite struct RfkillTests {
    /// rfkill0: hci0 soft-blocked; rfkill1: a Wi-Fi switch; rfkill2: a laptop's platform switch,
    /// hard-blocked; rfkill10: hci1, free.
    static func sysfs() throws -> String {
        let root = NSTemporaryDirectory() + "rfkill-" + UUID().uuidString
        let layout: [(String, [String: String])] = [
            ("rfkill0", ["type": "bluetooth", "name": "hci0", "soft": "1", "hard": "0"]),
            ("rfkill1", ["type": "wlan", "name": "phy0", "soft": "1", "hard": "0"]),
            ("rfkill2", ["type": "bluetooth", "name": "tpacpi_bluetooth_sw", "soft": "0", "hard": "1"]),
            ("rfkill10", ["type": "bluetooth", "name": "hci1", "soft": "0", "hard": "0"]),
        ]
        for (dir, files) in layout {
            try FileManager.default.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
            for (name, text) in files { try (text + "\n").write(toFile: root + "/" + dir + "/" + name, atomically: true, encoding: .utf8) }
        }
        try "not a switch".write(toFile: root + "/uevent", atomically: true, encoding: .utf8)
        return root
    }

    @Test func bluetoothSwitchesAreReadByIndex() throws {
        let root = try Self.sysfs()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let s = RfkillSysfs(root: root)
        #expect(s.bluetoothSwitches() == [
            RfkillSwitch(index: 0, name: "hci0", softBlocked: true, hardBlocked: false),
            RfkillSwitch(index: 2, name: "tpacpi_bluetooth_sw", softBlocked: false, hardBlocked: true),
            RfkillSwitch(index: 10, name: "hci1", softBlocked: false, hardBlocked: false),
        ])
        #expect(s.switchFor(adapter: "hci1")?.index == 10)
        #expect(s.switchFor(adapter: "hci2") == nil)
        #expect(RfkillSysfs(root: root + "/missing").bluetoothSwitches().isEmpty)
    }

    @Test func aSoftBlockIsReportedAndLiftedOnlyWhenAsked() throws {
        let root = try Self.sysfs()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let device = root + "/dev-rfkill"
        #expect(FileManager.default.createFile(atPath: device, contents: nil))
        let s = RfkillSysfs(root: root)
        let hci0 = RfkillSwitch(index: 0, name: "hci0", softBlocked: true, hardBlocked: false)

        let reported = s.prepare(adapter: "hci0", unblock: false, device: device)
        #expect(reported == .softBlocked(hci0))
        #expect(reported.logLine?.0 == .warning && reported.logLine?.1.contains("--unblock") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: device)).isEmpty, "nothing written without --unblock")

        let lifted = s.prepare(adapter: "hci0", unblock: true, device: device)
        #expect(lifted == .unblocked(hci0))
        #expect(lifted.logLine?.0 == .info)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: device))) == [0, 0, 0, 0, 2, 2, 0, 0])

        guard case .unblockFailed(let sw, .system(let call, let e, _)) = s.prepare(adapter: "hci0", unblock: true, device: root + "/no-such-device")
        else { Issue.record("an unwritable device did not fail"); return }
        #expect(sw == hci0 && call == "open" && e == ENOENT)

        #expect(s.prepare(adapter: "hci1", unblock: true, device: device) == .notBlocked)
        #expect(s.prepare(adapter: "hci7", unblock: true, device: device) == .noSwitch)
        #expect(s.prepare(adapter: "hci7", unblock: true, device: device).logLine == nil)
    }

    @Test func aHardBlockIsReportedAndNeverWritten() throws {
        let root = try Self.sysfs()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "1\n".write(toFile: root + "/rfkill10/hard", atomically: true, encoding: .utf8)
        let device = root + "/dev-rfkill"
        #expect(FileManager.default.createFile(atPath: device, contents: nil))
        let outcome = RfkillSysfs(root: root).prepare(adapter: "hci1", unblock: true, device: device)
        #expect(outcome == .hardBlocked(RfkillSwitch(index: 10, name: "hci1", softBlocked: false, hardBlocked: true)))
        #expect(outcome.logLine?.1.contains("hard-blocked") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: device)).isEmpty)
    }

    /// struct rfkill_event: idx (u32, host order), type 2 = Bluetooth, op 2 = change, soft 0, hard 0.
    @Test func theUnblockEventIsTheKernelsLayout() {
        #expect(RfkillDevice.unblockEvent(index: 0x0102_0304) == [0x04, 0x03, 0x02, 0x01, 2, 2, 0, 0])
    }
}
