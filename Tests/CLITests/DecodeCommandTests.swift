import AdvScanner
import Foundation
import SensorDecode
import TestSupport
import Testing

@testable import blesensor_log

/// `blesensor-log decode` as a process: stdin → JSON lines on stdout, messages on stderr, exit codes.
@Suite(.enabled(if: CLI.isBuilt, "blesensor-log is not built next to the tests: run `swift build` first"))
struct DecodeCommandTests {
    @Test func theIssueExamplePrintsMinusHalfDegree() throws {
        let out = try CLI.run(["decode"], stdin: "11:22:33:44:55:66 020106 0303e1ff 1016e1ff a10164ff803200 665544332211\n")
        #expect(out.status == 0)
        let objs = CLI.jsonObjects(out)
        try #require(objs.count == 1)
        #expect(objs[0]["address"] as? String == "11:22:33:44:55:66")
        #expect(objs[0]["model"] as? String == "MM-BLEBC7")
        #expect(objs[0]["temperature_c"] as? Double == -0.5)
        #expect(objs[0]["humidity_pct"] as? Double == 50.0)
        #expect(objs[0]["battery_pct"] as? Int == 100)
        #expect(out.stdout.contains("\"humidity_pct\":50.0"))
        #expect(out.stdout.contains("\"battery_pct\":100,") || out.stdout.contains("\"battery_pct\":100}"))
        #expect(out.stderr.isEmpty)
    }

    /// A frame's events are shown beside its measurements (before any deduplication: `decode`
    /// sees one advertisement at a time).
    @Test func eventsAreShown() throws {
        // BTHome v2: packet id 7, button double press, dimmer 2 steps right.
        let out = try CLI.run(["decode"], stdin: "11:22:33:44:55:66 020106 0b16d2fc44 0007 3a02 3c0202\n")
        #expect(out.status == 0, "\(out.stderr)")
        let objs = CLI.jsonObjects(out)
        let events = objs.first?["events"] as? [[String: String]]
        #expect(events == [["event": "button", "value": "double_press"], ["event": "dimmer", "value": "rotate_right:2"]])
        // A frame without events has no key.
        let plain = try CLI.run(["decode"], stdin: "11:22:33:44:55:66 020106 0a16d2fc40 02ca09 03bf13\n")
        #expect(CLI.jsonObjects(plain).first?["events"] == nil)
    }

    /// An LE Advertising Report event with two reports: both must be decoded, not only the first.
    @Test func everyReportOfALegacyEventIsDecoded() throws {
        let ad1 = "020106" + "1016e1ffa10164ff803200665544332211"
        let ad2 = "1016e1ffa1015a0a00320001efcdab8967"
        let r1 = "00" + "00" + "665544332211" + String(format: "%02x", ad1.count / 2) + ad1 + "c4"
        let r2 = "03" + "01" + "01efcdab8967" + String(format: "%02x", ad2.count / 2) + ad2 + "b0"
        let params = "02" + "02" + r1 + r2
        let event = "04 3e " + String(format: "%02x", params.count / 2) + " " + params
        let out = try CLI.run(["decode"], stdin: event + "\n" + String(event.dropFirst(3)) + "\n")
        #expect(out.status == 0, "\(out.stderr)")
        let objs = CLI.jsonObjects(out)
        #expect(objs.count == 4)
        #expect(objs.map { $0["address"] as? String } == ["11:22:33:44:55:66", "67:89:AB:CD:EF:01",
                                                          "11:22:33:44:55:66", "67:89:AB:CD:EF:01"])
        #expect(objs[1]["temperature_c"] as? Double == 10.0)
        #expect(objs[1]["rssi_dbm"] as? Int == -80)
        #expect(objs[1]["address_type"] as? String == "random")
        #expect(objs[0]["rssi_dbm"] as? Int == -60)
    }

    @Test func everyReportOfAnExtendedEventIsDecoded() throws {
        let ad = "1016e1ffa101640a80320066554433221 1".replacingOccurrences(of: " ", with: "")
        func report(_ addr: String) -> String {
            "1300" + "00" + addr + "01" + "00" + "ff" + "7f" + "c0" + "0000" + "00" + "000000000000"
                + String(format: "%02x", ad.count / 2) + ad
        }
        let params = "0d" + "02" + report("665544332211") + report("060504030201")
        let event = "3e" + String(format: "%02x", params.count / 2) + params
        let out = try CLI.run(["decode"], stdin: event + "\n")
        #expect(out.status == 0, "\(out.stderr)")
        let objs = CLI.jsonObjects(out)
        #expect(objs.map { $0["address"] as? String } == ["11:22:33:44:55:66", "01:02:03:04:05:06"])
        #expect(objs.allSatisfy { $0["temperature_c"] as? Double == 10.5 })
    }

    /// `--explain`: a line per advertisement after its readings, naming each decoder asked.
    @Test func explainNamesTheDecodersAskedAndWhatTheySaid() throws {
        let input = "11:22:33:44:55:66 1016e1ffa10164ff803200665544332211\n11:22:33:44:55:66 0416341201\n"
        let out = try CLI.run(["decode", "--explain"], stdin: input)
        #expect(out.status == 0, "\(out.stderr)")
        let objs = CLI.jsonObjects(out)
        try #require(objs.count == 3)
        #expect(objs[0]["model"] as? String == "MM-BLEBC7")
        let asked = try #require(objs[1]["explain"] as? [[String: Any]])
        #expect(asked.map { $0["decoder"] as? String } == ["minew_ffe1"])
        #expect(asked.first?["selected_by"] as? [String] == ["service data 0xFFE1"])
        #expect(asked.first?["outcome"] as? String == "1 reading: battery_pct, temperature_c, humidity_pct")
        #expect((objs[2]["explain"] as? [Any])?.isEmpty == true)
        #expect(objs[2]["no_decoder_selects"] as? [String] == ["service data 0x1234"])
    }

    @Test func malformedLinesAreReportedWithTheirNumberAndTheRestIsDecoded() throws {
        let good = "11:22:33:44:55:66 1016e1ffa10164ff803200665544332211"
        let input = [good, "this is not hex", "11:22:33:44:55:6Z 0201", good, "3e 05 02 01 00 00", "04 0e 04 01 03 0c 00",
                     "", "# a comment", good].joined(separator: "\n")
        let out = try CLI.run(["decode"], stdin: input)
        #expect(out.status == 65)
        #expect(CLI.jsonObjects(out).count == 3)
        let errors = out.stderr.split(separator: "\n")
        #expect(errors.count == 4)
        #expect(errors[0].hasPrefix("line 2:"))
        #expect(errors[1].hasPrefix("line 3:"))
        #expect(errors[2].hasPrefix("line 5:"))
        #expect(errors[3].hasPrefix("line 6:"))
    }

    @Test func anUndecodableAdvertisementPrintsNothingUnlessAll() throws {
        let input = "AA:BB:CC:DD:EE:FF 020106 0509 41 0a 42 43 03ff4c00\n"
        let quiet = try CLI.run(["decode"], stdin: input)
        #expect(quiet.status == 0)
        #expect(quiet.stdout.isEmpty)
        let all = try CLI.run(["decode", "--all"], stdin: input)
        #expect(all.status == 0)
        let objs = CLI.jsonObjects(all)
        try #require(objs.count == 1)
        #expect(objs[0]["model"] is NSNull)
        #expect(objs[0]["name"] as? String == "A\\x0aBC")  // a newline from the radio never breaks the line
        #expect(objs[0]["flags"] as? Int == 6)
        #expect((objs[0]["manufacturer_data"] as? [String: String])?["76"] == "")
    }

    @Test func aMalformedFrameOfAKnownFormatIsExplainedOnStderr() throws {
        let out = try CLI.run(["decode"], stdin: "11:22:33:44:55:66 1116e1ffa10164ff803200665544332211aa\n")
        #expect(out.stdout.isEmpty)
        #expect(out.stderr.contains("minew_ffe1"))
        #expect(out.status == 0)  // the line was read fine; the frame was not the device's
    }

    @Test func badFlagIsAUsageError() throws {
        let out = try CLI.run(["decode", "--bogus"])
        #expect(out.status == 64)
        #expect(out.stderr.contains("Error: unknown option '--bogus'"))
        #expect(out.stderr.contains("Usage: blesensor-log decode"))
    }

    @Test func helpAndVersion() throws {
        let help = try CLI.run(["decode", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: blesensor-log decode"))
        #expect(help.stdout.contains("OPTIONS:"))
        let v = try CLI.run(["--version"])
        #expect(v.status == 0)
        #expect(v.stdout.hasPrefix("blesensor-log "))
        let unknown = try CLI.run(["frobnicate"])
        #expect(unknown.status == 64)
    }
}

/// `plainLine`, the byte-level reader of the common line, against `parseLine`, whose rules it must
/// keep: whatever it takes is what `parseLine` makes of the line, and what it declines goes there.
@Suite struct PlainLineTests {
    static func plain(_ text: String) -> DecodeCommand.PlainLine {
        var buffer = [UInt8](repeating: 0, count: ReportAssembler.maxLength)
        return DecodeCommand.plainLine(Array(text.utf8)[...], buffer: &buffer)
    }

    static func parsed(_ text: String) -> [Advertisement]? {
        var extractor = AdvertisementExtractor()
        let beforeComment = text.prefix { $0 != "#" }.trimmingWhitespace()
        guard case .success(let ads) = DecodeCommand.parseLine(beforeComment, extractor: &extractor) else { return nil }
        return ads
    }

    /// Lines of every form near the common one: separators, comments, CRs, case, odd lengths.
    static let lines: [String] = {
        let address = "A4:C1:38:0D:5E:2F"
        let hex = "0201060f16d2fc4002c40903bf13"
        var lines = [
            "", "   ", "\t\r", "# comment", "  # indented", "#", address, "\(address) ", "\(address)\r",
            "\(address) \(hex)", "\(address)\t\(hex)", "  \(address) \(hex)  ", "\(address) \(hex)\r",
            "\(address) \(hex)\r\r", "\(address) \(hex)\r \t", "\(address) \(hex) \r# note", "\(address) \(hex)#tight",
            "\(address) \(hex) # comment", "\(address)#c", "\(address)\r#c", "\(address) 02 01 06", "\(address) 02:01:06",
            "\(address) 02\t01 06", "\(address.lowercased()) \(hex.uppercased())", "\r\(address) 0201",
            // Declined (or errors): `parseLine` decides.
            "\(address) \(hex.dropLast())", "\(address) 0 201", "\(address) 02\r01", "\(address) 02\r:", "\(address)\r 02",
            "\(address):02", "\(address)02", "\(address) 0x02", "\(address) 02zz", "\(address) 02\u{e9}",
            "\(address.replacingOccurrences(of: ":", with: "-")) 0201", "A4:C1:38:0D:5E:2G 0201", "A4:C1:38:0D:5E 0201",
            "A4:C1:38:0D:5E:2F:00 0201", ":A4:C1:38:0D:5E:2F 0201", "04 3e 0c 02 01 00", "zz", "\u{0}",
            "\(address) " + String(repeating: "00", count: ReportAssembler.maxLength),
            "\(address) " + String(repeating: "00", count: ReportAssembler.maxLength + 1),
        ]
        // Random lines of the characters the reader looks at.
        var rng = SplitMix64(state: 29)
        let alphabet = Array("0123456789abcdefABCDEF: \t\r#g")
        for _ in 0..<3000 {
            let tail = String((0..<Int.random(in: 0...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            lines.append("\(address) \(hex.prefix(Int.random(in: 0...8, using: &rng)))" + tail)
        }
        return lines
    }()

    @Test func agreesWithParseLine() {
        for line in Self.lines {
            let beforeComment = line.prefix { $0 != "#" }.trimmingWhitespace()
            switch Self.plain(line) {
            case .blank: #expect(beforeComment.isEmpty, "\(line.debugDescription)")
            case .advertisement(let ad): #expect(Self.parsed(line) == [ad], "\(line.debugDescription)")
            case .other: #expect(!beforeComment.isEmpty, "\(line.debugDescription)")
            }
        }
    }

    @Test func theCommonFormsAreTakenNotDeclined() {
        for line in ["A4:C1:38:0D:5E:2F 0201060f16d2fc4002c40903bf13", "a4:c1:38:0d:5e:2f 02 01 06\r", "A4:C1:38:0D:5E:2F"] {
            guard case .advertisement = Self.plain(line) else {
                Issue.record("declined: \(line.debugDescription)")
                continue
            }
        }
    }

    /// The buffer is shared with the advertisement it made: an advertisement still held when the
    /// next line is read keeps its own bytes.
    @Test func anAdvertisementKeptPastTheNextLineKeepsItsBytes() {
        var buffer = [UInt8](repeating: 0, count: ReportAssembler.maxLength)
        guard case .advertisement(let first) = DecodeCommand.plainLine(Array("11:22:33:44:55:66 020106".utf8)[...], buffer: &buffer)
        else {
            Issue.record("first line declined")
            return
        }
        guard case .advertisement(let second) = DecodeCommand.plainLine(Array("11:22:33:44:55:77 03ff4c00".utf8)[...], buffer: &buffer)
        else {
            Issue.record("second line declined")
            return
        }
        #expect(Array(first.data) == [0x02, 0x01, 0x06])
        #expect(Array(second.data) == [0x03, 0xFF, 0x4C, 0x00])
        #expect(first.address == BDAddress(rawValue: 0x1122_3344_5566))
    }
}

/// `InputLines` against a plain split of the same bytes: lines split across the 64 KiB refills,
/// over-long lines (reported once, their rest skipped), CRLF kept as bytes, no final newline.
@Suite struct InputLinesTests {
    static func read(_ data: [UInt8], maxLength: Int) throws -> [[UInt8]?] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("input-lines-\(UUID().uuidString)").path
        try Data(data).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        var lines = InputLines(fd: fd, maxLength: maxLength)
        var out: [[UInt8]?] = []
        var expectedNumber = 1
        while let line = try lines.next() {
            #expect(line.number == expectedNumber)
            expectedNumber += 1
            out.append(line.bytes.map(Array.init))
        }
        return out
    }

    static func expected(_ data: [UInt8], maxLength: Int) -> [[UInt8]?] {
        var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        if data.last == 0x0A || data.isEmpty { lines.removeLast() }
        return lines.map { $0.count > maxLength ? nil : $0 }
    }

    @Test(arguments: [false, true]) func linesAcrossRefillsReadAsTheySplit(finalNewline: Bool) throws {
        var rng = SplitMix64(state: 8)
        var data: [UInt8] = []
        while data.count < 300_000 {
            // Mostly short lines, some empty, some over the limit, some CRLF.
            let length = [0, 1, 17, 60, 99, 100, 101, 250, 5000].randomElement(using: &rng)!
            data += (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }
            if Bool.random(using: &rng) { data.append(0x0D) }
            data.append(0x0A)
        }
        data += Array("last line".utf8)
        if finalNewline { data.append(0x0A) }
        let lines = try Self.read(data, maxLength: 100)
        #expect(lines == Self.expected(data, maxLength: 100))
        #expect(lines.last == Array("last line".utf8))
    }

    @Test func aLineFillingTheChunkExactlyAndOneOverTheLimitAtTheEnd() throws {
        // The first line ends exactly at the 64 KiB boundary; the last, without a newline, is too long.
        let first = [UInt8](repeating: 0x61, count: (1 << 16) - 1) + [0x0A]
        let data = first + Array("b\n\nc".utf8) + [UInt8](repeating: 0x64, count: 70_000)
        let lines = try Self.read(data, maxLength: 1 << 17)
        #expect(lines == Self.expected(data, maxLength: 1 << 17))
        let limited = try Self.read(data, maxLength: 1000)
        #expect(limited == [nil, Array("b".utf8), [], nil])
    }

    @Test func emptyInputHasNoLines() throws {
        #expect(try Self.read([], maxLength: 10).isEmpty)
        #expect(try Self.read([0x0A], maxLength: 10) == [[]])
    }
}
