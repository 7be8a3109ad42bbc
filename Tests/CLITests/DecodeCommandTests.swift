import Foundation
import Testing

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
