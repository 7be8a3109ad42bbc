import SensorDecode

/// Reads HCI packets from capture files: btsnoop, pcap and pcapng, sniffed from the first bytes.
///
/// Containers (all lengths are checked against the bytes present before anything is read):
///
/// | container | file header | record header | times |
/// |---|---|---|---|
/// | btsnoop v1 | `"btsnoop\0"`, version (4), link type (4), all big-endian | original length (4), included length (4), flags (4), drops (4), time (8) | µs since 0000-01-01; `0x00E03AB44A676000` = 2000-01-01 |
/// | pcap | magic `A1B2C3D4` (µs) or `A1B23C4D` (ns) in the writer's byte order, version (2+2), zone (4), sigfigs (4), snaplen (4), link type (4) | seconds (4), µs or ns (4), included length (4), original length (4) | Unix epoch |
/// | pcapng | blocks: type (4), total length (4), body, total length (4); Section Header `0A0D0D0A` with byte-order magic `1A2B3C4D` | Enhanced Packet (6), Simple Packet (3), obsolete Packet (2); Interface Description (1) gives each interface its link type, `if_tsresol` and `if_tsoffset` | 64-bit ticks since the Unix epoch |
///
/// Link types, and how type and direction are found:
///
/// | link type | record body | packet type | direction |
/// |---|---|---|---|
/// | btsnoop 1001 (HCI unencapsulated) | the HCI packet | flags bit 1: command/event, else ACL | flags bit 0: 1 = received |
/// | btsnoop 1002 (H4) | H4 indicator, packet | indicator | flags bit 0: 1 = received |
/// | btsnoop 2001 (Linux monitor, `btmon -w`) | the HCI packet | opcode = flags & 0xFFFF | opcode; adapter = flags >> 16 |
/// | pcap 187 (BLUETOOTH_HCI_H4) | H4 indicator, packet | indicator | pcapng `epb_flags`, else events in, commands out |
/// | pcap 201 (BLUETOOTH_HCI_H4_WITH_PHDR) | direction (4, BE; bit 0 = received), H4 | indicator | pseudo-header |
/// | pcap 254 (BLUETOOTH_LINUX_MONITOR) | adapter (2, BE), opcode (2, BE), packet | opcode | opcode |
///
/// Monitor opcodes: 2 command, 3 event, 4/5 ACL out/in, 6/7 SCO out/in, 18/19 ISO out/in; the rest
/// (new/deleted index, notes, user logging, control channel) are records but not HCI packets.
/// Note: the *pcap* monitor header is 4 bytes, big-endian (tcpdump.org LINKTYPE_BLUETOOTH_LINUX_MONITOR);
/// the kernel's own 6-byte little-endian `hci_mon_hdr` (opcode, index, len) never reaches a file.
///
/// Sources: btsnoop — RFC 1761 layout as used by BlueZ `src/shared/btsnoop.c` (flags and the monitor
/// opcode/index packing); pcap/pcapng — draft-ietf-opsawg-pcap and -pcapng; link types — tcpdump.org
/// `linktypes.html`. Facts only; no code was copied.
///
/// Invariants:
///  (1) a record is returned only when all of its bytes were present; a file that ends inside a record
///      gives `SourceError.format("… truncated …", offset:)` naming the record's first byte;
///  (2) a length above `maxRecordLength` is an error before any allocation (lengths are untrusted);
///  (3) errors are sticky: after one, every `nextRecord()` throws it again;
///  (4) memory is bounded by the 256 KiB input buffer plus one record, whatever the file size.
/// Not thread-safe: one loop owns a reader.
public final class CaptureReader {
    /// Largest record accepted: an HCI ACL packet (4 + 65535) plus H4 indicator and pseudo-header,
    /// with room to spare. Anything above is a corrupt length, not a packet.
    public static let maxRecordLength = 65_600
    /// Largest pcapng header or interface block we hold to parse its options.
    static let maxHeaderBlockLength = 64 * 1024

    public let path: String
    /// Fixed once sniffed.
    public let format: CaptureFormat
    /// Records read, HCI packets or not.
    public private(set) var recordCount = 0
    /// Records that were not HCI packets, by reason (monitor index/note records, unknown H4 types, …).
    public private(set) var skipped: [String: Int] = [:]

    private let input: CaptureInput
    private var failure: SourceError?
    private var pcapng = PcapngSection()

    /// Opens `path` and reads its file header.
    /// - Throws: `.system` when it cannot be opened or read, `.format` when it is not a capture we read.
    public init(path: String) throws(SourceError) {
        self.path = path
        let input = try CaptureInput(path: path)
        self.input = input
        do { format = try Self.sniff(input) } catch { throw Self.named(error, path) }
    }

    /// Format errors name the file: a replay of several captures must say which one is bad.
    private static func named(_ error: SourceError, _ path: String) -> SourceError {
        guard case .format(let what, let offset) = error else { return error }
        return .format("\(path): \(what)", offset: offset)
    }

    /// The next record, or `nil` at a clean end of the file.
    public func nextRecord() throws(SourceError) -> CaptureRecord? {
        if let failure { throw failure }
        do {
            let record: CaptureRecord?
            switch format {
            case .btsnoop(let link): record = try nextBTSnoop(link: link)
            case .pcap(let link, let ns, let be): record = try nextPcap(link: link, nanoseconds: ns, bigEndian: be)
            case .pcapng: record = try nextPcapng()
            }
            if let record {
                recordCount += 1
                if case .other(let reason, _) = record { skipped[reason, default: 0] += 1 }
            }
            return record
        } catch {
            let named = Self.named(error, path)
            failure = named
            throw named
        }
    }

    // MARK: Sniffing

    private static func sniff(_ input: CaptureInput) throws(SourceError) -> CaptureFormat {
        let have = try input.require(24)
        guard have >= 4 else { throw SourceError.format("file truncated in its header (\(have) bytes)", offset: 0) }
        let magicBE = input.be32(0)
        switch magicBE {
        case 0x6274_736E:  // "btsn"
            guard have >= 16 else {
                throw SourceError.format("btsnoop header truncated (\(have) of 16 bytes)", offset: 0)
            }
            guard input.be32(4) == 0x6F6F_7000 else {
                throw SourceError.format("not a btsnoop file (bad identification pattern)", offset: 0)
            }
            let version = input.be32(8)
            guard version == 1 else {
                throw SourceError.format("btsnoop version \(version) (only 1 exists)", offset: 8)
            }
            let link = input.be32(12)
            guard
                [CaptureLinkType.btsnoopHCI, CaptureLinkType.btsnoopH4, CaptureLinkType.btsnoopMonitor].contains(link)
            else { throw SourceError.format("btsnoop link type \(link) is not HCI, H4 or Linux monitor", offset: 12) }
            input.consume(16)
            return .btsnoop(linkType: link)
        case 0xA1B2_C3D4, 0xD4C3_B2A1, 0xA1B2_3C4D, 0x4D3C_B2A1:
            guard have >= 24 else {
                throw SourceError.format("pcap header truncated (\(have) of 24 bytes)", offset: 0)
            }
            let bigEndian = magicBE == 0xA1B2_C3D4 || magicBE == 0xA1B2_3C4D
            let nanoseconds = magicBE == 0xA1B2_3C4D || magicBE == 0x4D3C_B2A1
            // Link type: low 16 bits; the upper bits carry FCS information (pcap spec §LinkType).
            let link = input.u32(20, bigEndian: bigEndian) & 0xFFFF
            guard CaptureLinkType.isPcapBluetooth(link) else {
                throw SourceError.format("pcap link type \(link) is not 187, 201 or 254 (Bluetooth HCI)", offset: 20)
            }
            input.consume(24)
            return .pcap(linkType: link, nanoseconds: nanoseconds, bigEndian: bigEndian)
        case 0x0A0D_0D0A:
            return .pcapng  // the Section Header Block is read as the first block
        default:
            let hex = Hex.encode([input.u8(0), input.u8(1), input.u8(2), input.u8(3)])
            throw SourceError.format("not a btsnoop, pcap or pcapng file (magic \(hex))", offset: 0)
        }
    }

    // MARK: btsnoop

    private func nextBTSnoop(link: UInt32) throws(SourceError) -> CaptureRecord? {
        let at = input.offset
        let have = try input.require(24)
        if have == 0 { return nil }
        guard have >= 24 else {
            throw SourceError.format("btsnoop record header truncated (\(have) of 24 bytes)", offset: at)
        }
        let included = input.be32(4)
        let flags = input.be32(8)
        let ts = input.be64(16)
        guard included <= UInt32(Self.maxRecordLength) else {
            throw SourceError.format(
                "btsnoop record length \(included) is absurd (max \(Self.maxRecordLength))", offset: at)
        }
        let length = Int(included)
        let total = try input.require(24 + length)
        guard total >= 24 + length else {
            throw SourceError.format("btsnoop record truncated (\(total - 24) of \(length) bytes)", offset: at)
        }
        let time = BTSnoopTime.unixMicros(ts)
        let record = decodeLink(link, at: 24, count: length, time: time, flags: flags, inboundHint: nil)
        input.consume(24 + length)
        return record
    }

    // MARK: pcap

    private func nextPcap(link: UInt32, nanoseconds: Bool, bigEndian: Bool) throws(SourceError) -> CaptureRecord? {
        let at = input.offset
        let have = try input.require(16)
        if have == 0 { return nil }
        guard have >= 16 else {
            throw SourceError.format("pcap record header truncated (\(have) of 16 bytes)", offset: at)
        }
        let seconds = Int64(input.u32(0, bigEndian: bigEndian))
        let fraction = Int64(input.u32(4, bigEndian: bigEndian))
        // The fraction of a second, in µs (or ns): a field of a second or more is no time stamp
        // (libpcap never writes one), so the record header is damaged.
        let perSecond: Int64 = nanoseconds ? 1_000_000_000 : 1_000_000
        guard fraction < perSecond else {
            throw SourceError.format(
                "pcap record's \(nanoseconds ? "nanosecond" : "microsecond") field \(fraction) is not below \(perSecond)",
                offset: at + 4)
        }
        let included = input.u32(8, bigEndian: bigEndian)
        guard included <= UInt32(Self.maxRecordLength) else {
            throw SourceError.format(
                "pcap record length \(included) is absurd (max \(Self.maxRecordLength))", offset: at)
        }
        let length = Int(included)
        let total = try input.require(16 + length)
        guard total >= 16 + length else {
            throw SourceError.format("pcap record truncated (\(total - 16) of \(length) bytes)", offset: at)
        }
        let time = seconds * 1_000_000 + (nanoseconds ? fraction / 1000 : fraction)
        let record = decodeLink(link, at: 16, count: length, time: time, flags: 0, inboundHint: nil)
        input.consume(16 + length)
        return record
    }

    // MARK: pcapng

    /// Per-section state: byte order and the interfaces described so far.
    struct PcapngSection {
        var bigEndian = false
        var interfaces: [PcapngInterface] = []
    }

    struct PcapngInterface {
        var linkType: UInt32
        var snapLength: UInt32
        var resolution: PcapngResolution
        var offsetSeconds: Int64
    }

    private func nextPcapng() throws(SourceError) -> CaptureRecord? {
        while true {
            let at = input.offset
            let have = try input.require(12)
            if have == 0 { return nil }
            guard have >= 8 else {
                throw SourceError.format("pcapng block header truncated (\(have) of 8 bytes)", offset: at)
            }
            let type = input.u32(0, bigEndian: pcapng.bigEndian)
            if type == PcapngBlock.sectionHeader {
                try readSectionHeader(at: at)
                continue
            }
            let length = Int(input.u32(4, bigEndian: pcapng.bigEndian))
            guard length >= 12, length % 4 == 0 else {
                throw SourceError.format(
                    "pcapng block length \(length) is invalid (< 12 or not a multiple of 4)", offset: at)
            }
            switch type {
            case PcapngBlock.interfaceDescription:
                try readInterfaceDescription(at: at, length: length)
            case PcapngBlock.enhancedPacket, PcapngBlock.simplePacket, PcapngBlock.obsoletePacket:
                return try readPacketBlock(type: type, at: at, length: length)
            default:
                // Name resolution, statistics, secrets, custom blocks: not ours; stream past them.
                guard try input.skip(Int64(length)) else {
                    throw SourceError.format(
                        "pcapng block of type \(type) truncated (\(length) bytes declared)", offset: at)
                }
            }
        }
    }

    /// Holds a whole non-packet block of `length` bytes in the buffer, checking the trailer copy.
    private func holdBlock(at: Int64, length: Int, what: String, limit: Int) throws(SourceError) {
        guard length <= limit else {
            throw SourceError.format("pcapng \(what) length \(length) is absurd (max \(limit))", offset: at)
        }
        let have = try input.require(length)
        guard have >= length else {
            throw SourceError.format("pcapng \(what) truncated (\(have) of \(length) bytes)", offset: at)
        }
        let trailer = Int(input.u32(length - 4, bigEndian: pcapng.bigEndian))
        guard trailer == length else {
            throw SourceError.format("pcapng \(what): trailing length \(trailer) differs from \(length)", offset: at)
        }
    }

    private func readSectionHeader(at: Int64) throws(SourceError) {
        let have = try input.require(28)
        guard have >= 28 else {
            throw SourceError.format("pcapng section header truncated (\(have) of 28 bytes)", offset: at)
        }
        let bomBE = input.be32(8)
        let bigEndian: Bool
        switch bomBE {
        case 0x1A2B_3C4D: bigEndian = true
        case 0x4D3C_2B1A: bigEndian = false
        default:
            throw SourceError.format(
                "pcapng byte-order magic \(Hex.encode((8..<12).map { input.u8($0) })) is invalid",
                offset: at + 8)
        }
        let major = input.u16(12, bigEndian: bigEndian)
        guard major == 1 else {
            throw SourceError.format("pcapng major version \(major) (only 1 is read)", offset: at + 12)
        }
        let length = Int(input.u32(4, bigEndian: bigEndian))
        guard length >= 28, length % 4 == 0 else {
            throw SourceError.format("pcapng section header length \(length) is invalid", offset: at)
        }
        pcapng = PcapngSection(bigEndian: bigEndian, interfaces: [])
        try holdBlock(at: at, length: length, what: "section header", limit: Self.maxHeaderBlockLength)
        input.consume(length)
    }

    private func readInterfaceDescription(at: Int64, length: Int) throws(SourceError) {
        try holdBlock(at: at, length: length, what: "interface description", limit: Self.maxHeaderBlockLength)
        guard length >= 20 else {
            throw SourceError.format("pcapng interface description of \(length) bytes (< 20)", offset: at)
        }
        let be = pcapng.bigEndian
        var interface = PcapngInterface(
            linkType: UInt32(input.u16(8, bigEndian: be)), snapLength: input.u32(12, bigEndian: be),
            resolution: .decimal(6), offsetSeconds: 0)
        // Options: code (2), length (2), value padded to 4; opt_endofopt (0) ends them.
        var i = 16
        let optionsEnd = length - 4
        while i + 4 <= optionsEnd {
            let code = input.u16(i, bigEndian: be)
            let optionLength = Int(input.u16(i + 2, bigEndian: be))
            if code == 0 { break }
            guard i + 4 + optionLength <= optionsEnd else {
                throw SourceError.format("pcapng interface option \(code) runs past its block", offset: at + Int64(i))
            }
            switch (code, optionLength) {
            case (PcapngOption.ifTsresol, 1):
                guard let r = PcapngResolution(input.u8(i + 4)) else {
                    throw SourceError.format(
                        "pcapng if_tsresol 0x\(Hex.encode([input.u8(i + 4)])) is out of range", offset: at + Int64(i))
                }
                interface.resolution = r
            case (PcapngOption.ifTsoffset, 8):
                let hi = UInt64(input.u32(i + 4, bigEndian: be))
                let lo = UInt64(input.u32(i + 8, bigEndian: be))
                interface.offsetSeconds = Int64(bitPattern: be ? hi << 32 | lo : lo << 32 | hi)
            default: break
            }
            i += 4 + (optionLength + 3) & ~3
        }
        pcapng.interfaces.append(interface)
        input.consume(length)
    }

    private func readPacketBlock(type: UInt32, at: Int64, length: Int) throws(SourceError) -> CaptureRecord {
        let be = pcapng.bigEndian
        guard length <= Self.maxRecordLength + 64 else {
            throw SourceError.format(
                "pcapng packet block length \(length) is absurd (max \(Self.maxRecordLength + 64))", offset: at)
        }
        let have = try input.require(length)
        guard have >= length else {
            throw SourceError.format("pcapng packet block truncated (\(have) of \(length) bytes)", offset: at)
        }
        let trailer = Int(input.u32(length - 4, bigEndian: be))
        guard trailer == length else {
            throw SourceError.format(
                "pcapng packet block: trailing length \(trailer) differs from \(length)", offset: at)
        }
        let interfaceID: Int
        let ticks: UInt64?
        let dataStart: Int
        let captured: Int
        var inboundHint: Bool? = nil
        switch type {
        case PcapngBlock.enhancedPacket:
            guard length >= 32 else {
                throw SourceError.format("pcapng enhanced packet block of \(length) bytes (< 32)", offset: at)
            }
            interfaceID = Int(input.u32(8, bigEndian: be))
            ticks = UInt64(input.u32(12, bigEndian: be)) << 32 | UInt64(input.u32(16, bigEndian: be))
            captured = Int(input.u32(20, bigEndian: be))
            dataStart = 28
            guard captured <= length - 32 else {
                throw SourceError.format(
                    "pcapng packet length \(captured) runs past its \(length)-byte block", offset: at)
            }
            inboundHint = epbInbound(at: at, optionsFrom: 28 + (captured + 3) & ~3, to: length - 4)
        case PcapngBlock.obsoletePacket:
            guard length >= 32 else {
                throw SourceError.format("pcapng packet block of \(length) bytes (< 32)", offset: at)
            }
            interfaceID = Int(input.u16(8, bigEndian: be))
            ticks = UInt64(input.u32(12, bigEndian: be)) << 32 | UInt64(input.u32(16, bigEndian: be))
            captured = Int(input.u32(20, bigEndian: be))
            dataStart = 28
            guard captured <= length - 32 else {
                throw SourceError.format(
                    "pcapng packet length \(captured) runs past its \(length)-byte block", offset: at)
            }
        default:  // simple packet block: original length, data; no interface id (0) and no time
            guard length >= 16 else {
                throw SourceError.format("pcapng simple packet block of \(length) bytes (< 16)", offset: at)
            }
            interfaceID = 0
            ticks = nil
            dataStart = 12
            var n = min(Int(input.u32(8, bigEndian: be)), length - 16)
            if let snap = pcapng.interfaces.first?.snapLength, snap > 0 { n = min(n, Int(snap)) }
            captured = n
        }
        guard interfaceID < pcapng.interfaces.count else {
            throw SourceError.format(
                "pcapng packet for interface \(interfaceID), but \(pcapng.interfaces.count) described", offset: at)
        }
        let interface = pcapng.interfaces[interfaceID]
        let time = ticks.map { interface.resolution.unixMicros(ticks: $0, offsetSeconds: interface.offsetSeconds) } ?? 0
        let record: CaptureRecord
        if CaptureLinkType.isPcapBluetooth(interface.linkType) {
            record = decodeLink(
                interface.linkType, at: dataStart, count: captured, time: time, flags: 0, inboundHint: inboundHint)
        } else {
            record = .other(reason: "pcapng interface link type \(interface.linkType)", timeMicros: time)
        }
        input.consume(length)
        return record
    }

    /// Direction from an EPB's `epb_flags` option (code 2, 4 bytes, bits 0–1: 1 inbound, 2 outbound).
    private func epbInbound(at: Int64, optionsFrom start: Int, to end: Int) -> Bool? {
        let be = pcapng.bigEndian
        var i = start
        while i + 4 <= end {
            let code = input.u16(i, bigEndian: be)
            let n = Int(input.u16(i + 2, bigEndian: be))
            if code == 0 || i + 4 + n > end { return nil }
            if code == PcapngOption.epbFlags, n == 4 {
                switch input.u32(i + 4, bigEndian: be) & 0x3 {
                case 1: return true
                case 2: return false
                default: return nil
                }
            }
            i += 4 + (n + 3) & ~3
        }
        return nil
    }

    // MARK: Link types

    /// Turns `count` buffered bytes at `at` into a record, per link type (table in the header).
    private func decodeLink(
        _ link: UInt32, at: Int, count: Int, time: Int64, flags: UInt32, inboundHint: Bool?
    ) -> CaptureRecord {
        switch link {
        case CaptureLinkType.btsnoopHCI:
            let received = flags & 0x1 != 0
            let type: HCIPacketType = flags & 0x2 != 0 ? (received ? .event : .command) : .aclData
            return .packet(
                HCIPacket(type: type, bytes: input.bytes(at, count: count), incoming: received, timeMicros: time),
                adapter: 0)
        case CaptureLinkType.btsnoopH4:
            return h4(at: at, count: count, time: time, incoming: flags & 0x1 != 0, adapter: 0)
        case CaptureLinkType.btsnoopMonitor:
            return monitor(
                opcode: UInt16(flags & 0xFFFF), adapter: UInt16(flags >> 16), at: at, count: count, time: time)
        case CaptureLinkType.pcapH4:
            return h4(at: at, count: count, time: time, incoming: inboundHint, adapter: 0)
        case CaptureLinkType.pcapH4WithPHDR:
            guard count >= 4 else { return .other(reason: "H4 pseudo-header shorter than 4 bytes", timeMicros: time) }
            return h4(at: at + 4, count: count - 4, time: time, incoming: input.be32(at) & 0x1 != 0, adapter: 0)
        case CaptureLinkType.pcapLinuxMonitor:
            guard count >= 4 else { return .other(reason: "monitor header shorter than 4 bytes", timeMicros: time) }
            return monitor(
                opcode: input.be16(at + 2), adapter: input.be16(at), at: at + 4, count: count - 4, time: time)
        default:
            return .other(reason: "link type \(link)", timeMicros: time)
        }
    }

    private func h4(at: Int, count: Int, time: Int64, incoming: Bool?, adapter: UInt16) -> CaptureRecord {
        guard count >= 1 else { return .other(reason: "empty H4 record", timeMicros: time) }
        guard let type = HCIPacketType(rawValue: input.u8(at)) else {
            return .other(reason: "H4 packet type 0x\(Hex.encode([input.u8(at)]))", timeMicros: time)
        }
        // Without a direction (pcap 187 without epb_flags): events and data come in, commands go out.
        let inbound = incoming ?? (type != .command)
        let packet = HCIPacket(
            type: type, bytes: input.bytes(at + 1, count: count - 1), incoming: inbound, timeMicros: time)
        return .packet(packet, adapter: adapter)
    }

    private func monitor(opcode: UInt16, adapter: UInt16, at: Int, count: Int, time: Int64) -> CaptureRecord {
        guard let (type, incoming) = MonitorOpcode.packet(opcode) else {
            return .other(reason: MonitorOpcode.name(opcode), timeMicros: time)
        }
        return .packet(
            HCIPacket(type: type, bytes: input.bytes(at, count: count), incoming: incoming, timeMicros: time),
            adapter: adapter)
    }
}

/// The container a capture file turned out to be.
public enum CaptureFormat: Sendable, Equatable, CustomStringConvertible {
    case btsnoop(linkType: UInt32)
    case pcap(linkType: UInt32, nanoseconds: Bool, bigEndian: Bool)
    case pcapng

    public var description: String {
        switch self {
        case .btsnoop(let l): "btsnoop (link type \(l))"
        case .pcap(let l, let ns, let be):
            "pcap (link type \(l), \(ns ? "ns" : "µs"), \(be ? "big" : "little")-endian)"
        case .pcapng: "pcapng"
        }
    }
}

/// One record of a capture: an HCI packet, or something else the file also holds.
public enum CaptureRecord: Sendable, Equatable {
    /// An HCI packet; `adapter` is the controller index (monitor formats), 0 otherwise.
    case packet(HCIPacket, adapter: UInt16)
    /// Not an HCI packet (monitor index or note, unknown H4 type, another interface's link type).
    case other(reason: String, timeMicros: Int64)
}

/// Link-type numbers (btsnoop: RFC 1761 + BlueZ; pcap: tcpdump.org linktypes).
public enum CaptureLinkType {
    public static let btsnoopHCI: UInt32 = 1001
    public static let btsnoopH4: UInt32 = 1002
    public static let btsnoopMonitor: UInt32 = 2001
    public static let pcapH4: UInt32 = 187
    public static let pcapH4WithPHDR: UInt32 = 201
    public static let pcapLinuxMonitor: UInt32 = 254

    static func isPcapBluetooth(_ link: UInt32) -> Bool {
        link == pcapH4 || link == pcapH4WithPHDR || link == pcapLinuxMonitor
    }
}

/// Linux monitor opcodes (BlueZ `src/shared/btsnoop.h`, tcpdump LINKTYPE_BLUETOOTH_LINUX_MONITOR).
public enum MonitorOpcode {
    public static let newIndex: UInt16 = 0
    public static let deleteIndex: UInt16 = 1
    public static let commandPacket: UInt16 = 2
    public static let eventPacket: UInt16 = 3
    public static let aclTxPacket: UInt16 = 4
    public static let aclRxPacket: UInt16 = 5
    public static let scoTxPacket: UInt16 = 6
    public static let scoRxPacket: UInt16 = 7
    public static let openIndex: UInt16 = 8
    public static let closeIndex: UInt16 = 9
    public static let indexInfo: UInt16 = 10
    public static let vendorDiag: UInt16 = 11
    public static let systemNote: UInt16 = 12
    public static let userLogging: UInt16 = 13
    public static let isoTxPacket: UInt16 = 18
    public static let isoRxPacket: UInt16 = 19

    /// The HCI packet type and direction an opcode carries, or `nil` for non-packet records.
    static func packet(_ opcode: UInt16) -> (HCIPacketType, Bool)? {
        switch opcode {
        case commandPacket: (.command, false)
        case eventPacket: (.event, true)
        case aclTxPacket: (.aclData, false)
        case aclRxPacket: (.aclData, true)
        case scoTxPacket: (.scoData, false)
        case scoRxPacket: (.scoData, true)
        case isoTxPacket: (.isoData, false)
        case isoRxPacket: (.isoData, true)
        default: nil
        }
    }

    /// The monitor opcode for an HCI packet (the inverse of `packet`).
    static func opcode(for type: HCIPacketType, incoming: Bool) -> UInt16 {
        switch type {
        case .command: commandPacket
        case .event: eventPacket
        case .aclData: incoming ? aclRxPacket : aclTxPacket
        case .scoData: incoming ? scoRxPacket : scoTxPacket
        case .isoData: incoming ? isoRxPacket : isoTxPacket
        }
    }

    /// A fixed name per opcode, used as the "skipped" reason (no per-record string building).
    static func name(_ opcode: UInt16) -> String {
        switch opcode {
        case newIndex: "monitor new index"
        case deleteIndex: "monitor delete index"
        case openIndex: "monitor open index"
        case closeIndex: "monitor close index"
        case indexInfo: "monitor index info"
        case vendorDiag: "monitor vendor diagnostic"
        case systemNote: "monitor system note"
        case userLogging: "monitor user logging"
        case 14...17: "monitor control channel"
        default: "monitor opcode \(opcode)"
        }
    }
}

/// btsnoop time stamps: microseconds since 0000-01-01 (FACTS.md; BlueZ `btsnoop.c`).
public enum BTSnoopTime {
    /// The btsnoop time stamp of 2000-01-01T00:00:00Z.
    public static let epoch2000: Int64 = 0x00E0_3AB4_4A67_6000
    /// 2000-01-01T00:00:00Z in microseconds since the Unix epoch.
    static let unix2000Micros: Int64 = 946_684_800 * 1_000_000

    /// Microseconds since the Unix epoch. Wrapping arithmetic: a corrupt stamp gives a wrong time,
    /// never a trap.
    public static func unixMicros(_ ts: UInt64) -> Int64 { Int64(bitPattern: ts) &- epoch2000 &+ unix2000Micros }

    /// The btsnoop stamp for microseconds since the Unix epoch.
    public static func stamp(unixMicros: Int64) -> UInt64 {
        UInt64(bitPattern: unixMicros &- unix2000Micros &+ epoch2000)
    }
}

/// pcapng block types (draft-ietf-opsawg-pcapng §4).
enum PcapngBlock {
    static let sectionHeader: UInt32 = 0x0A0D_0D0A
    static let interfaceDescription: UInt32 = 1
    static let obsoletePacket: UInt32 = 2
    static let simplePacket: UInt32 = 3
    static let enhancedPacket: UInt32 = 6
}

/// pcapng option codes we read.
enum PcapngOption {
    static let epbFlags: UInt16 = 2
    static let ifTsresol: UInt16 = 9
    static let ifTsoffset: UInt16 = 14
}

/// An interface's time-stamp resolution (`if_tsresol`): 10^-n or 2^-n seconds per tick.
enum PcapngResolution: Equatable {
    case decimal(Int)
    case binary(Int)

    /// From the option byte: bit 7 clear = 10^-value, set = 2^-(value & 0x7F). `nil` when a tick is
    /// below what 64 bits can count in a sane way (10^-19, 2^-63 and beyond).
    init?(_ byte: UInt8) {
        let n = Int(byte & 0x7F)
        if byte & 0x80 == 0 {
            guard n <= 18 else { return nil }
            self = .decimal(n)
        } else {
            guard n <= 63 else { return nil }
            self = .binary(n)
        }
    }

    /// Ticks (plus `if_tsoffset` seconds) as microseconds since the Unix epoch; wrapping, never trapping.
    func unixMicros(ticks: UInt64, offsetSeconds: Int64) -> Int64 {
        let micros: Int64
        switch self {
        case .decimal(let n) where n >= 6:
            micros = Int64(bitPattern: ticks / Self.pow10(n - 6))
        case .decimal(let n):
            micros = Int64(bitPattern: ticks) &* Int64(Self.pow10(6 - n))
        case .binary(let n):
            let seconds = n == 0 ? ticks : ticks >> UInt64(n)
            let fraction = n == 0 ? 0 : ticks & ((1 << UInt64(n)) - 1)
            // fraction · 10^6 / 2^n without overflow: take the 128-bit product, shift right by n.
            let (high, low) = fraction.multipliedFullWidth(by: 1_000_000)
            let fracMicros = n == 0 ? 0 : (low >> UInt64(n)) | (n == 64 ? 0 : high << UInt64(64 - n))
            micros = Int64(bitPattern: seconds) &* 1_000_000 &+ Int64(bitPattern: fracMicros)
        }
        return micros &+ offsetSeconds &* 1_000_000
    }

    private static func pow10(_ n: Int) -> UInt64 {
        var v: UInt64 = 1
        for _ in 0..<n { v *= 10 }
        return v
    }
}
