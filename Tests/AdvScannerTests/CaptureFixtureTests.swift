import AdvScanner
import Foundation
import SensorDecode
import Testing

// Our own fixtures: capture files built here, byte by byte, from the format specifications
// (btsnoop: RFC 1761 and BlueZ btsnoop.c flags; pcap/pcapng: draft-ietf-opsawg-pcap/-pcapng;
// link types: tcpdump.org linktypes), then read back. Where tshark is installed it reads the same
// files, so a builder that misread a spec would show up as a disagreement with Wireshark.

// MARK: - Shared test support

enum TestEnv {
    /// Tests/AdvScannerTests/<file> → repo root.
    static let repoRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// Other projects' captures, read in place (never copied into the repo).
    static let sharedCaptures = repoRoot.deletingLastPathComponent().appendingPathComponent("shared/captures")

    /// The absolute path of `tool` on PATH, or nil.
    static func which(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static let tshark = which("tshark")
    static let editcap = which("editcap")
    static let btmon = which("btmon")

    /// Runs a tool; returns its exit status, stdout and stderr.
    static func run(_ tool: String, _ args: [String]) throws -> (status: Int32, out: Data, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        let out = Pipe()
        // stderr goes to a file: reading two pipes would need a second reader thread.
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString).err")
        guard FileManager.default.createFile(atPath: errURL.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let err = try FileHandle(forWritingTo: errURL)
        defer { try? FileManager.default.removeItem(at: errURL) }
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try err.close()
        let errData = (try? Data(contentsOf: errURL)) ?? Data()
        return (p.terminationStatus, outData, String(decoding: errData, as: UTF8.self))
    }

    /// A fresh temporary directory.
    static func tempDir() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("advscanner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Every record of a capture, or the error that ended it.
    static func readAll(_ path: String) -> (records: [CaptureRecord], error: SourceError?) {
        var records: [CaptureRecord] = []
        do {
            let reader = try CaptureReader(path: path)
            while let r = try reader.nextRecord() { records.append(r) }
            return (records, nil)
        } catch {
            return (records, error)
        }
    }

    /// The HCI packets of a capture (through the `HCIPacketSource` seam), or the error.
    static func packets(_ path: String) throws(SourceError) -> [HCIPacket] {
        let source = try openCapture(path: path)
        var out: [HCIPacket] = []
        while case .packet(let p) = try source.next(timeout: 0) { out.append(p) }
        return out
    }

    /// tshark's count of events matching `filter` in `path`.
    static func tsharkCount(_ tshark: String, _ path: String, _ filter: String) throws -> Int {
        let r = try run(tshark, ["-r", path, "-Y", filter, "-T", "fields", "-e", "frame.number"])
        #expect(r.status == 0, "tshark failed on \(path): \(r.err)")
        return String(decoding: r.out, as: UTF8.self).split(separator: "\n").count
    }
}

/// One advertising report as (address, data), the pair tests compare with tshark.
struct AddressData: Hashable, CustomStringConvertible {
    let address: String
    let data: [UInt8]
    var description: String { "\(address) \(Hex.encode(data))" }
}

/// Advertising events (LE Meta 0x02 or 0x0D) among `packets`, parsed with `HCIEvent.parse`.
func advertisingEvents(_ packets: [HCIPacket], subevent: UInt8 = 0x02) -> [(time: Int64, reports: [AdvertisingReport])]
{
    packets.compactMap { p in
        guard p.type == .event, p.bytes.count >= 3, p.bytes.first == 0x3E, p.bytes.dropFirst(2).first == subevent else { return nil }
        guard case .success(.advertisingReports(let reports)) = HCIEvent.parse(p.bytes) else { return nil }
        return (p.timeMicros, Array(reports))
    }
}

// MARK: - Building events and captures from the specifications

/// HCI events built field by field from Core Specification Vol 4 Part E §7.7.65.2 / §7.7.65.13.
enum SpecEvents {
    struct Legacy {
        var eventType: UInt8 = 0x00
        var addressType: UInt8 = 0x01
        var address: BDAddress
        var data: [UInt8]
        var rssi: Int8 = -60
    }

    struct Extended {
        var eventType: UInt16 = 0x0013  // connectable, scannable, legacy… (values do not matter here)
        var addressType: UInt8 = 0x01
        var address: BDAddress
        var primaryPHY: UInt8 = 1
        var secondaryPHY: UInt8 = 0
        var sid: UInt8 = 0xFF
        var txPower: Int8 = 127
        var rssi: Int8 = -70
        var data: [UInt8]
    }

    /// LE Advertising Report event (no H4 indicator), reports laid out one after another.
    static func legacy(_ reports: [Legacy]) -> [UInt8] {
        var p: [UInt8] = [0x02, UInt8(reports.count)]
        for r in reports {
            p += [r.eventType, r.addressType] + r.address.littleEndianBytes + [UInt8(r.data.count)] + r.data
            p.append(UInt8(bitPattern: r.rssi))
        }
        return [0x3E, UInt8(p.count)] + p
    }

    /// LE Extended Advertising Report event (no H4 indicator).
    static func extended(_ reports: [Extended]) -> [UInt8] {
        var p: [UInt8] = [0x0D, UInt8(reports.count)]
        for r in reports {
            p += [UInt8(r.eventType & 0xFF), UInt8(r.eventType >> 8), r.addressType] + r.address.littleEndianBytes
            p += [r.primaryPHY, r.secondaryPHY, r.sid, UInt8(bitPattern: r.txPower), UInt8(bitPattern: r.rssi)]
            p += [0x00, 0x00]  // periodic advertising interval
            p += [0x00] + [UInt8](repeating: 0, count: 6)  // direct address type, direct address
            p += [UInt8(r.data.count)] + r.data
        }
        return [0x3E, UInt8(p.count)] + p
    }
}

/// A packet list that exercises every type and direction 1001 can express.
enum SamplePackets {
    static let base: Int64 = 1_700_000_000_000_000
    /// Times step by 1/64 s, so that they are exact in every time-stamp resolution used below.
    static func time(_ i: Int) -> Int64 { base + Int64(i) * 15_625 }

    static let legacyThree = SpecEvents.legacy([
        .init(
            eventType: 0x00, address: BDAddress("A4:C1:38:EC:0B:03")!, data: [0x02, 0x01, 0x06, 0x03, 0xFF, 0x88, 0xEC]),
        .init(eventType: 0x03, addressType: 0x00, address: BDAddress("11:22:33:44:55:66")!, data: []),
        .init(
            eventType: 0x04, address: BDAddress("C0:FF:EE:00:00:01")!, data: [0x05, 0x09, 0x41, 0x42, 0x43, 0x44],
            rssi: -90),
    ])
    static let legacyOne = SpecEvents.legacy([
        .init(address: BDAddress("A4:C1:38:00:00:02")!, data: [0x07, 0xFF, 0x88, 0xEC, 0x00, 0x03, 0x6D, 0x6A])
    ])
    static let extendedTwo = SpecEvents.extended([
        .init(address: BDAddress("D0:00:00:00:00:01")!, sid: 1, data: [0x02, 0x01, 0x06]),
        .init(
            address: BDAddress("D0:00:00:00:00:02")!, secondaryPHY: 2, sid: 3, data: [UInt8](repeating: 0xAB, count: 40)
        ),
    ])

    static let packets: [HCIPacket] = [
        HCIPacket(type: .command, bytes: [0x0C, 0x20, 0x02, 0x01, 0x00], incoming: false, timeMicros: time(0)),
        HCIPacket(type: .event, bytes: [0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00], incoming: true, timeMicros: time(1)),
        HCIPacket(type: .event, bytes: legacyThree, incoming: true, timeMicros: time(2)),
        HCIPacket(
            type: .aclData, bytes: [0x40, 0x20, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0A], incoming: true,
            timeMicros: time(3)),
        HCIPacket(type: .event, bytes: extendedTwo, incoming: true, timeMicros: time(4)),
        HCIPacket(
            type: .aclData, bytes: [0x40, 0x00, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0B], incoming: false,
            timeMicros: time(5)),
        HCIPacket(type: .event, bytes: legacyOne, incoming: true, timeMicros: time(6)),
    ]
}

/// Capture files written from the specifications, independent of `CaptureWriter`.
enum SpecCapture {
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> UInt32($0)) } }
    static func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(truncatingIfNeeded: v)) }
    static func u16(_ v: UInt16, _ bigEndian: Bool) -> [UInt8] { bigEndian ? be16(v) : be16(v).reversed() }
    static func u32(_ v: UInt32, _ bigEndian: Bool) -> [UInt8] { bigEndian ? be32(v) : be32(v).reversed() }

    /// A btsnoop file: header, then records (flags, body, µs since the Unix epoch).
    static func btsnoop(link: UInt32, _ records: [(flags: UInt32, body: [UInt8], time: Int64)]) -> [UInt8] {
        var out = Array("btsnoop".utf8) + [0] + be32(1) + be32(link)
        for r in records {
            let ts = UInt64(bitPattern: r.time - 946_684_800_000_000 + 0x00E0_3AB4_4A67_6000)
            out += be32(UInt32(r.body.count)) + be32(UInt32(r.body.count)) + be32(r.flags) + be32(0) + be64(ts) + r.body
        }
        return out
    }

    static func btsnoopH4(_ packets: [HCIPacket]) -> [UInt8] {
        btsnoop(
            link: 1002,
            packets.map { p in
                (
                    flags: (p.incoming ? 1 : 0) | (p.type == .command || p.type == .event ? 2 : 0),
                    body: [p.type.rawValue] + p.bytes, time: p.timeMicros
                )
            })
    }

    static func btsnoopHCI(_ packets: [HCIPacket]) -> [UInt8] {
        btsnoop(
            link: 1001,
            packets.map { p in
                (
                    flags: (p.incoming ? 1 : 0) | (p.type == .command || p.type == .event ? 2 : 0), body: Array(p.bytes),
                    time: p.timeMicros
                )
            })
    }

    static func monitorOpcode(_ p: HCIPacket) -> UInt16 {
        switch p.type {
        case .command: 2
        case .event: 3
        case .aclData: p.incoming ? 5 : 4
        case .scoData: p.incoming ? 7 : 6
        case .isoData: p.incoming ? 19 : 18
        }
    }

    /// `btmon -w` layout: a New Index record first, a System Note in the middle, adapter 0.
    static func btsnoopMonitor(_ packets: [HCIPacket]) -> [UInt8] {
        var records: [(flags: UInt32, body: [UInt8], time: Int64)] = []
        let newIndex: [UInt8] =
            [0x00, 0x01] + [0x01, 0x02, 0x03, 0x04, 0x05, 0x06] + Array("hci0".utf8) + [0, 0, 0, 0]
        records.append((flags: 0, body: newIndex, time: packets[0].timeMicros))
        for (i, p) in packets.enumerated() {
            records.append((flags: UInt32(monitorOpcode(p)), body: Array(p.bytes), time: p.timeMicros))
            if i == 2 { records.append((flags: 0xFFFF_0000 | 12, body: Array("note\0".utf8), time: p.timeMicros)) }
        }
        return btsnoop(link: 2001, records)
    }

    /// Link-layer bytes of one packet for pcap link types 187, 201, 254.
    static func linkBytes(_ link: UInt32, _ p: HCIPacket) -> [UInt8] {
        switch link {
        case 187: [p.type.rawValue] + p.bytes
        case 201: be32(p.incoming ? 1 : 0) + [p.type.rawValue] + p.bytes
        default: be16(0) + be16(monitorOpcode(p)) + p.bytes
        }
    }

    static func pcap(link: UInt32, bigEndian: Bool, nanoseconds: Bool, _ packets: [HCIPacket]) -> [UInt8] {
        var out = u32(nanoseconds ? 0xA1B2_3C4D : 0xA1B2_C3D4, bigEndian) + u16(2, bigEndian) + u16(4, bigEndian)
        out += u32(0, bigEndian) + u32(0, bigEndian) + u32(65535, bigEndian) + u32(link, bigEndian)
        for p in packets {
            let body = linkBytes(link, p)
            let seconds = UInt32(p.timeMicros / 1_000_000)
            let fraction = UInt32(p.timeMicros % 1_000_000) * (nanoseconds ? 1000 : 1)
            out += u32(seconds, bigEndian) + u32(fraction, bigEndian) + u32(UInt32(body.count), bigEndian)
            out += u32(UInt32(body.count), bigEndian) + body
        }
        return out
    }

    // pcapng

    static func block(_ type: UInt32, _ body: [UInt8], _ bigEndian: Bool) -> [UInt8] {
        var body = body
        while body.count % 4 != 0 { body.append(0) }
        let length = UInt32(body.count + 12)
        return u32(type, bigEndian) + u32(length, bigEndian) + body + u32(length, bigEndian)
    }

    static func option(_ code: UInt16, _ value: [UInt8], _ bigEndian: Bool) -> [UInt8] {
        var v = value
        while v.count % 4 != 0 { v.append(0) }
        return u16(code, bigEndian) + u16(UInt16(value.count), bigEndian) + v
    }

    static func sectionHeader(_ bigEndian: Bool) -> [UInt8] {
        let body =
            u32(0x1A2B_3C4D, bigEndian) + u16(1, bigEndian) + u16(0, bigEndian) + [UInt8](repeating: 0xFF, count: 8)
            + option(4, Array("blesensor-log tests".utf8), bigEndian) + option(0, [], bigEndian)
        return block(0x0A0D_0D0A, body, bigEndian)
    }

    struct Interface {
        var link: UInt16
        var tsresol: UInt8? = nil
        var tsoffset: Int64? = nil

        func ticks(_ micros: Int64) -> UInt64 {
            let local = micros - (tsoffset ?? 0) * 1_000_000
            guard let r = tsresol else { return UInt64(local) }
            if r & 0x80 != 0 {
                let n = UInt64(r & 0x7F)
                let seconds = UInt64(local / 1_000_000)
                let frac = UInt64(local % 1_000_000)
                return seconds << n + (frac << n) / 1_000_000
            }
            var v = UInt64(local)
            if r >= 6 { for _ in 6..<Int(r) { v *= 10 } } else { for _ in Int(r)..<6 { v /= 10 } }
            return v
        }
    }

    static func interfaceBlock(_ i: Interface, _ bigEndian: Bool) -> [UInt8] {
        var body = u16(i.link, bigEndian) + u16(0, bigEndian) + u32(0, bigEndian)
        body += option(2, Array("hci0".utf8), bigEndian)  // if_name
        if let r = i.tsresol { body += option(9, [r], bigEndian) }
        if let o = i.tsoffset {
            let v = be64(UInt64(bitPattern: o))
            body += option(14, bigEndian ? v : v.reversed(), bigEndian)
        }
        body += option(0, [], bigEndian)
        return block(1, body, bigEndian)
    }

    static func enhancedPacket(interface id: UInt32, ticks: UInt64, data: [UInt8], flags: UInt32?, _ bigEndian: Bool)
        -> [UInt8]
    {
        var body =
            u32(id, bigEndian) + u32(UInt32(ticks >> 32), bigEndian) + u32(UInt32(truncatingIfNeeded: ticks), bigEndian)
        body += u32(UInt32(data.count), bigEndian) + u32(UInt32(data.count), bigEndian) + data
        while body.count % 4 != 0 { body.append(0) }
        if let flags { body += option(2, u32(flags, bigEndian), bigEndian) + option(0, [], bigEndian) }
        return block(6, body, bigEndian)
    }

    /// A pcapng file with every packet on one interface, plus blocks a reader must skip.
    static func pcapng(bigEndian: Bool, interface: Interface, _ packets: [HCIPacket]) -> [UInt8] {
        var out = sectionHeader(bigEndian) + interfaceBlock(interface, bigEndian)
        // Name Resolution Block (4) with only opt_endofopt-like end record: skipped.
        out += block(4, u16(0, bigEndian) + u16(0, bigEndian), bigEndian)
        for p in packets {
            out += enhancedPacket(
                interface: 0, ticks: interface.ticks(p.timeMicros), data: linkBytes(UInt32(interface.link), p),
                flags: interface.link == 187 ? (p.incoming ? 1 : 2) : nil, bigEndian)
        }
        // Interface Statistics Block (5): skipped.
        out += block(5, u32(0, bigEndian) + u32(0, bigEndian) + u32(0, bigEndian), bigEndian)
        return out
    }

    static func write(_ bytes: [UInt8], _ name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
}

/// The packets a reader should give for `packets` stored with `link` (187 has no direction field:
/// events and data read as incoming, commands as outgoing).
func expectedPackets(_ packets: [HCIPacket], link: UInt32) -> [HCIPacket] {
    guard link == 187 else { return packets }
    return packets.map {
        var p = $0
        p.incoming = p.type != .command
        return p
    }
}

// MARK: - Tests

@Suite("Capture fixtures built from the specifications")
struct CaptureFixtureTests {
    struct Variant: CustomStringConvertible, Sendable {
        let name: String
        let link: UInt32
        let format: CaptureFormat
        let build: @Sendable ([HCIPacket]) -> [UInt8]
        var description: String { name }
    }

    static let variants: [Variant] = [
        Variant(name: "h4.btsnoop", link: 1002, format: .btsnoop(linkType: 1002), build: SpecCapture.btsnoopH4),
        Variant(name: "hci.btsnoop", link: 1001, format: .btsnoop(linkType: 1001), build: SpecCapture.btsnoopHCI),
        Variant(
            name: "monitor.btsnoop", link: 2001, format: .btsnoop(linkType: 2001), build: SpecCapture.btsnoopMonitor),
        Variant(name: "phdr-le-us.pcap", link: 201, format: .pcap(linkType: 201, nanoseconds: false, bigEndian: false))
        {
            SpecCapture.pcap(link: 201, bigEndian: false, nanoseconds: false, $0)
        },
        Variant(name: "phdr-be-ns.pcap", link: 201, format: .pcap(linkType: 201, nanoseconds: true, bigEndian: true)) {
            SpecCapture.pcap(link: 201, bigEndian: true, nanoseconds: true, $0)
        },
        Variant(name: "monitor-le.pcap", link: 254, format: .pcap(linkType: 254, nanoseconds: false, bigEndian: false))
        {
            SpecCapture.pcap(link: 254, bigEndian: false, nanoseconds: false, $0)
        },
        Variant(name: "h4-be.pcap", link: 187, format: .pcap(linkType: 187, nanoseconds: false, bigEndian: true)) {
            SpecCapture.pcap(link: 187, bigEndian: true, nanoseconds: false, $0)
        },
        Variant(name: "phdr-le.pcapng", link: 201, format: .pcapng) {
            SpecCapture.pcapng(bigEndian: false, interface: .init(link: 201), $0)
        },
        Variant(name: "monitor-be-ns.pcapng", link: 254, format: .pcapng) {
            SpecCapture.pcapng(bigEndian: true, interface: .init(link: 254, tsresol: 9), $0)
        },
        Variant(name: "h4-le-binary-offset.pcapng", link: 187, format: .pcapng) {
            SpecCapture.pcapng(
                bigEndian: false, interface: .init(link: 187, tsresol: 0x94, tsoffset: 1_600_000_000), $0)
        },
        Variant(name: "phdr-be-ms.pcapng", link: 201, format: .pcapng) {
            SpecCapture.pcapng(bigEndian: true, interface: .init(link: 201, tsresol: 3), $0)
        },
    ]

    @Test("every packet comes back with its type, bytes, direction and time", arguments: variants)
    func readsBackEveryPacket(_ v: Variant) throws {
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try SpecCapture.write(v.build(SamplePackets.packets), v.name, in: dir)
        let reader = try CaptureReader(path: path)
        #expect(reader.format == v.format)
        var packets: [HCIPacket] = []
        while let r = try reader.nextRecord() {
            if case .packet(let p, _) = r { packets.append(p) }
        }
        // pcapng 187 carries direction in epb_flags; pcap 187 has none.
        var want = v.format == .pcapng ? SamplePackets.packets : expectedPackets(SamplePackets.packets, link: v.link)
        if v.name.hasSuffix("-ms.pcapng") {
            want = want.map {
                var p = $0
                p.timeMicros = p.timeMicros / 1000 * 1000
                return p
            }
        }
        #expect(packets == want)
        if v.link == 2001 {
            #expect(reader.skipped == ["monitor new index": 1, "monitor system note": 1])
        } else {
            #expect(reader.skipped.isEmpty)
        }
        // The same through the HCIPacketSource seam.
        #expect(try TestEnv.packets(path) == want)
    }

    @Test("tshark finds the same advertising events in our fixtures", arguments: variants)
    func tsharkAgrees(_ v: Variant) throws {
        guard let tshark = TestEnv.tshark else {
            print("SKIP tsharkAgrees(\(v)): tshark is not installed (Debian package tshark)")
            return
        }
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try SpecCapture.write(v.build(SamplePackets.packets), v.name, in: dir)
        let packets = try TestEnv.packets(path)
        let legacy = advertisingEvents(packets, subevent: 0x02)
        let extended = advertisingEvents(packets, subevent: 0x0D)
        #expect(legacy.count == 2 && extended.count == 1)
        // One tshark run per file (it starts slowly): per frame, its protocols, LE Meta subevent,
        // time and addresses.
        let r = try TestEnv.run(
            tshark,
            [
                "-r", path, "-T", "fields", "-e", "frame.protocols", "-e", "bthci_evt.le_meta_subevent",
                "-e", "frame.time_epoch", "-e", "bthci_evt.bd_addr", "-E", "aggregator=,",
            ])
        #expect(r.status == 0, "tshark: \(r.err)")
        let frames = String(decoding: r.out, as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        func count(_ predicate: ([String]) -> Bool) -> Int { frames.filter { $0.count == 4 && predicate($0) }.count }
        #expect(count { $0[1] == "0x02" } == legacy.count)
        #expect(count { $0[1] == "0x0d" } == extended.count)
        #expect(count { $0[0].contains("bthci_cmd") } == packets.filter { $0.type == .command }.count)
        #expect(count { $0[0].contains("bthci_acl") } == packets.filter { $0.type == .aclData }.count)
        // Addresses in report order, and times to the microsecond.
        let theirs = frames.filter { $0.count == 4 && $0[1] == "0x02" }.map { "\($0[2])\t\($0[3])" }
        let ours = legacy.map { e in
            "\(e.time / 1_000_000).\(String(format: "%06d", e.time % 1_000_000))000\t"
                + e.reports.map { $0.address.description.lowercased() }.joined(separator: ",")
        }
        #expect(theirs == ours)
    }

    @Test(
        "btmon reads our btsnoop fixtures (1001, 1002, 2001) and finds the same advertising events",
        arguments: variants.filter { $0.name.hasSuffix(".btsnoop") })
    func btmonAgrees(_ v: Variant) throws {
        guard let btmon = TestEnv.btmon else {
            print("SKIP btmonAgrees(\(v)): btmon is not installed (Debian package bluez)")
            return
        }
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try SpecCapture.write(v.build(SamplePackets.packets), v.name, in: dir)
        let r = try TestEnv.run(btmon, ["-r", path, "--no-pager"])
        #expect(r.status == 0, "btmon: \(r.err)")
        let text = String(decoding: r.out, as: UTF8.self)
        #expect(text.components(separatedBy: "LE Advertising Report (0x02)").count - 1 == 2, "\(text)")
        #expect(text.components(separatedBy: "LE Extended Advertising Report (0x0d)").count - 1 == 1, "\(text)")
        #expect(text.contains("A4:C1:38:EC:0B:03") && text.contains("C0:FF:EE:00:00:01"))
    }

    @Test("the three legacy reports of one event all come out, in order")
    func multiReportEvent() throws {
        let packets = SamplePackets.packets
        let events = advertisingEvents(packets)
        #expect(events.map { $0.reports.count } == [3, 1])
        #expect(
            events[0].reports.map(\.address.description) == [
                "A4:C1:38:EC:0B:03", "11:22:33:44:55:66", "C0:FF:EE:00:00:01",
            ])
        #expect(events[0].reports[1].data.isEmpty)
        #expect(events[0].reports[2].rssi == -90)
    }
}

@Suite("Capture reader errors")
struct CaptureErrorTests {
    static func formatError(_ bytes: [UInt8], _ name: String = "bad.cap") throws -> (records: Int, error: SourceError?)
    {
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try SpecCapture.write(bytes, name, in: dir)
        let r = TestEnv.readAll(path)
        return (r.records.count, r.error)
    }

    @Test("a file that is no capture is named as such, at offset 0")
    func notACapture() throws {
        let r = try Self.formatError(Array("hello, world, this is text\n".utf8))
        guard case .format(let what, let offset)? = r.error else {
            Issue.record("no format error: \(String(describing: r.error))")
            return
        }
        #expect(what.contains("not a btsnoop, pcap or pcapng file"))
        #expect(offset == 0)
    }

    @Test("an empty file and a cut header are errors, not crashes")
    func shortHeaders() throws {
        for n in 0..<16 {
            let bytes = Array(SpecCapture.btsnoopH4(SamplePackets.packets).prefix(n))
            let r = try Self.formatError(bytes)
            guard case .format(let what, _)? = r.error else {
                Issue.record("cut at \(n): \(String(describing: r.error))")
                continue
            }
            #expect(what.contains("truncated") || what.contains("not a btsnoop"), "cut at \(n): \(what)")
        }
    }

    @Test(
        "a file cut at every byte of its last record ends cleanly or with a truncation error naming the record",
        arguments: CaptureFixtureTests.variants)
    func cutEverywhere(_ v: CaptureFixtureTests.Variant) throws {
        let whole = v.build(SamplePackets.packets)
        let withoutLast = v.build(Array(SamplePackets.packets.dropLast()))
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let lastRecordStart = withoutLast.count - (v.name.hasSuffix(".pcapng") ? 24 : 0)  // an ISB trails pcapng files
        for cut in lastRecordStart...whole.count {
            let path = try SpecCapture.write(Array(whole.prefix(cut)), "cut-\(cut)-\(v.name)", in: dir)
            let r = TestEnv.readAll(path)
            if let error = r.error {
                guard case .format(let what, let offset) = error else {
                    Issue.record("cut \(cut): \(error)")
                    continue
                }
                #expect(what.contains("truncated"), "cut \(cut): \(what)")
                #expect(offset >= Int64(lastRecordStart) && offset < Int64(cut), "cut \(cut): offset \(offset)")
            }
        }
    }

    @Test("an absurd record length is rejected before any allocation")
    func absurdLength() throws {
        var bytes = SpecCapture.btsnoopH4(Array(SamplePackets.packets.prefix(1)))
        bytes.replaceSubrange(20..<24, with: SpecCapture.be32(0xFFFF_FFF0))  // included length
        let r = try Self.formatError(bytes)
        guard case .format(let what, let offset)? = r.error else {
            Issue.record("\(String(describing: r.error))")
            return
        }
        #expect(what.contains("absurd"))
        #expect(offset == 16)

        var pcap = SpecCapture.pcap(
            link: 201, bigEndian: false, nanoseconds: false, Array(SamplePackets.packets.prefix(2)))
        pcap.replaceSubrange(32..<36, with: SpecCapture.u32(0x7FFF_FFFF, false))
        let p = try Self.formatError(pcap)
        guard case .format(let w2, let o2)? = p.error else {
            Issue.record("\(String(describing: p.error))")
            return
        }
        #expect(w2.contains("absurd") && o2 == 24)
    }

    @Test("a pcap record whose fraction of a second is a second or more is malformed", arguments: [false, true])
    func pcapFractionOutOfRange(nanoseconds: Bool) throws {
        let packets = Array(SamplePackets.packets.prefix(2))
        let perSecond: UInt32 = nanoseconds ? 1_000_000_000 : 1_000_000
        for (fraction, bad) in [(perSecond - 1, false), (perSecond, true), (UInt32.max, true)] {
            var pcap = SpecCapture.pcap(link: 201, bigEndian: true, nanoseconds: nanoseconds, packets)
            let second = 24 + 16 + SpecCapture.linkBytes(201, packets[0]).count
            pcap.replaceSubrange((second + 4)..<(second + 8), with: SpecCapture.u32(fraction, true))
            let r = try Self.formatError(pcap)
            if !bad {
                #expect(r.error == nil && r.records == 2, "\(fraction): \(String(describing: r.error))")
                continue
            }
            #expect(r.records == 1, "\(fraction)")  // the record before it is read
            guard case .format(let what, let offset)? = r.error else {
                Issue.record("\(fraction): \(String(describing: r.error))")
                continue
            }
            #expect(what.contains(nanoseconds ? "nanosecond field" : "microsecond field"), "\(what)")
            #expect(offset == Int64(second + 4))
        }
    }

    @Test("pcapng: a block whose trailing length disagrees, or a packet on an undescribed interface, is an error")
    func pcapngStructure() throws {
        let good = SpecCapture.pcapng(
            bigEndian: false, interface: .init(link: 201), Array(SamplePackets.packets.prefix(1)))
        var badTrailer = good
        let shb = SpecCapture.sectionHeader(false).count
        let idb = SpecCapture.interfaceBlock(.init(link: 201), false).count
        badTrailer[shb + idb - 4] ^= 0x04
        let r1 = try Self.formatError(badTrailer)
        guard case .format(let w1, let o1)? = r1.error else {
            Issue.record("\(String(describing: r1.error))")
            return
        }
        #expect(w1.contains("trailing length") && o1 == Int64(shb))

        let noInterface =
            SpecCapture.sectionHeader(true)
            + SpecCapture.enhancedPacket(interface: 0, ticks: 1, data: [0, 0, 0, 1, 4, 0x0E, 0], flags: nil, true)
        let r2 = try Self.formatError(noInterface)
        guard case .format(let w2, _)? = r2.error else {
            Issue.record("\(String(describing: r2.error))")
            return
        }
        #expect(w2.contains("interface 0"))
    }

    @Test("pcapng: other link types and unknown blocks are skipped, Simple Packet Blocks read")
    func pcapngMixed() throws {
        let be = true
        var bytes = SpecCapture.sectionHeader(be)
        bytes += SpecCapture.interfaceBlock(.init(link: 1), be)  // Ethernet
        bytes += SpecCapture.interfaceBlock(.init(link: 201), be)
        bytes += SpecCapture.enhancedPacket(
            interface: 0, ticks: 5, data: [UInt8](repeating: 0xEE, count: 60), flags: nil, be)
        bytes += SpecCapture.block(0x0BAD, [1, 2, 3, 4], be)  // custom block type
        let p = SamplePackets.packets[2]
        bytes += SpecCapture.enhancedPacket(
            interface: 1, ticks: UInt64(p.timeMicros), data: SpecCapture.linkBytes(201, p), flags: nil, be)
        // A new section in the other byte order resets the interfaces.
        bytes += SpecCapture.sectionHeader(!be) + SpecCapture.interfaceBlock(.init(link: 201), !be)
        let spbData = SpecCapture.linkBytes(201, SamplePackets.packets[1])
        bytes += SpecCapture.block(3, SpecCapture.u32(UInt32(spbData.count), !be) + spbData, !be)
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try SpecCapture.write(bytes, "mixed.pcapng", in: dir)
        let r = TestEnv.readAll(path)
        #expect(r.error == nil)
        #expect(r.records.count == 3)
        guard r.records.count == 3 else { return }
        #expect(r.records[0] == .other(reason: "pcapng interface link type 1", timeMicros: 5))
        #expect(r.records[1] == .packet(p, adapter: 0))
        var spb = SamplePackets.packets[1]
        spb.timeMicros = 0  // a Simple Packet Block has no time stamp
        #expect(r.records[2] == .packet(spb, adapter: 0))
    }

    @Test("errors are sticky, and a clean end stays an end")
    func stickyErrorsAndEnd() throws {
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let whole = SpecCapture.btsnoopH4(SamplePackets.packets)
        let cut = try SpecCapture.write(Array(whole.dropLast(3)), "cut.btsnoop", in: dir)
        let source = try openCapture(path: cut)
        var first: SourceError?
        for _ in 0..<(SamplePackets.packets.count + 2) {
            do { _ = try source.next(timeout: 0) } catch {
                if let f = first { #expect(error == f) } else { first = error }
            }
        }
        #expect(first != nil)
        let full = try openCapture(path: try SpecCapture.write(whole, "full.btsnoop", in: dir))
        for _ in SamplePackets.packets { _ = try full.next(timeout: 0) }
        #expect(try full.next(timeout: 0) == .end)
        #expect(try full.next(timeout: 0) == .end)
    }

    @Test("a missing file is a system error naming open(2)")
    func missingFile() {
        #expect(throws: SourceError.self) { _ = try openCapture(path: "/nonexistent/capture.btsnoop") }
        do { _ = try CaptureReader(path: "/nonexistent/capture.btsnoop") } catch {
            guard case .system(let call, let e, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(call == "open" && e == ENOENT)
        }
    }

    @Test("btsnoop time: 0x00E03AB44A676000 is 2000-01-01T00:00:00Z")
    func btsnoopEpoch() {
        #expect(BTSnoopTime.unixMicros(0x00E0_3AB4_4A67_6000) == 946_684_800_000_000)
        #expect(BTSnoopTime.stamp(unixMicros: 946_684_800_000_000) == 0x00E0_3AB4_4A67_6000)
        #expect(BTSnoopTime.unixMicros(BTSnoopTime.stamp(unixMicros: 1_600_549_030_690_000)) == 1_600_549_030_690_000)
        // Absurd stamps give absurd times, never a trap.
        _ = BTSnoopTime.unixMicros(.max)
        _ = BTSnoopTime.unixMicros(0)
    }
}

/// The fixture files in `fixtures/captures/` are these builders' output, committed so that other
/// tests (CLI replay) have small capture files. Regenerate with
/// `REGENERATE_FIXTURES=1 swift test --filter committedFixturesAreCurrent`.
@Suite("Committed capture fixtures")
struct CaptureCommittedFixtureTests {
    static let files: [(name: String, bytes: [UInt8])] = [
        ("sample-h4.btsnoop", SpecCapture.btsnoopH4(SamplePackets.packets)),
        ("sample-monitor.btsnoop", SpecCapture.btsnoopMonitor(SamplePackets.packets)),
        (
            "sample-h4-phdr.pcap",
            SpecCapture.pcap(link: 201, bigEndian: false, nanoseconds: false, SamplePackets.packets)
        ),
        (
            "sample-monitor-be-ns.pcapng",
            SpecCapture.pcapng(bigEndian: true, interface: .init(link: 254, tsresol: 9), SamplePackets.packets)
        ),
    ]
    static let dir = TestEnv.repoRoot.appendingPathComponent("fixtures/captures")

    @Test("fixtures/captures holds exactly what the specification builders make, and reads back")
    func committedFixturesAreCurrent() throws {
        let regenerate = ProcessInfo.processInfo.environment["REGENERATE_FIXTURES"] == "1"
        for f in Self.files {
            let url = Self.dir.appendingPathComponent(f.name)
            if regenerate {
                try FileManager.default.createDirectory(at: Self.dir, withIntermediateDirectories: true)
                try Data(f.bytes).write(to: url)
            }
            let committed = try [UInt8](Data(contentsOf: url))
            #expect(committed == f.bytes, "\(f.name) is stale: regenerate it (see this suite's doc comment)")
            #expect(try TestEnv.packets(url.path) == SamplePackets.packets, "\(f.name)")
        }
    }
}

@Suite("Capture source seam")
struct CaptureSourceTests {
    @Test("a monitor capture with two adapters: each packet keeps its index, and the source can pick one")
    func adapters() throws {
        let p = SamplePackets.packets
        var records: [(flags: UInt32, body: [UInt8], time: Int64)] = []
        for (i, packet) in p.enumerated() {
            records.append(
                (
                    flags: UInt32(i % 2) << 16 | UInt32(SpecCapture.monitorOpcode(packet)), body: Array(packet.bytes),
                    time: packet.timeMicros
                ))
        }
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try SpecCapture.write(SpecCapture.btsnoop(link: 2001, records), "two.btsnoop", in: dir)
        let all = TestEnv.readAll(path)
        #expect(all.records == p.enumerated().map { .packet($0.element, adapter: UInt16($0.offset % 2)) })
        let hci1 = try CaptureSource(path: path, adapter: 1)
        var got: [HCIPacket] = []
        while case .packet(let packet) = try hci1.next(timeout: 0) { got.append(packet) }
        #expect(got == p.enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
        #expect(hci1.name == path && hci1.fileDescriptor == nil)
    }

    @Test("format errors name the file")
    func errorsNameTheFile() throws {
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try SpecCapture.write(
            Array(SpecCapture.btsnoopH4(SamplePackets.packets).dropLast()), "named.btsnoop", in: dir)
        let r = TestEnv.readAll(path)
        guard case .format(let what, _)? = r.error else {
            Issue.record("\(String(describing: r.error))")
            return
        }
        #expect(what.hasPrefix("\(path): "))
        #expect(
            r.error!.description.hasSuffix(
                "at offset \(SpecCapture.btsnoopH4(Array(SamplePackets.packets.dropLast())).count)"))
    }
}

extension CaptureErrorTests {
    @Test("pcapng: a block far larger than the read buffer is streamed past, not held")
    func hugeSkippedBlock() throws {
        let be = false
        var bytes = SpecCapture.sectionHeader(be) + SpecCapture.interfaceBlock(.init(link: 201), be)
        bytes += SpecCapture.block(0x0BAD, [UInt8](repeating: 0x5A, count: 3 * 1024 * 1024), be)
        let p = SamplePackets.packets[6]
        bytes += SpecCapture.enhancedPacket(
            interface: 0, ticks: UInt64(p.timeMicros), data: SpecCapture.linkBytes(201, p), flags: nil, be)
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try SpecCapture.write(bytes, "huge.pcapng", in: dir)
        #expect(try TestEnv.packets(path) == [p])
    }

    @Test("captures with no records are empty, not errors")
    func emptyCaptures() throws {
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, bytes) in [
            ("e.btsnoop", SpecCapture.btsnoopH4([])),
            ("e.pcap", SpecCapture.pcap(link: 254, bigEndian: true, nanoseconds: false, [])),
            ("e.pcapng", SpecCapture.sectionHeader(true)),
        ] {
            let path = try SpecCapture.write(bytes, name, in: dir)
            let r = TestEnv.readAll(path)
            #expect(r.records.isEmpty && r.error == nil, "\(name)")
        }
    }

    @Test("unsupported link types and versions are named")
    func unsupportedHeaders() throws {
        let ethernetPcap = SpecCapture.pcap(link: 1, bigEndian: false, nanoseconds: false, [])
        let r1 = try Self.formatError(ethernetPcap)
        #expect(r1.error.map { "\($0)".contains("pcap link type 1 is not") } == true, "\(String(describing: r1.error))")
        let btsnoop1003 = SpecCapture.btsnoop(link: 1003, [])
        let r2 = try Self.formatError(btsnoop1003)
        #expect(r2.error.map { "\($0)".contains("btsnoop link type 1003") } == true, "\(String(describing: r2.error))")
        var version2 = SpecCapture.btsnoopH4([])
        version2[11] = 2
        let r3 = try Self.formatError(version2)
        #expect(r3.error.map { "\($0)".contains("btsnoop version 2") } == true, "\(String(describing: r3.error))")
    }
}
