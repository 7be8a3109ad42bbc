import SensorDecode

#if canImport(Glibc)
    import Glibc
#endif

/// HCI command packets a passive scanner sends (Core Specification Vol 4 Part E §5.4.1, §7), and
/// the channel that sends one and waits for its answer.
///
/// Packet: `opcode (2, LE: OCF bits 0–9, OGF bits 10–15) | parameter length (1) | parameters`.
/// An H4 stream prefixes it with the packet indicator 0x01. Every command here is answered by a
/// Command Complete whose return parameters start with a status byte; a controller may instead
/// reject it early with a Command Status carrying a non-zero status.

/// Opcodes, one constant per command with its parameter layout above it.
public enum HCIOpcode {
    /// `event_mask (8, LE)` — bit 61 enables LE Meta events (§7.3.1).
    public static let setEventMask: UInt16 = 0x0C01
    /// no parameters; stops scanning and restores the default event masks (§7.3.2).
    public static let reset: UInt16 = 0x0C03
    /// no parameters → `status (1) | supported_commands (64)` (§7.4.2).
    public static let readLocalSupportedCommands: UInt16 = 0x1002
    /// `le_event_mask (8, LE)` — bit 1 LE Advertising Report, bit 12 LE Extended Advertising
    /// Report (§7.8.1).
    public static let leSetEventMask: UInt16 = 0x2001
    /// `type (1) | interval (2) | window (2) | own_address_type (1) | filter_policy (1)`; interval and
    /// window in 0.625 ms units, 0x0004–0x4000 (§7.8.10).
    public static let leSetScanParameters: UInt16 = 0x200B
    /// `enable (1) | filter_duplicates (1)` (§7.8.11).
    public static let leSetScanEnable: UInt16 = 0x200C
    /// `own_address_type (1) | filter_policy (1) | scanning_phys (1)`, then per PHY bit set:
    /// `type (1) | interval (2) | window (2)`; interval/window 0x0004–0xFFFF (§7.8.64).
    public static let leSetExtendedScanParameters: UInt16 = 0x2041
    /// `enable (1) | filter_duplicates (1) | duration (2) | period (2)`; 0/0 = until disabled (§7.8.65).
    public static let leSetExtendedScanEnable: UInt16 = 0x2042

    /// The spec's name of an opcode, for messages.
    public static func name(_ opcode: UInt16) -> String {
        switch opcode {
        case setEventMask: "Set Event Mask"
        case reset: "Reset"
        case readLocalSupportedCommands: "Read Local Supported Commands"
        case leSetEventMask: "LE Set Event Mask"
        case leSetScanParameters: "LE Set Scan Parameters"
        case leSetScanEnable: "LE Set Scan Enable"
        case leSetExtendedScanParameters: "LE Set Extended Scan Parameters"
        case leSetExtendedScanEnable: "LE Set Extended Scan Enable"
        default: "opcode 0x" + Hex.encode([UInt8(opcode >> 8), UInt8(opcode & 0xFF)])
        }
    }
}

/// HCI status / error codes the scanner reacts to (Vol 1 Part F §1.3).
public enum HCIStatus {
    public static let success: UInt8 = 0x00
    public static let unknownCommand: UInt8 = 0x01
    /// The command is not allowed now: mixing legacy and extended scan commands, changing scan
    /// parameters while another host scans.
    public static let commandDisallowed: UInt8 = 0x0C
    public static let invalidParameters: UInt8 = 0x12
    public static let unsupportedFeature: UInt8 = 0x11

    public static func name(_ status: UInt8) -> String {
        let hex = "0x" + Hex.encode([status])
        switch status {
        case success: return "Success"
        case unknownCommand: return "Unknown HCI Command (\(hex))"
        case commandDisallowed: return "Command Disallowed (\(hex))"
        case unsupportedFeature: return "Unsupported Feature or Parameter Value (\(hex))"
        case invalidParameters: return "Invalid HCI Command Parameters (\(hex))"
        default: return "status \(hex)"
        }
    }
}

/// One HCI command: opcode and parameters.
public struct HCICommand: Sendable, Equatable, CustomStringConvertible {
    public var opcode: UInt16
    public var parameters: [UInt8]

    public init(opcode: UInt16, parameters: [UInt8] = []) {
        precondition(parameters.count <= 255, "HCI command parameters are at most 255 bytes")
        self.opcode = opcode
        self.parameters = parameters
    }

    /// The packet without its H4 indicator: opcode (LE), length, parameters.
    public var bytes: [UInt8] {
        [UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(parameters.count)] + parameters
    }

    /// Parses a command packet (without H4 indicator); `nil` when the length byte disagrees.
    public init?(packet: [UInt8]) {
        guard packet.count >= 3, Int(packet[2]) == packet.count - 3 else { return nil }
        opcode = UInt16(packet[0]) | UInt16(packet[1]) << 8
        parameters = Array(packet[3...])
    }

    public var description: String {
        HCIOpcode.name(opcode) + (parameters.isEmpty ? "" : " [" + Hex.encode(parameters) + "]")
    }

    private static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private static func le64(_ v: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
    }

    public static let reset = HCICommand(opcode: HCIOpcode.reset)
    public static let readLocalSupportedCommands = HCICommand(opcode: HCIOpcode.readLocalSupportedCommands)

    public static func setEventMask(_ mask: UInt64) -> HCICommand {
        HCICommand(opcode: HCIOpcode.setEventMask, parameters: le64(mask))
    }

    public static func leSetEventMask(_ mask: UInt64) -> HCICommand {
        HCICommand(opcode: HCIOpcode.leSetEventMask, parameters: le64(mask))
    }

    /// Passive (type 0), own address public (0), accept all advertisers (policy 0).
    public static func leSetScanParameters(intervalSlots: UInt16, windowSlots: UInt16) -> HCICommand {
        HCICommand(
            opcode: HCIOpcode.leSetScanParameters,
            parameters: [0x00] + le16(intervalSlots) + le16(windowSlots) + [0x00, 0x00])
    }

    public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
        HCICommand(opcode: HCIOpcode.leSetScanEnable, parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0])
    }

    /// Passive on the LE 1M PHY only (scanning_phys bit 0): every sensor we know advertises there;
    /// Coded PHY would halve the time spent listening on 1M.
    public static func leSetExtendedScanParameters(intervalSlots: UInt16, windowSlots: UInt16) -> HCICommand {
        HCICommand(
            opcode: HCIOpcode.leSetExtendedScanParameters,
            parameters: [0x00, 0x00, 0x01, 0x00] + le16(intervalSlots) + le16(windowSlots))
    }

    /// Duration 0 and period 0: scan until disabled.
    public static func leSetExtendedScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
        HCICommand(
            opcode: HCIOpcode.leSetExtendedScanEnable,
            parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0, 0, 0, 0, 0])
    }
}

/// Event masks the scanner installs when it owns the controller (H4 transports).
public enum HCIEventMasks {
    /// The spec's default page-1 mask (0x00001FFFFFFFFFFF) plus bit 61, LE Meta: without it a
    /// controller sends no advertising reports at all.
    public static let page1: UInt64 = 0x0000_1FFF_FFFF_FFFF | (1 << 61)
    /// The default LE mask (bits 0–4, which include bit 1 = LE Advertising Report) plus bit 12,
    /// LE Extended Advertising Report.
    public static let le: UInt64 = 0x1F | (1 << 12)
}

/// The Supported_Commands bit field of Read Local Supported Commands (Vol 4 Part E §6.27):
/// 64 octets, one bit per command.
public struct SupportedCommands: Sendable, Equatable {
    public let octets: [UInt8]

    /// `nil` unless exactly 64 octets.
    public init?(_ octets: [UInt8]) {
        guard octets.count == 64 else { return nil }
        self.octets = octets
    }

    public func has(octet: Int, bit: Int) -> Bool { octets[octet] & (1 << UInt8(bit)) != 0 }

    /// Octet 26 bits 2 and 3: LE Set Scan Parameters, LE Set Scan Enable.
    public var legacyScan: Bool { has(octet: 26, bit: 2) && has(octet: 26, bit: 3) }
    /// Octet 37 bits 5 and 6: LE Set Extended Scan Parameters, LE Set Extended Scan Enable.
    public var extendedScan: Bool { has(octet: 37, bit: 5) && has(octet: 37, bit: 6) }
    /// Octet 25 bit 0: LE Set Event Mask.
    public var leSetEventMask: Bool { has(octet: 25, bit: 0) }
    /// Octet 5 bit 6: Set Event Mask.
    public var setEventMask: Bool { has(octet: 5, bit: 6) }
}

/// How a command ended.
public struct CommandResult: Sendable, Equatable {
    public var opcode: UInt16
    public var status: UInt8
    /// Return parameters after the status byte (Command Complete only; empty for Command Status).
    public var returnParameters: [UInt8]

    public var ok: Bool { status == HCIStatus.success }
}

/// Why a command got no answer.
public enum CommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No Command Complete / Status for this opcode within the timeout.
    case timeout(opcode: UInt16, seconds: Double)
    /// The transport failed while sending or waiting.
    case transport(SourceError)
    /// The stream ended (peer closed) while waiting.
    case ended(opcode: UInt16)
    /// A stop was requested while waiting.
    case interrupted

    public var description: String {
        switch self {
        case .timeout(let op, let s): "no answer to \(HCIOpcode.name(op)) within \(s) s"
        case .transport(let e): e.description
        case .ended(let op): "stream ended while waiting for \(HCIOpcode.name(op))"
        case .interrupted: "interrupted"
        }
    }
}

/// Sends commands over a transport one at a time and matches each to its Command Complete or
/// Command Status by opcode. Every other packet that arrives meanwhile (advertising reports,
/// device events, answers to stale commands) is kept in a backlog, in order, for the loop.
///
/// Invariants: (1) at most one command is outstanding, so matching by opcode is unambiguous;
/// (2) the backlog holds at most `maxBacklog` packets, the oldest dropped first and counted in
/// `droppedPackets` (a command waits ≤ `timeout`, so this bound is only reached by a flood).
/// Not thread-safe: owned by the one loop that reads the transport.
public final class CommandChannel {
    public let transport: any HCICommandTransport
    public let maxBacklog: Int
    public private(set) var droppedPackets = 0
    private var backlog = PacketQueue()
    /// Called with every packet sent or received (the `--capture` hook: a btsnoop writer).
    public var observer: ((HCIPacket) -> Void)?

    public init(transport: any HCICommandTransport, maxBacklog: Int = 4096) {
        self.transport = transport
        self.maxBacklog = maxBacklog
    }

    /// Packets waiting in the backlog.
    public var pendingCount: Int { backlog.count }

    /// The oldest packet received while a command was waiting, if any.
    public func nextBuffered() -> HCIPacket? { backlog.popFirst() }

    /// Drops buffered packets (after the transport was reopened: they belong to the old session).
    public func clearBacklog() { backlog.removeAll() }

    private func keep(_ p: HCIPacket) {
        if pendingCount >= maxBacklog {
            _ = nextBuffered()
            droppedPackets += 1
        }
        backlog.append(p)
    }

    /// Sends `command` and waits for its answer.
    /// - Parameters:
    ///   - timeout: seconds on the monotonic clock (the kernel uses 2 s, HCI_CMD_TIMEOUT).
    ///   - interrupted: polled at least every 0.2 s; `true` abandons the wait.
    /// - Returns: the status and return parameters; a non-zero status is a result, not an error.
    public func execute(_ command: HCICommand, timeout: Double, interrupted: () -> Bool = { false })
        throws(CommandError) -> CommandResult
    {
        observer?(HCIPacket(type: .command, bytes: command.bytes, incoming: false, timeMicros: Clock.wallMicros()))
        do { try transport.send(command: command.bytes) } catch { throw .transport(error) }
        let deadline = Clock.monotonic() + timeout
        while true {
            let left = deadline - Clock.monotonic()
            if left <= 0 { throw .timeout(opcode: command.opcode, seconds: timeout) }
            if interrupted() { throw .interrupted }
            let event: SourceEvent
            do { event = try transport.next(timeout: min(left, 0.2)) } catch { throw .transport(error) }
            switch event {
            case .timeout: continue
            case .end: throw .ended(opcode: command.opcode)
            case .packet(let p):
                if p.bytes.first != HCIEventCode.stackInternal { observer?(p) }  // kernel-made, not wire traffic
                if let r = Self.answer(to: command.opcode, in: p) { return r }
                keep(p)
            }
        }
    }

    /// The result if `packet` is the Command Complete / a failing Command Status for `opcode`.
    /// A Command Status with status 0 only says "pending"; none of our commands is answered that
    /// way, so it is taken as success without return parameters.
    static func answer(to opcode: UInt16, in packet: HCIPacket) -> CommandResult? {
        guard packet.type == .event, packet.bytes.count >= 2 else { return nil }
        switch HCIEvent.parse(packet.bytes) {
        case .success(.commandComplete(_, let op, let rp)) where op == opcode:
            // A Command Complete without a status byte is malformed for every command we send.
            guard let status = rp.first else {
                return CommandResult(opcode: op, status: HCIStatus.invalidParameters, returnParameters: [])
            }
            return CommandResult(opcode: op, status: status, returnParameters: Array(rp.dropFirst()))
        case .success(.commandStatus(let status, _, let op)) where op == opcode:
            return CommandResult(opcode: op, status: status, returnParameters: [])
        default:
            return nil
        }
    }
}

/// The two clocks: the wall clock stamps packets, the monotonic clock drives every timer.
public enum Clock {
    /// Microseconds since the Unix epoch, UTC.
    public static func wallMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// Seconds on CLOCK_MONOTONIC (unaffected by NTP steps or a user setting the date).
    public static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
