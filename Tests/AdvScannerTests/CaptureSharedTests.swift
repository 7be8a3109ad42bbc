import AdvScanner
import Foundation
import SensorDecode
import Testing

// Real captures from another project (../shared/captures, see its README): read in place, never
// copied. Counts come from that README (what tshark reports); (address, data, time) triples are
// compared with tshark's own dissection when tshark is installed.

struct SharedCapture: CustomStringConvertible, Sendable {
    let file: String
    /// LE Advertising Report events (subevent 0x02), per the README.
    let events: Int
    /// Distinct advertisers, per the README.
    let advertisers: Int
    var description: String { file }
    var path: String { TestEnv.sharedCaptures.appendingPathComponent(file).path }

    static let all: [SharedCapture] = [
        SharedCapture(file: "android-govee-h5075.btsnoop", events: 763, advertisers: 87),
        SharedCapture(file: "android-govee-h5075-h5074.btsnoop", events: 9265, advertisers: 127),
        SharedCapture(file: "pi-tcpdump-bluetooth0.pcap", events: 57, advertisers: 18),
    ]

    var isAvailable: Bool { FileManager.default.fileExists(atPath: path) }
    var skipMessage: String { "SKIP \(file): ../shared/captures is absent (fresh clone); real-capture test skipped" }
}

/// One advertising report with its event's time, the unit compared with tshark.
struct TimedReport: Equatable, CustomStringConvertible {
    let timeMicros: Int64
    let pair: AddressData
    var description: String { "\(timeMicros) \(pair)" }
}

enum TsharkOracle {
    /// tshark's LE Advertising Reports in `path`: (time, address, data) per report, in file order.
    /// Uses the JSON dissection with raw bytes (`-x`): a report's data is the `advertising_data`
    /// item that starts 7 bytes after its address (address 6, data length 1).
    static func reports(_ tshark: String, _ path: String) throws -> [TimedReport] {
        let r = try TestEnv.run(
            tshark,
            [
                "-r", path, "-Y", "bthci_evt.le_meta_subevent == 0x02", "-T", "json", "-x", "--no-duplicate-keys",
                "-J", "frame bthci_evt",
            ])
        #expect(r.status == 0, "tshark failed: \(r.err)")
        guard let frames = try JSONSerialization.jsonObject(with: r.out) as? [[String: Any]] else {
            Issue.record("tshark JSON is not a list of frames")
            return []
        }
        var out: [TimedReport] = []
        for frame in frames {
            guard let layers = (frame["_source"] as? [String: Any])?["layers"] as? [String: Any],
                let epoch = (layers["frame"] as? [String: Any])?["frame.time_epoch"] as? String
            else {
                Issue.record("tshark frame without layers/time")
                continue
            }
            var addresses: [(hex: String, pos: Int)] = []
            var datas: [Int: String] = [:]
            collect(layers["bthci_evt"] as Any, into: &addresses, &datas)
            for a in addresses.sorted(by: { $0.pos < $1.pos }) {
                let le = Hex.decode(a.hex) ?? []
                let address = BDAddress(littleEndian: le)?.description ?? "bad:\(a.hex)"
                let data = Hex.decode(datas[a.pos + 7] ?? "") ?? []
                out.append(TimedReport(timeMicros: micros(epoch), pair: AddressData(address: address, data: data)))
            }
        }
        return out
    }

    /// Walks tshark's JSON tree for `bthci_evt.bd_addr_raw` and `btcommon.eir_ad.advertising_data_raw`
    /// items: `[hex, position, length, bitmask, type]`, or lists of them when keys repeat.
    private static func collect(
        _ node: Any, into addresses: inout [(hex: String, pos: Int)], _ datas: inout [Int: String]
    ) {
        guard let dict = node as? [String: Any] else {
            if let list = node as? [Any] { for item in list { collect(item, into: &addresses, &datas) } }
            return
        }
        for (key, value) in dict {
            if key == "bthci_evt.bd_addr_raw" || key == "btcommon.eir_ad.advertising_data_raw" {
                for item in rawItems(value) {
                    if key.hasPrefix("bthci_evt") { addresses.append(item) } else { datas[item.pos] = item.hex }
                }
            } else {
                collect(value, into: &addresses, &datas)
            }
        }
    }

    private static func rawItems(_ value: Any) -> [(hex: String, pos: Int)] {
        guard let list = value as? [Any] else { return [] }
        if let hex = list.first as? String, list.count >= 2 {
            let pos = (list[1] as? Int) ?? Int("\(list[1])") ?? -1
            return [(hex, pos)]
        }
        return list.flatMap { rawItems($0) }
    }

    /// "1600549030.690123000" → 1600549030690123.
    static func micros(_ epoch: String) -> Int64 {
        let parts = epoch.split(separator: ".")
        let seconds = Int64(parts[0]) ?? 0
        let fraction = parts.count > 1 ? String((parts[1] + "000000").prefix(6)) : "0"
        return seconds * 1_000_000 + (Int64(fraction) ?? 0)
    }
}

/// Our reader + HCIEvent.parse on a capture: one entry per legacy advertising report.
func ourReports(_ path: String) throws -> (events: Int, reports: [TimedReport]) {
    let events = advertisingEvents(try TestEnv.packets(path))
    let reports = events.flatMap { e in
        e.reports.map {
            TimedReport(timeMicros: e.time, pair: AddressData(address: $0.address.description, data: Array($0.data)))
        }
    }
    return (events.count, reports)
}

@Suite("Real captures (../shared/captures)")
struct CaptureSharedTests {
    @Test(
        "the number of LE Advertising Report events and advertisers equals the README's", arguments: SharedCapture.all)
    func countsMatchReadme(_ c: SharedCapture) throws {
        guard c.isAvailable else {
            print(c.skipMessage)
            return
        }
        let (events, reports) = try ourReports(c.path)
        #expect(events == c.events)
        #expect(Set(reports.map(\.pair.address)).count == c.advertisers)
        // The captures also hold commands, ACL and GATT traffic; none of it may stop the reader.
        let all = TestEnv.readAll(c.path)
        #expect(all.error == nil)
        #expect(all.records.count > events)
    }

    @Test("every (time, address, data) matches tshark's dissection", arguments: SharedCapture.all)
    func reportsMatchTshark(_ c: SharedCapture) throws {
        guard c.isAvailable else {
            print(c.skipMessage)
            return
        }
        guard let tshark = TestEnv.tshark else {
            print("SKIP \(c): tshark is not installed (Debian package tshark)")
            return
        }
        let ours = try ourReports(c.path).reports
        let theirs = try TsharkOracle.reports(tshark, c.path)
        #expect(!theirs.isEmpty)
        #expect(ours.count == theirs.count)
        if let (i, (mine, tshark)) = zip(ours, theirs).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            Issue.record("report \(i): ours \(mine), tshark \(tshark)")
        }
    }

    @Test("the README's example report is there, at its time")
    func readmeExample() throws {
        let c = SharedCapture.all[0]
        guard c.isAvailable else {
            print(c.skipMessage)
            return
        }
        let reports = try ourReports(c.path).reports
        let needle: [UInt8] = [0x00, 0x03, 0x6D, 0x6A, 0x55, 0x00]
        let hit = reports.first { r in
            r.pair.address == "A4:C1:38:EC:0B:03" && r.pair.data.count >= needle.count
                && (0...(r.pair.data.count - needle.count)).contains {
                    Array(r.pair.data[$0..<$0 + needle.count]) == needle
                }
        }
        #expect(hit != nil)
        if let hit { #expect(abs(hit.timeMicros - 1_600_549_030_690_000) < 10_000, "time \(hit.timeMicros)") }
    }

    @Test(
        "converted by editcap (pcapng, btsnoop, pcap), every capture gives the same reports",
        arguments: SharedCapture.all)
    func editcapConversions(_ c: SharedCapture) throws {
        guard c.isAvailable else {
            print(c.skipMessage)
            return
        }
        guard let editcap = TestEnv.editcap else {
            print("SKIP \(c): editcap is not installed (Debian package tshark)")
            return
        }
        let dir = try TestEnv.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = try ourReports(c.path)
        for format in ["pcapng", "btsnoop", "pcap"] {
            let out = dir.appendingPathComponent("converted.\(format)").path
            let r = try TestEnv.run(editcap, ["-F", format, c.path, out])
            guard r.status == 0 else {
                print("NOTE editcap -F \(format) \(c.file) failed (\(r.err)); conversion skipped")
                continue
            }
            let converted = try ourReports(out)
            #expect(converted.events == c.events, "\(format)")
            #expect(converted.reports == original.reports, "\(format)")
        }
    }
}
