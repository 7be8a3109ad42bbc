import AdvScanner
import Foundation
import SensorDecode

/// A scripted controller for unit tests of scan-control sequencing: it answers each command at
/// once from a small rule table (status per opcode, supported-commands bits), records what was
/// sent, and hands back queued packets. No timing, no I/O: `next(timeout:)` never sleeps.
final class ScanFakeController: ScanTransport {
    let name = "fake0"
    var ownsController: Bool
    var listsExtended: Bool
    var listsLegacy = true
    /// Status answered per opcode (default success).
    var statusFor: [UInt16: UInt8] = [:]
    /// Opcodes that get no answer at all (command timeout).
    var silentOpcodes: Set<UInt16> = []
    /// Packets delivered before the answer to the next command (events "that arrive meanwhile").
    var beforeNextAnswer: [HCIPacket] = []
    var status: AdapterStatus = .up
    var reopenFailures = 0
    var bringUpError: SourceError?
    /// Thrown by every `send` (e.g. EPERM without CAP_NET_RAW).
    var sendError: SourceError?

    private(set) var sent: [HCICommand] = []
    private(set) var reopenCount = 0
    private(set) var bringUpCount = 0
    private(set) var open = false
    private var queue: [HCIPacket] = []

    init(ownsController: Bool = true, listsExtended: Bool = true) {
        self.ownsController = ownsController
        self.listsExtended = listsExtended
    }

    var fileDescriptor: Int32? { nil }
    var pollDescriptors: [Int32] { [] }
    var isOpen: Bool { open }
    func adapterStatus() -> AdapterStatus { status }

    func bringUp() throws(SourceError) {
        bringUpCount += 1
        if let e = bringUpError { throw e }
        status = .up
    }

    func reopen() throws(SourceError) {
        reopenCount += 1
        if reopenFailures > 0 {
            reopenFailures -= 1
            throw .unavailable("fake0: connection refused")
        }
        open = true
    }

    func close() { open = false }

    /// Opcodes sent, in order.
    var sentOpcodes: [UInt16] { sent.map(\.opcode) }

    func clearSent() { sent.removeAll() }

    func enqueue(_ p: HCIPacket) { queue.append(p) }

    func send(command bytes: [UInt8]) throws(SourceError) {
        guard open else { throw .system(call: "write", errno: EBADF, detail: name) }
        if let e = sendError { throw e }
        guard let cmd = HCICommand(packet: bytes) else { fatalError("scanner sent a malformed command \(bytes)") }
        sent.append(cmd)
        queue += beforeNextAnswer
        beforeNextAnswer = []
        if silentOpcodes.contains(cmd.opcode) { return }
        let status = statusFor[cmd.opcode] ?? 0
        var rp: [UInt8] = [status]
        if cmd.opcode == HCIOpcode.readLocalSupportedCommands, status == 0 {
            var bits = [UInt8](repeating: 0, count: 64)
            bits[5] |= 1 << 6 | 1 << 7  // Set Event Mask, Reset
            bits[25] |= 1 << 0  // LE Set Event Mask
            if listsLegacy { bits[26] |= 1 << 2 | 1 << 3 }
            if listsExtended { bits[37] |= 1 << 5 | 1 << 6 }
            rp += bits
        }
        queue.append(Self.commandComplete(opcode: cmd.opcode, returnParameters: rp))
    }

    func next(timeout: Double) throws(SourceError) -> SourceEvent {
        guard !queue.isEmpty else { return .timeout }
        return .packet(queue.removeFirst())
    }

    static func commandComplete(opcode: UInt16, returnParameters: [UInt8]) -> HCIPacket {
        let params = [1, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + returnParameters
        return HCIPacket(type: .event, bytes: [0x0E, UInt8(params.count)] + params, incoming: true, timeMicros: 0)
    }

    /// An LE Advertising Report event with one report (legacy layout).
    static func legacyReport(address: BDAddress, data: [UInt8], time: Int64 = 1) -> HCIPacket {
        let body: [UInt8] = [0x02, 1, 0x00, 0x00] + address.littleEndianBytes + [UInt8(data.count)] + data + [0xC4]
        return HCIPacket(type: .event, bytes: [0x3E, UInt8(body.count)] + body, incoming: true, timeMicros: time)
    }

    static func deviceEvent(_ ev: UInt8, dev: UInt16 = 0) -> HCIPacket {
        HCIPacket(
            type: .event, bytes: [0xFD, 6, 0x01, 0x00, ev, 0, UInt8(dev & 0xFF), UInt8(dev >> 8)], incoming: true,
            timeMicros: 0)
    }
}

/// Collects log lines from a `ScanLog` (whose closure must be `@Sendable`).
final class ScanLogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(ScanLog.Level, String)] = []

    var log: ScanLog { ScanLog { level, line in self.append(level, line) } }

    private func append(_ level: ScanLog.Level, _ line: String) {
        lock.lock()
        items.append((level, line))
        lock.unlock()
    }

    func lines(atLeast level: ScanLog.Level) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return items.filter { $0.0 >= level }.map(\.1)
    }
}
