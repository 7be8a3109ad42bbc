import AdvScanner
import Foundation
import SensorDecode
import Testing

/// Scan control sequencing against a scripted controller: which commands go out, in which order,
/// with which parameters, and which state each answer leads to.
@Suite struct ScanControlTests {
    let minew = BDAddress("A4:C1:38:BC:07:01")!

    func scanner(_ fake: ScanFakeController, _ config: ScanConfig = ScanConfig(), log: ScanLog = .silent) throws
        -> LiveScanner
    {
        try LiveScanner(transport: fake, config: config, log: log)
    }

    @Test func extendedScanningIsUsedWhenTheControllerListsIt() throws {
        let fake = ScanFakeController(listsExtended: true)
        let s = try scanner(fake)
        try s.start(now: 0)
        #expect(s.state == .scanning)
        #expect(s.commandSet == .extended)
        #expect(s.weEnabled)
        #expect(
            fake.sentOpcodes == [
                HCIOpcode.reset, HCIOpcode.readLocalSupportedCommands, HCIOpcode.setEventMask, HCIOpcode.leSetEventMask,
                HCIOpcode.leSetExtendedScanParameters, HCIOpcode.leSetExtendedScanEnable,
            ])
        // Passive on 1M, 100 ms / 100 ms = 160 slots; enable with duplicate filtering off, no duration.
        #expect(fake.sent[4].parameters == [0x00, 0x00, 0x01, 0x00, 0xA0, 0x00, 0xA0, 0x00])
        #expect(fake.sent[5].parameters == [0x01, 0x00, 0, 0, 0, 0])
    }

    @Test func eventMasksIncludeBothAdvertisingReportEvents() throws {
        let fake = ScanFakeController()
        try scanner(fake).start(now: 0)
        let page1 = fake.sent.first { $0.opcode == HCIOpcode.setEventMask }!.parameters
        let le = fake.sent.first { $0.opcode == HCIOpcode.leSetEventMask }!.parameters
        #expect(page1[7] & 0x20 != 0, "bit 61: LE Meta")
        #expect(le[0] & 0x02 != 0, "bit 1: LE Advertising Report")
        #expect(le[1] & 0x10 != 0, "bit 12: LE Extended Advertising Report")
    }

    @Test func legacyScanningIsUsedWhenExtendedIsNotListed() throws {
        let fake = ScanFakeController(listsExtended: false)
        var config = ScanConfig()
        config.intervalMs = 60
        config.windowMs = 30
        let s = try scanner(fake, config)
        try s.start(now: 0)
        #expect(s.commandSet == .legacy)
        let params = fake.sent.first { $0.opcode == HCIOpcode.leSetScanParameters }!
        // passive, interval 96 slots, window 48 slots, public own address, accept all
        #expect(params.parameters == [0x00, 0x60, 0x00, 0x30, 0x00, 0x00, 0x00])
        #expect(fake.sent.last == .leSetScanEnable(true, filterDuplicates: false))
        #expect(fake.sent.last!.parameters == [0x01, 0x00])
    }

    @Test func preferExtendedOffStartsWithLegacy() throws {
        let fake = ScanFakeController(listsExtended: true)
        var config = ScanConfig()
        config.preferExtended = false
        let s = try scanner(fake, config)
        try s.start(now: 0)
        #expect(s.commandSet == .legacy)
        #expect(!fake.sentOpcodes.contains(HCIOpcode.leSetExtendedScanParameters))
    }

    @Test func commandDisallowedOnLegacyFallsBackToExtended() throws {
        let fake = ScanFakeController(listsExtended: false)
        fake.statusFor[HCIOpcode.leSetScanParameters] = HCIStatus.commandDisallowed
        let s = try scanner(fake)
        try s.start(now: 0)
        #expect(s.commandSet == .extended)
        #expect(s.weEnabled)
        #expect(
            fake.sentOpcodes.suffix(3) == [
                HCIOpcode.leSetScanParameters, HCIOpcode.leSetExtendedScanParameters, HCIOpcode.leSetExtendedScanEnable,
            ])
    }

    @Test func commandDisallowedOnExtendedFallsBackToLegacy() throws {
        let fake = ScanFakeController(listsExtended: true)
        fake.statusFor[HCIOpcode.leSetExtendedScanEnable] = HCIStatus.commandDisallowed
        let s = try scanner(fake)
        try s.start(now: 0)
        #expect(s.commandSet == .legacy)
        #expect(fake.sentOpcodes.last == HCIOpcode.leSetScanEnable)
    }

    @Test func anotherProgramsScanIsListenedToAndNeverSwitchedOff() throws {
        let fake = ScanFakeController(listsExtended: false)
        fake.statusFor[HCIOpcode.leSetScanParameters] = HCIStatus.commandDisallowed
        fake.statusFor[HCIOpcode.leSetExtendedScanParameters] = HCIStatus.commandDisallowed
        let lines = ScanLogLines()
        let s = try scanner(fake, log: lines.log)
        try s.start(now: 0)
        #expect(s.state == .scanning)
        #expect(s.sharedScan)
        #expect(!s.weEnabled)
        #expect(lines.lines(atLeast: .info).contains { $0.contains("another program") })
        // Its reports still come through.
        let ads = s.handle(ScanFakeController.legacyReport(address: minew, data: [0x02, 0x01, 0x06]), now: 1)
        #expect(ads.map(\.address) == [minew])
        fake.clearSent()
        s.shutdown()
        #expect(fake.sent.isEmpty, "scanning owned by someone else must not be switched off")
        #expect(s.state == .closed)
    }

    @Test func cleanShutdownSwitchesOffOnlyWhatWeSwitchedOn() throws {
        let fake = ScanFakeController(listsExtended: true)
        let s = try scanner(fake)
        try s.start(now: 0)
        fake.clearSent()
        s.shutdown()
        #expect(fake.sent == [.leSetExtendedScanEnable(false)])
        #expect(!fake.isOpen)
        s.shutdown()  // idempotent
        #expect(fake.sent.count == 1)
    }

    @Test func unknownCommandOnBothSetsIsAFailureNotAScan() throws {
        let fake = ScanFakeController(listsExtended: false)
        fake.statusFor[HCIOpcode.leSetScanEnable] = HCIStatus.unknownCommand
        fake.statusFor[HCIOpcode.leSetExtendedScanParameters] = HCIStatus.unknownCommand
        let s = try scanner(fake)
        try s.start(now: 0)
        #expect(s.state == .reopening)
        #expect(!s.weEnabled)
    }

    @Test func withoutPermissionToSendCommandsItListensOnly() throws {
        let fake = ScanFakeController(ownsController: false)
        fake.sendError = .system(call: "write", errno: EPERM, detail: "fake0: sending HCI commands needs CAP_NET_RAW")
        let lines = ScanLogLines()
        let s = try scanner(fake, log: lines.log)
        try s.start(now: 0)
        #expect(s.state == .scanning)
        #expect(s.sharedScan)
        #expect(!s.weEnabled)
        s.tick(now: 60)
        s.tick(now: 120)
        #expect(lines.lines(atLeast: .warning).filter { $0.contains("CAP_NET_RAW") }.count == 1)
        #expect(s.state == .scanning)
    }

    @Test func windowLongerThanIntervalIsRejected() {
        var config = ScanConfig()
        config.intervalMs = 50
        config.windowMs = 100
        #expect(throws: ScanError.self) { try LiveScanner(transport: ScanFakeController(), config: config) }
        config.windowMs = 50
        config.intervalMs = 20000
        #expect(throws: ScanError.self) { try LiveScanner(transport: ScanFakeController(), config: config) }
    }

    @Test func unreachableEndpointAtStartIsUnavailable() throws {
        let fake = ScanFakeController()
        fake.reopenFailures = 1
        let s = try scanner(fake)
        #expect(throws: ScanError.unavailable("fake0: connection refused")) { try s.start(now: 0) }
    }
}

@Suite struct ScanControlRecoveryTests {
    let minew = BDAddress("A4:C1:38:BC:07:01")!

    @Test func reconnectBackoffDoublesFromOneToThirtySeconds() throws {
        let fake = ScanFakeController()
        let s = try LiveScanner(transport: fake)
        try s.start(now: 0)
        fake.reopenFailures = 100
        let opened = fake.reopenCount
        s.transportFailed("connection lost", now: 0)
        #expect(s.state == .reopening)
        #expect(!fake.isOpen)
        var attempts: [Double] = []
        var t = 0.0
        while t <= 200 {
            let before = fake.reopenCount
            s.tick(now: t)
            if fake.reopenCount > before { attempts.append(t) }
            t += 0.5
        }
        #expect(fake.reopenCount - opened == attempts.count)
        #expect(Array(attempts.prefix(8)) == [1, 3, 7, 15, 31, 61, 91, 121])
        #expect(s.state == .reopening)
        // The endpoint comes back: the next attempt succeeds and re-arms.
        fake.reopenFailures = 0
        fake.clearSent()
        s.tick(now: 1000)
        #expect(s.state == .scanning)
        #expect(s.weEnabled)
        #expect(fake.sentOpcodes.first == HCIOpcode.reset)
        #expect(s.stats.reconnects == 1)
    }

    @Test func aLostConnectionIsLoggedOnceNotPerAttempt() throws {
        let fake = ScanFakeController()
        let lines = ScanLogLines()
        let s = try LiveScanner(transport: fake, log: lines.log)
        try s.start(now: 0)
        let before = lines.lines(atLeast: .info).count
        fake.reopenFailures = 1000
        s.transportFailed("connection lost", now: 0)
        for t in stride(from: 0.0, through: 600, by: 1) { s.tick(now: t) }
        fake.reopenFailures = 0
        s.tick(now: 10_000)
        let info = Array(lines.lines(atLeast: .info).dropFirst(before))
        #expect(info.count == 2, "one line for the loss, one for the recovery: \(info)")
        #expect(info.last?.contains("scanning again") == true)
    }

    @Test func silenceRearmsTheScanAndLogsOnce() throws {
        let fake = ScanFakeController()
        let lines = ScanLogLines()
        var config = ScanConfig()
        config.silenceTimeout = 60
        let s = try LiveScanner(transport: fake, config: config, log: lines.log)
        try s.start(now: 0)
        fake.clearSent()
        s.tick(now: 59)
        #expect(fake.sent.isEmpty)
        s.tick(now: 60)
        // Ours, so switched off first (parameters cannot change while scanning), then on again
        // with the other command set first, in case extended was accepted but reports nothing.
        #expect(fake.sent.first == .leSetExtendedScanEnable(false))
        #expect(fake.sent.last == .leSetScanEnable(true))
        #expect(s.commandSet == .legacy)
        #expect(!fake.sentOpcodes.contains(HCIOpcode.reset), "no Reset for a silence re-arm")
        #expect(s.stats.rearms == 1)
        fake.clearSent()
        s.tick(now: 120)
        #expect(fake.sent.first == .leSetScanEnable(false))
        #expect(s.commandSet == .extended)
        s.tick(now: 180)
        #expect(s.stats.rearms == 3)
        let silenceLines = lines.lines(atLeast: .info).filter { $0.contains("no advertisement") }
        #expect(silenceLines.count == 1)
        // An advertisement resets the watchdog.
        _ = s.handle(ScanFakeController.legacyReport(address: minew, data: [0x02, 0x01, 0x06]), now: 200)
        s.tick(now: 259)
        #expect(s.stats.rearms == 3)
        #expect(lines.lines(atLeast: .info).contains { $0.contains("arriving again") })
    }

    @Test func hardwareErrorResetsAndRearms() throws {
        let fake = ScanFakeController()
        let s = try LiveScanner(transport: fake)
        try s.start(now: 0)
        fake.clearSent()
        let hwError = HCIPacket(type: .event, bytes: [0x10, 1, 0x42], incoming: true, timeMicros: 0)
        #expect(s.handle(hwError, now: 5).isEmpty)
        #expect(fake.sentOpcodes.first == HCIOpcode.reset)
        #expect(fake.sent.last == .leSetExtendedScanEnable(true))
        #expect(s.state == .scanning)
        #expect(s.stats.hardwareErrors == 1)
    }

    @Test func adapterDownAndUpRearmsOnTheRawSocketPath() throws {
        let fake = ScanFakeController(ownsController: false, listsExtended: false)
        let s = try LiveScanner(transport: fake)
        try s.start(now: 0)
        // The kernel owns the controller: no Reset and no event masks from us.
        #expect(!fake.sentOpcodes.contains(HCIOpcode.reset))
        #expect(!fake.sentOpcodes.contains(HCIOpcode.leSetEventMask))
        fake.status = .down
        _ = s.handle(ScanFakeController.deviceEvent(4), now: 10)  // DOWN
        #expect(s.state == .adapterDown)
        #expect(!fake.isOpen)
        #expect(!s.weEnabled)
        // Someone else's DOWN: we wait for their UP, no HCIDEVUP.
        s.tick(now: 100)
        #expect(fake.bringUpCount == 0)
        fake.status = .up
        fake.clearSent()
        _ = s.handle(ScanFakeController.deviceEvent(3), now: 20)  // UP
        #expect(s.state == .scanning)
        #expect(fake.isOpen)
        #expect(fake.sent.last == .leSetScanEnable(true))
    }

    @Test func aReRegisteredAdapterIsBroughtUp() throws {
        let fake = ScanFakeController(ownsController: false)
        let s = try LiveScanner(transport: fake)
        try s.start(now: 0)
        fake.status = .absent
        _ = s.handle(ScanFakeController.deviceEvent(2), now: 1)  // UNREG
        #expect(s.state == .adapterDown)
        fake.status = .down
        _ = s.handle(ScanFakeController.deviceEvent(1), now: 2)  // REG
        #expect(fake.bringUpCount == 1)
        #expect(s.state == .scanning)
    }

    @Test func adapterDownAtStartWithoutPermissionWaitsAndLogsOnce() throws {
        let fake = ScanFakeController(ownsController: false)
        fake.status = .down
        fake.bringUpError = .system(call: "ioctl(HCIDEVUP)", errno: EPERM, detail: "fake0")
        let lines = ScanLogLines()
        var config = ScanConfig()
        config.adapterPollInterval = 5
        let s = try LiveScanner(transport: fake, config: config, log: lines.log)
        try s.start(now: 0)
        #expect(s.state == .adapterDown)
        #expect(!lines.lines(atLeast: .info).contains { $0.contains("passive scanning") }, "not scanning yet")
        for t in stride(from: 0.0, through: 60, by: 1) { s.tick(now: t) }
        #expect(fake.bringUpCount > 1)
        #expect(lines.lines(atLeast: .warning).filter { $0.contains("CAP_NET_ADMIN") }.count == 1)
        // Someone with the right brings it up: the poll notices.
        fake.bringUpError = nil
        fake.status = .up
        s.tick(now: 100)
        #expect(s.state == .scanning)
        #expect(
            lines.lines(atLeast: .info).filter { $0.contains("passive scanning") }.count == 1, "the start-up line, once"
        )
        #expect(s.stats.reconnects == 0)
    }
}

@Suite struct CommandChannelTests {
    let addr = BDAddress("11:22:33:44:55:66")!

    @Test func reportsArrivingBeforeTheAnswerAreKeptInOrder() throws {
        let fake = ScanFakeController()
        try fake.reopen()
        let r1 = ScanFakeController.legacyReport(address: addr, data: [0x02, 0x01, 0x06], time: 1)
        let r2 = ScanFakeController.legacyReport(address: addr, data: [0x02, 0x01, 0x04], time: 2)
        fake.beforeNextAnswer = [r1, r2]
        let channel = CommandChannel(transport: fake)
        let result = try channel.execute(.leSetScanEnable(true), timeout: 1)
        #expect(result.ok)
        #expect(channel.pendingCount == 2)
        #expect(channel.nextBuffered() == r1)
        #expect(channel.nextBuffered() == r2)
        #expect(channel.nextBuffered() == nil)
    }

    @Test func anAnswerForAnotherOpcodeIsNotTakenAsOurs() throws {
        let fake = ScanFakeController()
        try fake.reopen()
        let stale = ScanFakeController.commandComplete(opcode: HCIOpcode.reset, returnParameters: [0])
        fake.beforeNextAnswer = [stale]
        let channel = CommandChannel(transport: fake)
        let result = try channel.execute(.readLocalSupportedCommands, timeout: 1)
        #expect(result.opcode == HCIOpcode.readLocalSupportedCommands)
        #expect(result.returnParameters.count == 64)
        #expect(channel.nextBuffered() == stale)
    }

    @Test func commandStatusWithAnErrorEndsTheWait() throws {
        let fake = ScanFakeController()
        try fake.reopen()
        fake.silentOpcodes = [HCIOpcode.leSetScanEnable]
        // 0F 04 | status 0x0C | num 1 | opcode 0x200C
        fake.beforeNextAnswer = [
            HCIPacket(type: .event, bytes: [0x0F, 4, 0x0C, 1, 0x0C, 0x20], incoming: true, timeMicros: 0)
        ]
        let result = try CommandChannel(transport: fake).execute(.leSetScanEnable(true), timeout: 1)
        #expect(result.status == HCIStatus.commandDisallowed)
    }

    @Test func noAnswerTimesOut() throws {
        let fake = ScanFakeController()
        try fake.reopen()
        fake.silentOpcodes = [HCIOpcode.reset]
        #expect(throws: CommandError.timeout(opcode: HCIOpcode.reset, seconds: 0.05)) {
            try CommandChannel(transport: fake).execute(.reset, timeout: 0.05)
        }
    }

    @Test func aStopRequestInterruptsTheWait() throws {
        let fake = ScanFakeController()
        try fake.reopen()
        fake.silentOpcodes = [HCIOpcode.reset]
        #expect(throws: CommandError.interrupted) {
            try CommandChannel(transport: fake).execute(.reset, timeout: 10, interrupted: { true })
        }
    }

    @Test func theBacklogIsBounded() throws {
        let fake = ScanFakeController()
        try fake.reopen()
        fake.beforeNextAnswer = (0..<10).map {
            ScanFakeController.legacyReport(address: addr, data: [], time: Int64($0))
        }
        let channel = CommandChannel(transport: fake, maxBacklog: 4)
        _ = try channel.execute(.reset, timeout: 1)
        #expect(channel.pendingCount == 4)
        #expect(channel.droppedPackets == 6)
        #expect(channel.nextBuffered()?.timeMicros == 6, "the oldest are dropped first")
    }
}

@Suite struct HCICommandLayoutTests {
    @Test func packetsCarryOpcodeLittleEndianAndLength() {
        #expect(HCICommand.reset.bytes == [0x03, 0x0C, 0x00])
        #expect(HCICommand.leSetScanEnable(false).bytes == [0x0C, 0x20, 0x02, 0x00, 0x00])
        #expect(HCICommand.leSetExtendedScanEnable(true).bytes == [0x42, 0x20, 0x06, 0x01, 0x00, 0, 0, 0, 0])
        #expect(HCICommand.leSetEventMask(0x1F | 1 << 12).bytes == [0x01, 0x20, 0x08, 0x1F, 0x10, 0, 0, 0, 0, 0, 0])
        #expect(HCICommand(packet: [0x0C, 0x20, 0x02, 0x01]) == nil, "length byte disagrees")
        #expect(HCICommand(packet: HCICommand.reset.bytes) == .reset)
    }

    @Test func supportedCommandBitsFollowTheSpecTable() {
        var bits = [UInt8](repeating: 0, count: 64)
        #expect(SupportedCommands(bits)!.extendedScan == false)
        bits[37] = 0x60
        bits[26] = 0x0C
        let s = SupportedCommands(bits)!
        #expect(s.extendedScan)
        #expect(s.legacyScan)
        #expect(SupportedCommands([0, 1]) == nil)
    }
}

@Suite struct TransportSpecTests {
    @Test(arguments: [
        ("hci0", TransportSpec.hci(0)),
        ("hci12", .hci(12)),
        ("tcp:127.0.0.1:9000", .h4(.tcp(host: "127.0.0.1", port: 9000))),
        ("tcp:[::1]:9000", .h4(.tcp(host: "::1", port: 9000))),
        ("serial:/dev/ttyACM0", .h4(.serial(path: "/dev/ttyACM0", baud: 1_000_000, rtscts: false))),
        ("serial:/dev/ttyUSB0:115200", .h4(.serial(path: "/dev/ttyUSB0", baud: 115_200, rtscts: false))),
        ("serial:/dev/ttyS1:921600:rtscts", .h4(.serial(path: "/dev/ttyS1", baud: 921_600, rtscts: true))),
    ])
    func validSpecsParse(text: String, expected: TransportSpec) throws {
        #expect(try TransportSpec.parse(text).get() == expected)
    }

    @Test(arguments: [
        "hci", "hcix", "hci-1", "tcp:host", "tcp::9000", "tcp:h:0", "tcp:h:70000", "serial:ttyACM0",
        "serial:/dev/x:123", "usb:1",
    ])
    func invalidSpecsAreConfigurationErrors(text: String) {
        guard case .failure(.configuration) = TransportSpec.parse(text) else {
            Issue.record("'\(text)' should not parse")
            return
        }
    }

    @Test func noSpecMeansTheFirstAdapter() throws {
        #expect(try TransportSpec.parse(nil).get() == .hci(nil))
    }
}

@Suite struct H4FramerTests {
    /// Two events and an ACL packet, back to back.
    static let stream: [UInt8] =
        [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
        + [0x02, 0x01, 0x20, 0x03, 0x00, 0xAA, 0xBB, 0xCC]
        + [0x04, 0x3E, 0x0C, 0x02, 0x01, 0x00, 0x00, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00, 0xC4]

    static func frame(_ chunks: [[UInt8]]) -> [(HCIPacketType, [UInt8])] {
        var f = H4Framer()
        return chunks.flatMap { f.feed($0) }
    }

    static func same(_ a: [(HCIPacketType, [UInt8])], _ b: [(HCIPacketType, [UInt8])]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    @Test func wholeByteByByteAndSplitGiveTheSamePackets() {
        let whole = Self.frame([Self.stream])
        #expect(whole.map(\.0) == [.event, .aclData, .event])
        #expect(whole[0].1 == [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
        #expect(whole[1].1 == [0x01, 0x20, 0x03, 0x00, 0xAA, 0xBB, 0xCC])
        #expect(Self.same(Self.frame(Self.stream.map { [$0] }), whole))
        for cut in 1..<Self.stream.count {
            #expect(Self.same(Self.frame([Array(Self.stream[..<cut]), Array(Self.stream[cut...])]), whole))
        }
    }

    @Test func garbageBeforeAPacketIsSkipped() {
        var f = H4Framer()
        let out = f.feed([0x00, 0xFF, 0x42, 0x04, 0x00] + Self.stream)
        #expect(out.count == 3)
        #expect(f.skippedBytes == 5, "four non-indicators, and 0x04 followed by event code 0x00")
        #expect(f.pendingBytes == 0)
    }

    @Test func anImplausibleLengthIsGarbageNotAWait() {
        var f = H4Framer()
        // ACL header claiming 0xFFFF bytes: skipped instead of swallowing the stream.
        let out = f.feed([0x02, 0x01, 0x20, 0xFF, 0xFF] + Self.stream)
        #expect(out.count == 3)
        #expect(f.skippedBytes >= 1)
    }

    @Test func aPartialPacketWaitsAndResetForgetsIt() {
        var f = H4Framer()
        #expect(f.feed(Self.stream.prefix(5)).isEmpty)
        #expect(f.pendingBytes == 5)
        f.reset()
        #expect(f.pendingBytes == 0)
        #expect(f.feed(Self.stream).count == 3)
    }
}
