import Foundation

/// A stand-in radio for process-level tests of what `run` does with its readings (MQTT): an H4
/// controller on a loopback TCP port that answers every HCI command with success (the supported
/// commands bitmap all ones) and, once scanning is on, sends a legacy LE Advertising Report of
/// one MM-BLEBC7 (Minew 0xFFE1 frame, README's quick look) every 100 ms with a humidity that
/// changes every report. Where Bumble is installed, its virtual controllers are the real
/// thing (Tests/AdvScannerTests/BumbleWorld.swift); this keeps the MQTT tests running without it.
final class FakeH4Controller: @unchecked Sendable {
    static let address = "11:22:33:44:55:66"
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var client: Int32 = -1

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, len) == 0 && listen(listener, 4) == 0 }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        _ = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) }
        }
        port = Int(UInt16(bigEndian: addr.sin_port))
        self.listener = listener
        Thread.detachNewThread { [self] in serve() }
    }

    var spec: String { "tcp:127.0.0.1:\(port)" }

    func stop() {
        lock.lock()
        stopped = true
        let c = client
        lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        if c >= 0 { shutdown(c, Int32(SHUT_RDWR)) }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func serve() {
        while !isStopped {
            let c = accept(listener, nil, nil)
            guard c >= 0 else { return }
            lock.withLock { client = c }
            converse(c)
            close(c)
        }
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { p in write(fd, p.baseAddress, p.count) == p.count }
    }

    /// Reads commands (type 0x01, opcode, length, parameters) and answers each; advertises
    /// whenever no command came for 100 ms and scanning was enabled.
    private func converse(_ fd: Int32) {
        var buffer: [UInt8] = []
        var scanning = false
        var n = 0
        while !isStopped {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, 100)
            if ready > 0 {
                var chunk = [UInt8](repeating: 0, count: 1024)
                let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard got > 0 else { return }
                buffer += chunk[0..<got]
                while buffer.count >= 4, buffer[0] == 0x01, buffer.count >= 4 + Int(buffer[3]) {
                    let opcode = UInt16(buffer[1]) | UInt16(buffer[2]) << 8
                    let params = Array(buffer[4..<(4 + Int(buffer[3]))])
                    buffer.removeFirst(4 + Int(buffer[3]))
                    // LE Set (Extended) Scan Enable: the first parameter byte is enable.
                    if opcode == 0x200C || opcode == 0x2042 { scanning = params.first == 1 }
                    var ret: [UInt8] = [0x00]
                    if opcode == 0x1002 { ret += [UInt8](repeating: 0xFF, count: 64) }
                    let event: [UInt8] = [0x0E, UInt8(3 + ret.count), 0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + ret
                    guard send(fd, [0x04] + event) else { return }
                }
                if buffer.first.map({ $0 != 0x01 }) ?? false { buffer.removeAll() }
            } else if ready == 0, scanning {
                n += 1
                // 02 01 06 | 03 03 e1ff | 10 16 e1ff a1 01 64 ff80 HH00 665544332211
                let humidity = UInt8(30 + n % 40)
                let ad: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0xE1, 0xFF, 0x10, 0x16, 0xE1, 0xFF, 0xA1, 0x01, 0x64, 0xFF, 0x80,
                    humidity, 0x00, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11]
                let report: [UInt8] = [0x02, 0x01, 0x00, 0x00, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, UInt8(ad.count)] + ad + [0xC4]
                guard send(fd, [0x04, 0x3E, UInt8(report.count)] + report) else { return }
            } else if ready < 0, errno != EINTR {
                return
            }
        }
    }
}
