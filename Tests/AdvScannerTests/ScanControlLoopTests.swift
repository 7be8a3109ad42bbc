import AdvScanner
import Foundation
import SensorDecode
import Testing
import TestSupport

/// The poll loop with the real H4-over-TCP transport against a scripted controller on 127.0.0.1:
/// a burst of reports larger than one read and one drain batch must arrive complete and in order.
@Suite struct ScanControlLoopTests {
    /// Advertising report `i`: from 11:22:33:44:55:66, manufacturer data 0xFFFF with the counter, RSSI -60.
    static func report(_ i: Int) -> [UInt8] {
        ScriptedH4Controller.legacyReport(
            address: [0x66, 0x55, 0x44, 0x33, 0x22, 0x11], data: [0x05, 0xFF, 0xFF, 0xFF, UInt8(i & 0xFF), UInt8(i >> 8)], rssi: -60)
    }

    @Test func aBurstOfReportsArrivesCompleteAndInOrder() throws {
        let burst = 3000  // ~66 KB: many reads, and more than one 256-packet drain batch
        let server = try ScriptedH4Controller(afterScanEnable: (0..<burst).map(Self.report))
        let scanner = try LiveScanner(transport: H4StreamTransport(.tcp(host: "127.0.0.1", port: server.port)))
        let stop = try StopSignal()
        var counters: [Int] = []
        var ticks = 0
        var observedCommands: [UInt16] = []
        var observedEvents = 0
        scanner.packetObserver = { p in
            if p.incoming {
                observedEvents += 1
            } else if let c = HCICommand(packet: Array(p.bytes)) {
                observedCommands.append(c.opcode)
            }
        }
        let started = Clock.monotonic()
        try scanner.run(
            stop: stop,
            onAdvertisement: { _, bytes in
                if let m = AdvertisingData(parsing: bytes).manufacturerData.first, m.data.count == 2 {
                    counters.append(Int(m.data[m.data.startIndex]) | Int(m.data[m.data.startIndex + 1]) << 8)
                }
                if counters.count == burst { stop.request() }
            },
            onTick: { now in
                ticks += 1
                if now - started > 30 { stop.request() }
            })
        #expect(counters == Array(0..<burst))
        // The capture hook saw every command (the final switch-off included) and every event.
        #expect(observedCommands.first == HCIOpcode.reset)
        #expect(observedCommands.last == HCIOpcode.leSetExtendedScanEnable)
        #expect(observedEvents >= burst + observedCommands.count - 1)
        #expect(scanner.stats.malformedEvents == 0)
        #expect(scanner.state == .closed)
    }

    @Test func aStopRequestedFromATickEndsTheLoopAndTicksComeEverySecond() throws {
        let server = try ScriptedH4Controller(afterScanEnable: [Self.report(0)])
        let scanner = try LiveScanner(transport: H4StreamTransport(.tcp(host: "127.0.0.1", port: server.port)))
        let stop = try StopSignal()
        var tickTimes: [Double] = []
        try scanner.run(
            stop: stop, onAdvertisement: { _, _ in },
            onTick: { now in
                tickTimes.append(now)
                if tickTimes.count == 3 { stop.request() }
            })
        #expect(tickTimes.count == 3)
        #expect(tickTimes == tickTimes.sorted())
    }
}
