import AdvScanner
import Foundation
import SensorDecode
import Testing

/// The poll loop with the real H4-over-TCP transport against a scripted controller on 127.0.0.1:
/// a burst of reports larger than one read and one drain batch must arrive complete and in order.
@Suite struct ScanControlLoopTests {
    /// A one-connection H4 controller: answers every command with success (listing the extended
    /// scan commands), and after the scan is enabled writes `burst` advertising reports at once.
    final class ScriptedH4Server: @unchecked Sendable {
        let listener: Int32
        let port: UInt16
        let burst: Int

        init(burst: Int) throws {
            self.burst = burst
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            addr.sin_port = 0
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ok = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, len) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &len) == 0
                }
            }
            listener = fd
            guard fd >= 0, ok else {
                port = 0
                throw POSIXError(.EADDRNOTAVAIL)
            }
            port = UInt16(bigEndian: addr.sin_port)
            Thread.detachNewThread { [self] in serve() }
        }

        static func report(_ i: Int) -> [UInt8] {
            // LE Advertising Report, one report: ADV_NONCONN_IND from 11:22:33:44:55:66 carrying
            // manufacturer data 0xFFFF with the counter, RSSI -60.
            let data: [UInt8] = [0x05, 0xFF, 0xFF, 0xFF, UInt8(i & 0xFF), UInt8(i >> 8)]
            let body: [UInt8] =
                [0x02, 1, 0x03, 0x00, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, UInt8(data.count)] + data + [0xC4]
            return [0x04, 0x3E, UInt8(body.count)] + body
        }

        private func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
            var off = 0
            while off < bytes.count {
                let n = bytes.withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL))
                }
                if n <= 0 { return }
                off += n
            }
        }

        private func serve() {
            let c = accept(listener, nil, nil)
            guard c >= 0 else { return }
            defer { close(c) }
            var pending: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 1024)
            while true {
                let n = buf.withUnsafeMutableBytes { read(c, $0.baseAddress!, $0.count) }
                if n <= 0 { return }
                pending += buf[0..<n]
                while pending.count >= 4, pending[0] == 0x01, pending.count >= 4 + Int(pending[3]) {
                    let opcode = UInt16(pending[1]) | UInt16(pending[2]) << 8
                    let params = Array(pending[4..<(4 + Int(pending[3]))])
                    pending.removeFirst(4 + Int(pending[3]))
                    var rp: [UInt8] = [0x00]
                    if opcode == HCIOpcode.readLocalSupportedCommands {
                        var bits = [UInt8](repeating: 0, count: 64)
                        bits[26] = 0x0C
                        bits[37] = 0x60
                        rp += bits
                    }
                    let cc: [UInt8] =
                        [0x04, 0x0E, UInt8(3 + rp.count), 1, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + rp
                    writeAll(c, cc)
                    if opcode == HCIOpcode.leSetExtendedScanEnable, params.first == 1 {
                        writeAll(c, (0..<burst).flatMap(Self.report))
                    }
                }
            }
        }

        deinit { close(listener) }
    }

    @Test func aBurstOfReportsArrivesCompleteAndInOrder() throws {
        let burst = 3000  // ~66 KB: many reads, and more than one 256-packet drain batch
        let server = try ScriptedH4Server(burst: burst)
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
        let server = try ScriptedH4Server(burst: 1)
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
