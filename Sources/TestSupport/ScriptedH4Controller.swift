#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A one-connection H4 controller on 127.0.0.1 for tests of the live scan loop and the commands
/// that run it (`scan`, `run --hci tcp:…`): it answers every command with success, lists the
/// legacy scan commands (and the extended ones if asked) in Read Local Supported Commands, and
/// when scanning is switched on writes `afterScanEnable` (H4 packets, type byte included) at once.
public final class ScriptedH4Controller: @unchecked Sendable {
    public let port: UInt16
    private let listener: Int32
    private let listsExtended: Bool
    private let afterScanEnable: [UInt8]

    // Opcodes (Core spec Vol 4 Part E 7.4.2, 7.8.11, 7.8.65); AdvScanner's HCIOpcode names them,
    // spelled here so the support target needs only Foundation.
    private static let readLocalSupportedCommands: UInt16 = 0x1002
    private static let leSetScanEnable: UInt16 = 0x200C
    private static let leSetExtendedScanEnable: UInt16 = 0x2042

    public init(listsExtended: Bool = true, afterScanEnable packets: [[UInt8]]) throws {
        self.listsExtended = listsExtended
        afterScanEnable = packets.flatMap { $0 }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        // Unsafe: the sockaddr_in is viewed as the sockaddr the socket calls take, its size passed along.
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

    /// An H4 LE Advertising Report event with one report (ADV_NONCONN_IND, public address).
    public static func legacyReport(address littleEndian: [UInt8], data: [UInt8], rssi: Int8) -> [UInt8] {
        let body: [UInt8] = [0x02, 1, 0x03, 0x00] + littleEndian + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
        return [0x04, 0x3E, UInt8(body.count)] + body
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            // Unsafe: sends from inside the array's buffer, never past its count.
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
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
            // Unsafe: reads into the buffer, at most its count.
            let n = buf.withUnsafeMutableBytes { read(c, $0.baseAddress!, $0.count) }
            if n <= 0 { return }
            pending += buf[0..<n]
            while pending.count >= 4, pending[0] == 0x01, pending.count >= 4 + Int(pending[3]) {
                let opcode = UInt16(pending[1]) | UInt16(pending[2]) << 8
                let params = Array(pending[4..<(4 + Int(pending[3]))])
                pending.removeFirst(4 + Int(pending[3]))
                var rp: [UInt8] = [0x00]
                if opcode == Self.readLocalSupportedCommands {
                    var bits = [UInt8](repeating: 0, count: 64)
                    bits[26] = 0x0C
                    if listsExtended { bits[37] = 0x60 }
                    rp += bits
                }
                writeAll(c, [0x04, 0x0E, UInt8(3 + rp.count), 1, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + rp)
                if opcode == Self.leSetScanEnable || opcode == Self.leSetExtendedScanEnable, params.first == 1 {
                    writeAll(c, afterScanEnable)
                }
            }
        }
    }

    deinit { close(listener) }
}
