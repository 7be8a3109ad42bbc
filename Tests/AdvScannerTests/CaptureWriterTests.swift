import AdvScanner
import Foundation
import SensorDecode
import Testing

@Suite("Capture writer (btsnoop 1002)")
struct CaptureWriterTests {
    /// The sample packets plus the H4 types 1001 cannot express (SCO, ISO), both directions.
    static let packets: [HCIPacket] =
        SamplePackets.packets + [
            HCIPacket(
                type: .scoData, bytes: [0x01, 0x00, 0x02, 0xAA, 0xBB], incoming: true, timeMicros: SamplePackets.time(7)
            ),
            HCIPacket(
                type: .isoData, bytes: [0x02, 0x00, 0x01, 0x00, 0xCC], incoming: false,
                timeMicros: SamplePackets.time(8)),
            HCIPacket(
                type: .event, bytes: [0x0F, 0x04, 0x00, 0x01, 0x0B, 0x20], incoming: true,
                timeMicros: SamplePackets.time(9)),
        ]

    static func write(_ packets: [HCIPacket], to path: String, flushBytes: Int = 64 * 1024) throws -> CaptureWriter {
        let w = try CaptureWriter(path: path, flushBytes: flushBytes, flushInterval: 3600)
        for p in packets { try w.write(p) }
        return w
    }

    @Test("written packets read back identical, and the bytes are what the specification builder makes")
    func roundTrip() throws {
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("ours.btsnoop").path
        let w = try Self.write(Self.packets, to: path)
        try w.close()
        try w.close()  // idempotent
        #expect(w.recordCount == Self.packets.count)
        let reader = try CaptureReader(path: path)
        #expect(reader.format == .btsnoop(linkType: 1002))
        #expect(try TestEnv.packets(path) == Self.packets)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes == SpecCapture.btsnoopH4(Self.packets))
    }

    @Test("tshark reads our file: same advertising events, packet types and directions")
    func tsharkReadsOurFile() throws {
        guard let tshark = TestEnv.tshark else {
            print("SKIP tsharkReadsOurFile: tshark is not installed")
            return
        }
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("ours.btsnoop").path
        try Self.write(Self.packets, to: path).close()
        #expect(
            try TestEnv.tsharkCount(tshark, path, "bthci_evt.le_meta_subevent == 0x02")
                == advertisingEvents(Self.packets).count)
        let r = try TestEnv.run(tshark, ["-r", path, "-T", "fields", "-e", "hci_h4.type", "-e", "hci_h4.direction"])
        #expect(r.status == 0, "\(r.err)")
        let lines = String(decoding: r.out, as: UTF8.self).split(separator: "\n").map(String.init)
        let ours = Self.packets.map {
            "0x\(Hex.encode([$0.type.rawValue]).lowercased())\t0x\($0.incoming ? "01" : "00")"
        }
        #expect(lines == ours)
    }

    @Test(
        "the real captures survive a read → write → read round trip, and tshark agrees on the copy",
        arguments: SharedCapture.all)
    func rewriteRealCapture(_ c: SharedCapture) throws {
        guard c.isAvailable else {
            print(c.skipMessage)
            return
        }
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("copy.btsnoop").path
        let packets = try TestEnv.packets(c.path)
        try Self.write(packets, to: copy).close()
        #expect(try TestEnv.packets(copy) == packets)
        if let tshark = TestEnv.tshark {
            #expect(try TestEnv.tsharkCount(tshark, copy, "bthci_evt.le_meta_subevent == 0x02") == c.events)
        }
    }

    @Test("btmon -r opens our file")
    func btmonReadsOurFile() throws {
        guard let btmon = TestEnv.btmon else {
            print("SKIP btmonReadsOurFile: btmon is not installed (Debian package bluez)")
            return
        }
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("ours.btsnoop").path
        try Self.write(Self.packets, to: path).close()
        let r = try TestEnv.run(btmon, ["-r", path, "--no-pager"])
        #expect(r.status == 0, "\(r.err)")
        let text = String(decoding: r.out, as: UTF8.self)
        #expect(
            text.components(separatedBy: "LE Advertising Report").count - 1 == advertisingEvents(Self.packets).count)
    }

    @Test(
        "a file cut at every byte offset of its last record: all earlier records, then a clean end or a truncation error"
    )
    func cutAtEveryOffset() throws {
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("whole.btsnoop").path
        try Self.write(Self.packets, to: path).close()
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let last = Self.packets.last!
        let lastStart = whole.count - (24 + 1 + last.bytes.count)
        for cut in lastStart...whole.count {
            let cutPath = dir.appendingPathComponent("cut-\(cut).btsnoop").path
            try Data(whole.prefix(cut)).write(to: URL(fileURLWithPath: cutPath))
            let r = TestEnv.readAll(cutPath)
            let packets = r.records.compactMap { rec -> HCIPacket? in
                if case .packet(let p, _) = rec { return p } else { return nil }
            }
            if cut == whole.count {
                #expect(r.error == nil && packets == Self.packets)
            } else if cut == lastStart {
                #expect(r.error == nil && packets == Array(Self.packets.dropLast()))
            } else {
                #expect(packets == Array(Self.packets.dropLast()), "cut \(cut)")
                #expect(
                    r.error
                        == .format(
                            cut - lastStart < 24
                                ? "\(cutPath): btsnoop record header truncated (\(cut - lastStart) of 24 bytes)"
                                : "\(cutPath): btsnoop record truncated (\(cut - lastStart - 24) of \(1 + last.bytes.count) bytes)",
                            offset: Int64(lastStart)), "cut \(cut)")
            }
        }
    }

    @Test("while the writer is open the file is valid up to the last flushed record")
    func readableWhileOpen() throws {
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("live.btsnoop").path
        // Large buffer: nothing but the header is on disk until a flush.
        let buffered = try Self.write(Self.packets, to: path)
        #expect(TestEnv.readAll(path).records.isEmpty && TestEnv.readAll(path).error == nil)
        try buffered.flush()
        #expect(try TestEnv.packets(path) == Self.packets)
        try buffered.close()
        #expect(throws: SourceError.self) { try buffered.write(Self.packets[0]) }

        // flushBytes 1: every record goes out as it is written.
        let eager = try CaptureWriter(path: path, flushBytes: 1, flushInterval: 3600)
        for (i, p) in Self.packets.enumerated() {
            try eager.write(p)
            #expect(try TestEnv.packets(path) == Array(Self.packets.prefix(i + 1)))
        }
        try eager.close()
    }

    @Test("a writer that cannot create its file says so with open(2) and errno")
    func openFailure() {
        do {
            _ = try CaptureWriter(path: "/nonexistent-dir/x.btsnoop")
            Issue.record("created a file in a missing directory")
        } catch {
            guard case .system(let call, let e, let detail) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(call == "open" && e == ENOENT && detail == "/nonexistent-dir/x.btsnoop")
        }
    }
}
