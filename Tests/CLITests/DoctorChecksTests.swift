import AdvScanner
import Glibc
import SensorDecode
import SensorStore
import Testing

@testable import blesensor_log

/// `doctor`'s verdicts from injected facts: each check's status follows what the machine would
/// show, and the exit status follows the worst one.
@Suite struct DoctorChecksTests {
    /// A healthy Pi: Bluetooth up, unblocked, capabilities given, clock synchronised, a sound
    /// database with one fresh sensor, no throttling.
    static func healthy() -> DoctorFacts {
        var f = DoctorFacts()
        f.transport = .hci(nil)
        f.adapters = [.init(name: "hci0", status: .up)]
        f.rfkill = [.init(name: "rfkill0 (hci0)", softBlocked: false, hardBlocked: false)]
        f.effectiveUID = 999
        f.effectiveCapabilities = DoctorChecks.capNetRaw | DoctorChecks.capNetAdmin
        f.nowMicros = 1_767_225_600 * 1_000_000
        f.kernelClockUnsynchronised = false
        f.database = .init(
            path: "/var/lib/blesensor-log/readings.db", exists: true, sizeBytes: 5 << 20, walBytes: 1 << 20,
            freeBytes: 10 << 30, quickCheck: ["ok"], sensors: .success([sensor(lastSeen: f.nowMicros - 60_000_000)]))
        f.throttled = 0
        return f
    }

    static func sensor(_ address: String = "A4:C1:38:11:22:33", lastSeen: Int64) -> DoctorFacts.Sensor {
        DoctorFacts.Sensor(address: BDAddress(address)!, model: "LYWSD03MMC", alias: nil, lastSeenMicros: lastSeen)
    }

    static func status(_ checks: [DoctorCheck], _ name: String) -> [DoctorCheck.Status] {
        checks.filter { $0.name == name }.map(\.status)
    }

    @Test func aHealthyMachineHasNoWarningOrFailure() {
        let checks = DoctorChecks.evaluate(Self.healthy())
        #expect(checks.allSatisfy { $0.status == .ok }, "\(checks.filter { $0.status != .ok })")
        for name in ["kernel", "adapter", "rfkill", "capabilities", "bluetoothd", "clock", "database", "disk", "wal",
                     "sensor", "power"] {
            #expect(Self.status(checks, name) == [.ok], "\(name)")
        }
    }

    @Test func noBluetoothInTheKernelFailsKernelAndAdapter() {
        var f = Self.healthy()
        f.bluetoothSocketErrno = EAFNOSUPPORT
        f.adapters = nil
        let checks = DoctorChecks.evaluate(f)
        #expect(Self.status(checks, "kernel") == [.fail])
        #expect(Self.status(checks, "adapter") == [.fail])
        #expect(checks.first { $0.name == "kernel" }!.detail.contains("modprobe"))
    }

    @Test func aMissingNamedAdapterFailsAndListsThePresentOnes() {
        var f = Self.healthy()
        f.transport = .hci(0)
        f.adapters = [.init(name: "hci1", status: .up)]
        let c = DoctorChecks.evaluate(f).filter { $0.name == "adapter" }
        #expect(c.map(\.status) == [.fail])
        #expect(c[0].detail.contains("hci0 is not present") && c[0].detail.contains("hci1"))
    }

    @Test func aDownAdapterWarns() {
        var f = Self.healthy()
        f.adapters = [.init(name: "hci0", status: .down)]
        #expect(Self.status(DoctorChecks.evaluate(f), "adapter") == [.warn])
    }

    @Test func softAndHardBlocksFailWithWhatToDo() {
        var f = Self.healthy()
        f.rfkill = [.init(name: "rfkill0 (hci0)", softBlocked: true, hardBlocked: false)]
        var c = DoctorChecks.evaluate(f).filter { $0.name == "rfkill" }
        #expect(c.map(\.status) == [.fail] && c[0].detail.contains("rfkill unblock bluetooth"))
        f.rfkill[0].hardBlocked = true
        c = DoctorChecks.evaluate(f).filter { $0.name == "rfkill" }
        #expect(c.map(\.status) == [.fail] && c[0].detail.contains("hard-blocked"))
    }

    @Test func capabilitiesNeedNetRawAndWarnWithoutNetAdmin() {
        var f = Self.healthy()
        f.effectiveCapabilities = 0
        #expect(DoctorChecks.capabilities(f).status == .fail)
        f.effectiveCapabilities = DoctorChecks.capNetRaw
        #expect(DoctorChecks.capabilities(f).status == .warn)
        // Root whose capabilities a container dropped cannot open the socket either.
        f.effectiveUID = 0
        f.effectiveCapabilities = 0
        #expect(DoctorChecks.capabilities(f).status == .fail)
        f.effectiveCapabilities = nil
        #expect(DoctorChecks.capabilities(f).status == .ok)
    }

    @Test func aRunningBluetoothdIsFineButSaid() {
        var f = Self.healthy()
        f.bluetoothdPIDs = [412]
        let c = DoctorChecks.evaluate(f).filter { $0.name == "bluetoothd" }
        #expect(c.map(\.status) == [.ok] && c[0].detail.contains("running (pid 412)"))
    }

    @Test func anH4StreamSkipsTheKernelChecks() {
        var f = Self.healthy()
        f.transport = .h4(.tcp(host: "127.0.0.1", port: 1234))
        f.bluetoothSocketErrno = EAFNOSUPPORT
        let checks = DoctorChecks.evaluate(f)
        #expect(Self.status(checks, "kernel").isEmpty && Self.status(checks, "adapter").isEmpty)
        #expect(Self.status(checks, "transport") == [.ok])
        f.transport = .h4(.serial(path: "/dev/ttyACM0", baud: 1_000_000, rtscts: false))
        f.serialAccessErrno = EACCES
        #expect(Self.status(DoctorChecks.evaluate(f), "transport") == [.fail])
    }

    @Test func theClockWarnsUnlessSynchronisedAndFailsBeforeItWasEverSet() {
        var f = Self.healthy()
        f.kernelClockUnsynchronised = true
        #expect(DoctorChecks.clock(f).status == .warn)
        f.timesyncdSynchronised = true
        #expect(DoctorChecks.clock(f).status == .ok)
        f.nowMicros = 3_600_000_000  // 1970-01-01T01:00Z: a Pi after a power cut, before NTP
        #expect(DoctorChecks.clock(f).status == .fail)
    }

    @Test func aDamagedDatabaseFailsWithItsFirstProblem() {
        var f = Self.healthy()
        f.database.quickCheck = ["*** in database main ***\nPage 4: btreeInitPage() returns error code 11\nPage 3: x"]
        f.database.sensors = nil
        let c = DoctorChecks.evaluate(f).filter { $0.name == "database" }
        #expect(c.map(\.status) == [.fail])
        #expect(c[0].detail.contains("damaged (quick_check: Page 4: btreeInitPage() returns error code 11 (+1 more))"))
        #expect(!DoctorChecks.text(c).dropLast().contains("\n"))
    }

    @Test func aForeignOrUnreadableDatabaseFails() {
        var f = Self.healthy()
        f.database.sensors = .failure(.foreignDatabase(path: "x.db", reason: "application_id 0x1"))
        #expect(Self.status(DoctorChecks.evaluate(f), "database") == [.fail])
        f.database.sensors = nil
        f.database.openError = "file is not a database"
        #expect(Self.status(DoctorChecks.evaluate(f), "database") == [.fail])
    }

    @Test func aMissingDatabaseOnlyWarns() {
        var f = Self.healthy()
        f.database = .init(path: "/x/readings.db", exists: false, freeBytes: 10 << 30)
        let checks = DoctorChecks.evaluate(f)
        #expect(Self.status(checks, "database") == [.warn])
        #expect(Self.status(checks, "wal").isEmpty && Self.status(checks, "sensor").isEmpty)
    }

    @Test func freeSpaceAndWALHaveThresholds() {
        var f = Self.healthy()
        f.database.freeBytes = DoctorChecks.freeBytesFail - 1
        #expect(Self.status(DoctorChecks.evaluate(f), "disk") == [.fail])
        f.database.freeBytes = DoctorChecks.freeBytesWarn - 1
        #expect(Self.status(DoctorChecks.evaluate(f), "disk") == [.warn])
        f.database.freeBytes = DoctorChecks.freeBytesWarn
        #expect(Self.status(DoctorChecks.evaluate(f), "disk") == [.ok])
        f.database.walBytes = DoctorChecks.walBytesWarn + 1
        #expect(Self.status(DoctorChecks.evaluate(f), "wal") == [.warn])
    }

    @Test func staleSensorsWarnOneLineEach() {
        var f = Self.healthy()
        let now = f.nowMicros
        f.database.sensors = .success([
            Self.sensor("A4:C1:38:00:00:01", lastSeen: now - 60_000_000),
            Self.sensor("A4:C1:38:00:00:02", lastSeen: now - 2 * 3_600_000_000),
        ])
        let checks = DoctorChecks.evaluate(f)
        #expect(Self.status(checks, "sensor") == [.ok, .warn])
        #expect(checks.filter { $0.name == "sensor" }[1].detail.contains("A4:C1:38:00:00:02"))
        #expect(Self.status(checks, "sensors").isEmpty, "the newest reading is fresh")
        f.staleMicros = 30_000_000
        #expect(Self.status(DoctorChecks.evaluate(f), "sensors") == [.warn], "every reading is stale")
    }

    @Test func throttlingBits() {
        var f = Self.healthy()
        f.throttled = nil
        #expect(DoctorChecks.power(f).status == .ok)
        for (bits, status) in [(0x0, DoctorCheck.Status.ok), (0x1, .fail), (0x4, .warn), (0x5_0000, .warn),
                               (0x8_0000, .warn), (0x5_0005, .fail)] as [(UInt32, DoctorCheck.Status)] {
            f.throttled = bits
            #expect(DoctorChecks.power(f).status == status, "0x\(String(bits, radix: 16))")
        }
    }

    @Test func jsonSaysWhetherAnythingFailed() {
        let ok = DoctorChecks.json([.init(name: "a\"b", status: .warn, detail: "x\ny")])
        #expect(ok == "{\"ok\":true,\"checks\":[{\"check\":\"a\\\"b\",\"status\":\"warn\",\"detail\":\"x\\ny\"}]}\n")
        #expect(DoctorChecks.json([.init(name: "a", status: .fail, detail: "")]).hasPrefix("{\"ok\":false,"))
    }
}

/// `doctor` on what issue 28 item 5 added: adapters named by address, each adapter's rfkill
/// state, and the config file `run` reads.
@Suite struct DoctorAdapterAndConfigChecksTests {
    static let dongle = BDAddress("00:1A:7D:DA:71:13")!

    @Test func anAdapterNamedByItsAddressIsFoundUnderItsNumber() {
        var f = DoctorChecksTests.healthy()
        f.transport = .adapter(Self.dongle)
        f.adapters = [.init(name: "hci0", status: .up, address: BDAddress("B8:27:EB:00:00:01")),
                      .init(name: "hci1", status: .down, address: Self.dongle)]
        let found = DoctorChecks.evaluate(f).filter { $0.name == "adapter" }
        #expect(found.map(\.status) == [.warn], "only hci1, which is down: \(found)")
        #expect(found.first?.detail.hasPrefix("hci1 down 00:1A:7D:DA:71:13 (used by run)") == true, "\(found)")

        f.adapters = [.init(name: "hci0", status: .up, address: BDAddress("B8:27:EB:00:00:01"))]
        let missing = DoctorChecks.evaluate(f).filter { $0.name == "adapter" }
        #expect(missing.map(\.status) == [.fail])
        #expect(missing.first?.detail.contains("no adapter has address 00:1A:7D:DA:71:13; present: hci0 B8:27:EB:00:00:01") == true,
                "\(missing)")
    }

    @Test func eachRfkillSwitchHasItsLine() {
        var f = DoctorChecksTests.healthy()
        f.adapters = [.init(name: "hci0", status: .up), .init(name: "hci1", status: .down)]
        f.transport = .hci(1)
        f.rfkill = [.init(name: "rfkill0 (hci0)", softBlocked: false, hardBlocked: false, adapter: "hci0"),
                    .init(name: "rfkill3 (hci1)", softBlocked: true, hardBlocked: false, adapter: "hci1")]
        let c = DoctorChecks.evaluate(f).filter { $0.name == "rfkill" }
        #expect(c.map(\.status) == [.ok, .fail])
        #expect(c[0].detail == "rfkill0 (hci0) not blocked")
        #expect(c[1].detail.hasPrefix("rfkill3 (hci1) (used by run) is soft-blocked") && c[1].detail.contains("--unblock"), "\(c[1])")
    }

    @Test func theConfigFileIsNamedAndABadOneFails() {
        #expect(DoctorChecks.config(.read(path: "/etc/blesensor-log/blesensor-log.conf", settings: 3))
            == .init(name: "config", status: .ok, detail: "/etc/blesensor-log/blesensor-log.conf: 3 settings for run"))
        let none = DoctorChecks.config(.none(searched: ["/home/p/.config/blesensor-log/blesensor-log.conf", ConfigFile.systemPath]))
        #expect(none.status == .ok && none.detail.contains("no config file") && none.detail.contains(ConfigFile.systemPath))
        let bad = DoctorChecks.config(.invalid("/etc/b.conf:4: unknown setting 'intervl'"))
        #expect(bad.status == .fail && bad.detail.hasPrefix("/etc/b.conf:4: unknown setting 'intervl'"))
        var f = DoctorChecksTests.healthy()
        f.config = .invalid("/etc/b.conf:4: unknown setting 'intervl'")
        #expect(DoctorChecks.evaluate(f).contains { $0.name == "config" && $0.status == .fail })
    }
}
