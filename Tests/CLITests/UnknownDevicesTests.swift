import AdvScanner
import Foundation
import SensorDecode
import Testing
import TestSupport

@testable import blesensor_log

/// Advertisements nothing decodes, built from the AD format: a made-up company 0x1234 and a
/// made-up service data UUID 0xABCD, which no decoder selects.
enum UnknownAds {
    static let tag = BDAddress("C0:FF:EE:00:00:01")!
    static let beacon = BDAddress("C0:FF:EE:00:00:02")!
    static let flagsOnly = BDAddress("C0:FF:EE:00:00:03")!

    /// Flags, then manufacturer data of company 0x1234 with `value` after the id.
    static func manufacturer(_ value: [UInt8]) -> [UInt8] {
        [0x02, 0x01, 0x06, UInt8(value.count + 3), 0xFF, 0x34, 0x12] + value
    }

    /// Service data 0xABCD with `value`, then a complete local name.
    static func serviceData(_ value: [UInt8], name: [UInt8]) -> [UInt8] {
        [UInt8(value.count + 3), 0x16, 0xCD, 0xAB] + value + [UInt8(name.count + 1), 0x09] + name
    }

    static func ad(_ address: BDAddress, _ data: [UInt8], rssi: Int8 = -70) -> Advertisement {
        Advertisement(header: AdvertisementHeader(address: address, rssi: rssi), data: data[...])
    }
}

/// The payload shape and the kept set, as functions.
struct PayloadShapeTests {
    @Test func theValuesAreNotPartOfTheShapeButTheLayoutIs() {
        let a = PayloadShape(UnknownAds.ad(UnknownAds.tag, UnknownAds.manufacturer([1, 2, 3, 4])))
        let b = PayloadShape(UnknownAds.ad(UnknownAds.tag, UnknownAds.manufacturer([9, 8, 7, 6]), rssi: -90))
        #expect(a == b)
        // One byte longer: another frame of the device.
        #expect(a != PayloadShape(UnknownAds.ad(UnknownAds.tag, UnknownAds.manufacturer([1, 2, 3, 4, 5]))))
        // Another advertiser with the same layout.
        #expect(a != PayloadShape(UnknownAds.ad(UnknownAds.beacon, UnknownAds.manufacturer([1, 2, 3, 4]))))
        // The same lengths under another company id.
        var other = UnknownAds.manufacturer([1, 2, 3, 4])
        other[5] = 0x35
        #expect(a != PayloadShape(UnknownAds.ad(UnknownAds.tag, other)))
        // Without the flags structure in front.
        #expect(a != PayloadShape(UnknownAds.ad(UnknownAds.tag, Array(UnknownAds.manufacturer([1, 2, 3, 4]).dropFirst(3)))))
    }

    @Test func theNameAndTheServiceDataUUIDArePartOfTheShape() {
        let a = PayloadShape(UnknownAds.ad(UnknownAds.beacon, UnknownAds.serviceData([1, 2], name: Array("ab".utf8))))
        #expect(a == PayloadShape(UnknownAds.ad(UnknownAds.beacon, UnknownAds.serviceData([7, 7], name: Array("ab".utf8)))))
        #expect(a != PayloadShape(UnknownAds.ad(UnknownAds.beacon, UnknownAds.serviceData([1, 2], name: Array("ac".utf8)))))
        var uuid = UnknownAds.serviceData([1, 2], name: Array("ab".utf8))
        uuid[2] = 0xCE
        #expect(a != PayloadShape(UnknownAds.ad(UnknownAds.beacon, uuid)))
    }

    @Test func aTruncatedStructureIsPartOfTheShape() {
        let whole = UnknownAds.manufacturer([1, 2, 3, 4])
        let cut = PayloadShape(UnknownAds.ad(UnknownAds.tag, Array(whole.dropLast())))
        #expect(cut != PayloadShape(UnknownAds.ad(UnknownAds.tag, whole)))
        #expect(cut.structures == [0x0102, 0xFF07])
        #expect(PayloadShape(UnknownAds.ad(UnknownAds.tag, [0x02, 0x01, 0x06, 0x05])).structures == [0x0102, 0x0005])
    }

    @Test func oneLinePerShapeUpToTheCapacityTheFirstSampleKept() {
        var kept = UnknownDevices(capacity: 2)
        let first = kept.record(UnknownAds.ad(UnknownAds.tag, UnknownAds.manufacturer([1, 2, 3, 4])))
        #expect(first?.hasPrefix("C0:FF:EE:00:00:01 020106 07ff341201020304 # rssi -70 dBm") == true, "\(first ?? "nil")")
        for k in 0..<20 {
            let again = kept.record(UnknownAds.ad(UnknownAds.tag, UnknownAds.manufacturer([UInt8(k), 0, 0, 0])))
            #expect(again == nil)
        }
        #expect(kept.lines == [first!])
        let longer = kept.record(UnknownAds.ad(UnknownAds.tag, UnknownAds.manufacturer([1, 2, 3, 4, 5])))
        #expect(longer != nil)
        let full = kept.record(UnknownAds.ad(UnknownAds.beacon, UnknownAds.manufacturer([1, 2, 3, 4])))
        #expect(full == nil)
        #expect(kept.lines.count == 2)
        #expect(kept.turnedAway == 1)
    }

    @Test func flagsAndUUIDListsAloneAreNotKept() {
        var kept = UnknownDevices(capacity: 10)
        let uuidList = kept.record(UnknownAds.ad(UnknownAds.flagsOnly, [0x02, 0x01, 0x06, 0x03, 0x03, 0x9F, 0xFE]))
        #expect(uuidList == nil)
        let empty = kept.record(UnknownAds.ad(UnknownAds.flagsOnly, []))
        #expect(empty == nil)
        #expect(kept.lines.isEmpty)
    }

    /// A hostile name cannot break the line; the part before `#` parses back to the same bytes.
    @Test func theLineIsDecodeInputWithTheNameEscaped() throws {
        let name = Array("x\n#\u{1B}[2J\\".utf8)
        let data = UnknownAds.serviceData([0xDE, 0xAD], name: name)
        let line = UnknownDevices.line(UnknownAds.ad(UnknownAds.beacon, data, rssi: -42))
        #expect(!line.contains("\n") && !line.contains("\u{1B}"), "\(line)")
        #expect(line.contains("name \"x\\x0a#\\x1b[2J\\\\\""), "\(line)")
        var extractor = AdvertisementExtractor()
        guard case .success(let ads) = DecodeCommand.parseLine(line.prefix { $0 != "#" }.trimmingWhitespace(), extractor: &extractor)
        else { Issue.record("not decode input: \(line)"); return }
        #expect(ads.count == 1)
        #expect(ads.first?.address == UnknownAds.beacon)
        #expect(ads.first.map { Array($0.data) } == data)
    }

    /// Padding after a zero length is kept, so the line carries the bytes as sent.
    @Test func paddingAfterTheLastStructureIsKept() throws {
        let data = UnknownAds.manufacturer([1, 2]) + [0, 0, 0]
        let line = UnknownDevices.line(UnknownAds.ad(UnknownAds.tag, data))
        #expect(line.hasPrefix("C0:FF:EE:00:00:01 020106 05ff34120102 000000 #"), "\(line)")
    }

    @Test func aRestoredLineCountsAsKnown() {
        let ad = UnknownAds.ad(UnknownAds.tag, UnknownAds.manufacturer([1, 2, 3, 4]))
        var kept = UnknownDevices(capacity: 3)
        let restored = kept.restore(Substring(UnknownDevices.line(ad)))
        #expect(restored)
        let heardAgain = kept.record(ad)
        #expect(heardAgain == nil)
        let flagsOnly = kept.restore("C0:FF:EE:00:00:01 020106")  // flags only
        #expect(!flagsOnly)
        let garbage = kept.restore("not a line")
        #expect(!garbage)
        let escaping = kept.restore("C0:FF:EE:00:00:09 020106 07ff341201020304 # \u{1B}[2J")  // not written by us
        #expect(!escaping)
        let repeated = kept.restore(Substring(UnknownDevices.line(ad)))  // a repeat
        #expect(!repeated)
        #expect(kept.lines.count == 1)
    }
}

/// The file's timing, on a given clock: written at start, then when something was added and 5 s
/// have passed since the last write, and at the end.
struct UnknownDevicesFileTests {
    @Test func writesAtStartThenAtMostEveryFiveSecondsAndAtTheEnd() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("u")
        func lines() throws -> Int { try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count }
        var file = UnknownDevicesFile(path: path, capacity: 10)
        try file.start()
        #expect(try lines() == 0)
        let log = EventLog(verbose: false)
        file.record(UnknownAds.ad(UnknownAds.tag, UnknownAds.manufacturer([1])))
        file.tick(now: 100, log: log)
        #expect(try lines() == 1)
        file.record(UnknownAds.ad(UnknownAds.beacon, UnknownAds.manufacturer([1])))
        file.tick(now: 104.9, log: log)
        #expect(try lines() == 1)
        file.tick(now: 105, log: log)
        #expect(try lines() == 2)
        file.record(UnknownAds.ad(UnknownAds.flagsOnly, UnknownAds.manufacturer([1])))
        try file.close()
        #expect(try lines() == 3)
    }
}

/// `replay --keep-unknown`, `run --keep-unknown` and `scan --unknown` through the real binary.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct UnknownDevicesCLITests {
    static let hostileName = Array("n\n\"#".utf8)

    /// 50 frames of one shape from the tag, then 3 of a longer one; 10 of the beacon's service
    /// data (with a hostile name); 10 decodable Minew frames; flags from a third address.
    static func capture(_ path: String) throws {
        let w = try CaptureWriter(path: path)
        var t = SyntheticCapture.start
        func add(_ address: BDAddress, _ ad: [UInt8]) throws {
            t += 100_000
            try w.write(HCIPacket(type: .event, bytes: SyntheticCapture.event(address, ad, rssi: -66), incoming: true, timeMicros: t))
        }
        for k in 0..<50 { try add(UnknownAds.tag, UnknownAds.manufacturer([UInt8(k), 0x20, 0x00, 0x41])) }
        for k in 0..<10 {
            try add(UnknownAds.beacon, UnknownAds.serviceData([UInt8(k), 0x01], name: hostileName))
            try add(SyntheticCapture.minew, SyntheticCapture.minewAD(2000 + k, humidity: 50, battery: 90, name: Array("S1".utf8)))
            try add(UnknownAds.flagsOnly, [0x02, 0x01, 0x06])
        }
        for k in 0..<3 { try add(UnknownAds.tag, UnknownAds.manufacturer([UInt8(k), 0x20, 0x00, 0x41, 0x07])) }
        try w.close()
    }

    static func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func replayKeepsOneLinePerDeviceAndShapeAndDecodeExplainReadsThemBack() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try Self.capture(dir.file("c.btsnoop"))
        let out = try CLI.run(["replay", dir.file("c.btsnoop"), "--db", dir.file("r.db"), "--keep-unknown", "10"])
        #expect(out.status == 0, "\(out.stderr)")
        let kept = try Self.lines(dir.file("r.db.unknown"))
        #expect(kept.last == "")  // every line ends with a newline
        let entries = kept.dropLast()
        try #require(entries.count == 3, "\(kept)")
        // In the order first heard, the first sample of each shape.
        #expect(entries[0].hasPrefix("C0:FF:EE:00:00:01 020106 07ff341200200041 # rssi -66 dBm, first heard 2026-01-01T00:00:00.100000Z"),
                "\(entries[0])")
        #expect(entries[1].hasPrefix("C0:FF:EE:00:00:02 0516cdab0001 05096e0a2223 # rssi -66 dBm, name \"n\\x0a\"#\""), "\(entries[1])")
        #expect(entries[2].hasPrefix("C0:FF:EE:00:00:01 020106 08ff34120020004107 #"), "\(entries[2])")
        // The Minew frames were decoded and stored, so they are not unknown.
        #expect(!entries.contains { $0.hasPrefix(SyntheticCapture.minew.description) })

        let explained = try CLI.run(["decode", "--explain", "--all"], stdin: entries.joined(separator: "\n") + "\n")
        #expect(explained.status == 0, "\(explained.stderr)")
        let objs = CLI.jsonObjects(explained)
        let explanations = objs.filter { $0["explain"] != nil }
        #expect(explanations.count == 3)
        // The beacon selects nothing; the tag's frames select a decoder by their length (SensorPush's
        // nameless frames, today), which says not mine: either way no reading.
        #expect(explanations[1]["no_decoder_selects"] as? [String] == ["service data 0xABCD", "local name \"n\\x0a\"#\""])
        for (e, length) in [(explanations[0], 6), (explanations[2], 7)] {
            let outcomes = (e["explain"] as? [[String: Any]] ?? []).map { $0["outcome"] as? String ?? "" }
            #expect(outcomes.allSatisfy { $0 == "not mine" || $0.hasPrefix("malformed") }, "\(e)")
            #expect(!outcomes.isEmpty || e["no_decoder_selects"] as? [String] == ["company 0x1234", "manufacturer data of \(length) bytes"])
        }
        let undecoded = objs.filter { $0["explain"] == nil }
        #expect(undecoded.map { $0["data"] as? String } == ["02010607ff341200200041", "0516cdab000105096e0a2223", "02010608ff34120020004107"])
        #expect(undecoded.allSatisfy { $0["model"] is NSNull })
    }

    @Test func theFileHoldsAtMostNLinesAndARestartKeepsThem() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try Self.capture(dir.file("c.btsnoop"))
        let file = dir.file("unknown.txt")
        func replay(_ n: String) throws -> [String] {
            let out = try CLI.run(["replay", dir.file("c.btsnoop"), "--db", dir.file("r.db"), "--keep-unknown", n, "--unknown-file", file])
            #expect(out.status == 0, "\(out.stderr)")
            return try Self.lines(file).dropLast()
        }
        let two = try replay("2")
        #expect(two.count == 2)
        #expect(!FileManager.default.fileExists(atPath: dir.file("r.db.unknown")))
        // A smaller N shortens the file, keeping the first.
        #expect(try replay("1") == [two[0]])
        #expect(try replay("0") == [])
        // Read back, not duplicated: the first run's line stays as written, the others are added.
        try (two[0] + "\nsomething else\n").write(toFile: file, atomically: true, encoding: .utf8)
        let out = try CLI.run(["replay", dir.file("c.btsnoop"), "--db", dir.file("r.db"), "--keep-unknown", "10", "--unknown-file", file])
        #expect(out.stderr.contains("1 lines dropped"), "\(out.stderr)")
        let all = try Self.lines(file).dropLast()
        #expect(all.count == 3)
        #expect(all.first == two[0])
        #expect(Set(all).count == 3)
    }

    /// The same advertisements live, from a scripted controller on loopback.
    static func controller() throws -> ScriptedH4Controller {
        var packets: [[UInt8]] = []
        func add(_ address: BDAddress, _ ad: [UInt8]) {
            packets.append(ScriptedH4Controller.legacyReport(address: address.littleEndianBytes, data: ad, rssi: -66))
        }
        for k in 0..<20 { add(UnknownAds.tag, UnknownAds.manufacturer([UInt8(k), 0x20, 0x00, 0x41])) }
        for k in 0..<5 {
            add(UnknownAds.beacon, UnknownAds.serviceData([UInt8(k), 0x01], name: hostileName))
            add(SyntheticCapture.minew, SyntheticCapture.minewAD(2000 + k, humidity: 50, battery: 90, name: Array("S1".utf8)))
        }
        for k in 0..<2 { add(UnknownAds.tag, UnknownAds.manufacturer([UInt8(k), 0x20, 0x00, 0x41, 0x07])) }
        return try ScriptedH4Controller(afterScanEnable: packets)
    }

    @Test func scanUnknownPrintsEachDeviceAndShapeOnceLive() throws {
        let controller = try Self.controller()
        let out = try CLI.run(["scan", "--unknown", "--hci", "tcp:127.0.0.1:\(controller.port)", "--duration", "3s"])
        #expect(out.status == 0, "\(out.stderr)")
        try #require(out.lines.count == 3, "\(out.stdout)")
        #expect(out.lines[0].hasPrefix("C0:FF:EE:00:00:01 020106 07ff341200200041 # rssi -66 dBm, first heard "), "\(out.lines[0])")
        #expect(out.lines[1].hasPrefix("C0:FF:EE:00:00:02 0516cdab0001 05096e0a2223 # rssi -66 dBm, name"), "\(out.lines[1])")
        #expect(out.lines[2].hasPrefix("C0:FF:EE:00:00:01 020106 08ff34120020004107 #"), "\(out.lines[2])")
        let decoded = try CLI.run(["decode"], stdin: out.stdout)
        #expect(decoded.status == 0 && decoded.stdout.isEmpty, "\(decoded.stdout)\(decoded.stderr)")
    }

    @Test func runKeepsAtMostNAndStillStoresWhatIsDecoded() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let controller = try Self.controller()
        let db = dir.file("r.db")
        let out = try CLI.run(["run", "--hci", "tcp:127.0.0.1:\(controller.port)", "--db", db, "--interval", "0",
                               "--duration", "3s", "--keep-unknown", "2"])
        #expect(out.status == 0, "\(out.stderr)")
        let kept = try Self.lines(db + ".unknown").dropLast()
        #expect(kept.map { $0.prefix(17) } == ["C0:FF:EE:00:00:01", "C0:FF:EE:00:00:02"], "\(kept)")
        let export = try CLI.run(["export", "--jsonl", "--db", db])
        #expect(Set(CLI.jsonObjects(export).compactMap { $0["address"] as? String }) == [SyntheticCapture.minew.description])
    }

    @Test(arguments: [["10001"], ["-1"], ["ten"], ["1e3"]])
    func aBadNIs64(_ n: [String]) throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        for command in [["run", "--hci", "hci7"], ["replay", dir.file("none.btsnoop")]] {
            let out = try CLI.run(command + ["--db", dir.file("r.db"), "--keep-unknown", n[0]])
            #expect(out.status == 64, "\(command) \(n): \(out.stderr)")
            #expect(out.stderr.split(separator: "\n").first == "Error: --keep-unknown wants a whole number from 0 to 10000, got '\(n[0])'",
                    "\(out.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.file("r.db")))
        }
    }

    @Test func otherMisuseIs64AndAnUnwritablePlaceIsFoundAtStart() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try Self.capture(dir.file("c.btsnoop"))
        let lone = try CLI.run(["replay", dir.file("c.btsnoop"), "--db", dir.file("r.db"), "--unknown-file", dir.file("u")])
        #expect(lone.status == 64, "\(lone.stderr)")
        let scan = try CLI.run(["scan", "--unknown", "--json", "--hci", "tcp:127.0.0.1:1"])
        #expect(scan.status == 64, "\(scan.stderr)")
        let nowhere = try CLI.run(["replay", dir.file("c.btsnoop"), "--db", dir.file("r.db"), "--keep-unknown", "5",
                                   "--unknown-file", dir.file("missing/dir/u")])
        #expect(nowhere.status == 73, "\(nowhere.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("r.db")), "nothing stored before the failure")
    }
}
