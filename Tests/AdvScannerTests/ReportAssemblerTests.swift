import TestSupport
import Foundation
import SensorDecode
import Testing

@testable import AdvScanner

/// Extended report fragments, built as a controller would send them (Vol 4 Part E §7.7.65.13:
/// data status in event-type bits 5–6: 0 complete, 1 more to come, 2 truncated).
enum Fragments {
    static func report(_ address: String, sid: UInt8?, status: UInt16, _ data: [UInt8]) -> AdvertisingReport {
        AdvertisingReport(
            eventType: status << 5, addressType: 1, address: BDAddress(address)!, rssi: -60, data: data[...], primaryPHY: 1,
            secondaryPHY: 2, sid: sid, txPower: nil,
            dataStatus: AdvertisingReport.DataStatus(rawValue: UInt8(status))!)
    }

    static func more(_ a: String, sid: UInt8?, _ d: [UInt8]) -> AdvertisingReport { report(a, sid: sid, status: 1, d) }
    static func last(_ a: String, sid: UInt8?, _ d: [UInt8]) -> AdvertisingReport { report(a, sid: sid, status: 0, d) }
    static func truncated(_ a: String, sid: UInt8?, _ d: [UInt8]) -> AdvertisingReport {
        report(a, sid: sid, status: 2, d)
    }

    static func legacy(_ a: String, _ d: [UInt8]) -> AdvertisingReport {
        AdvertisingReport(
            eventType: 0, addressType: 1, address: BDAddress(a)!, rssi: -50, data: d[...], primaryPHY: nil,
            secondaryPHY: nil,
            sid: nil, txPower: nil, dataStatus: .complete)
    }

    /// As an extended report would be encoded in an event (for the verifier).
    static func spec(_ r: AdvertisingReport) -> SpecEvents.Extended {
        SpecEvents.Extended(
            eventType: r.eventType, addressType: r.addressType, address: r.address, primaryPHY: r.primaryPHY ?? 1,
            secondaryPHY: r.secondaryPHY ?? 0, sid: r.sid ?? 0xFF, txPower: r.txPower ?? 127, rssi: r.rssi ?? 127,
            data: Array(r.data))
    }
}

func feed(_ reports: [AdvertisingReport], into assembler: inout ReportAssembler) -> [AdvertisingReport] {
    reports.compactMap { assembler.add($0) }
}

@Suite("Report assembler")
struct ReportAssemblerTests {
    typealias F = Fragments

    @Test("fragments are joined per advertiser and advertising set, even interleaved")
    func reassemblesInterleavedChains() {
        var a = ReportAssembler()
        let out = feed(
            [
                F.more("AA:00:00:00:00:01", sid: 1, [1, 2]),
                F.more("BB:00:00:00:00:02", sid: 1, [9]),
                F.more("AA:00:00:00:00:01", sid: 2, [5]),
                F.more("AA:00:00:00:00:01", sid: 1, [3]),
                F.last("BB:00:00:00:00:02", sid: 1, [8]),
                F.last("AA:00:00:00:00:01", sid: 1, [4]),
                F.last("AA:00:00:00:00:01", sid: 2, [6]),
            ], into: &a)
        #expect(out.map(\.address.description) == ["BB:00:00:00:00:02", "AA:00:00:00:00:01", "AA:00:00:00:00:01"])
        #expect(out.map(\.data) == [[9, 8], [1, 2, 3, 4], [5, 6]])
        #expect(out.map(\.sid) == [1, 1, 2])
        #expect(out.allSatisfy { $0.dataStatus == .complete })
        #expect(a.pendingCount == 0 && a.dropped == 0)
    }

    @Test("legacy reports and single complete extended reports pass through unchanged")
    func passThrough() {
        var a = ReportAssembler()
        let legacy = F.legacy("CC:00:00:00:00:03", [2, 1, 6])
        let single = F.last("DD:00:00:00:00:04", sid: nil, [7, 7])
        #expect(a.add(legacy) == legacy)
        #expect(a.add(single) == single)
    }

    @Test("a truncated final fragment drops its chain: nothing partial comes out")
    func truncatedDropsChain() {
        var a = ReportAssembler()
        let out = feed(
            [
                F.more("AA:00:00:00:00:01", sid: 1, [1]),
                F.truncated("AA:00:00:00:00:01", sid: 1, [2]),
                F.last("AA:00:00:00:00:01", sid: 1, [3]),  // a new, one-fragment advertisement
            ], into: &a)
        #expect(out.map(\.data) == [[3]])
        #expect(a.dropped == 1 && a.pendingCount == 0)
    }

    @Test("a chain longer than 1650 bytes is dropped whole, including its later fragments")
    func lengthBound() {
        var a = ReportAssembler()
        let big = [UInt8](repeating: 0x55, count: 250)
        var reports = (0..<7).map { _ in F.more("AA:00:00:00:00:01", sid: 1, big) }  // 1750 bytes
        reports.append(F.last("AA:00:00:00:00:01", sid: 1, [0xEE]))
        reports.append(F.last("AA:00:00:00:00:01", sid: 1, [0x01]))  // the next advertisement is whole again
        let out = feed(reports, into: &a)
        #expect(out.map(\.data) == [[0x01]])
        #expect(a.dropped >= 1)
        #expect(a.pendingCount == 0)
        // Exactly at the bound is fine.
        var b = ReportAssembler()
        let exact = feed(
            (0..<6).map { _ in F.more("AA:00:00:00:00:01", sid: 1, big) } + [
                F.last("AA:00:00:00:00:01", sid: 1, [UInt8](repeating: 1, count: 150))
            ], into: &b)
        #expect(exact.map(\.data.count) == [ReportAssembler.maxLength])
    }

    @Test("at most maxPending chains are held; an evicted chain never comes out partial")
    func pendingBound() {
        var a = ReportAssembler(maxPending: 2)
        let out = feed(
            [
                F.more("AA:00:00:00:00:01", sid: 1, [1]),
                F.more("AA:00:00:00:00:02", sid: 1, [2]),
                F.more("AA:00:00:00:00:03", sid: 1, [3]),  // evicts :01
                F.last("AA:00:00:00:00:01", sid: 1, [11]),  // tail of the evicted chain: dropped
                F.last("AA:00:00:00:00:02", sid: 1, [22]),
                F.last("AA:00:00:00:00:03", sid: 1, [33]),
            ], into: &a)
        #expect(a.pendingCount == 0)
        #expect(out.map(\.data) == [[2, 22], [3, 33]])
        #expect(a.dropped >= 1)
        for i in 0..<1000 {
            _ = a.add(F.more(BDAddress(rawValue: UInt64(i)).description, sid: 0, [1]))
            #expect(a.pendingCount <= 2)
        }
    }

    /// STYLE.md #15: the same reports fed as the controller's events, one report per event, and as
    /// many reports per event as fit, must give identical advertisements.
    @Test("verifier: whole, split and back-to-back events give identical advertisements")
    func verifier() {
        var rng = SplitMix64(state: 42)
        var reports: [AdvertisingReport] = []
        var expected: [[UInt8]] = []
        for i in 0..<200 {
            let address = "AA:00:00:00:00:\(String(format: "%02X", i % 7))"
            if i % 5 == 0 {
                let d = (0..<Int.random(in: 0...31, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                reports.append(F.legacy(address, d))
                expected.append(d)
            } else {
                // A chain of 1–4 fragments, each ≤ 60 bytes, so that several fit one event.
                let parts = (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                    (0..<Int.random(in: 0...60, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                }
                for (j, p) in parts.enumerated() {
                    reports.append(j == parts.count - 1 ? F.last(address, sid: 3, p) : F.more(address, sid: 3, p))
                }
                expected.append(parts.flatMap { $0 })
            }
        }
        let whole = Self.events(reports, maxPerEvent: 3)
        let split = Self.events(reports, maxPerEvent: 1)
        let backToBack = Self.events(reports, maxPerEvent: .max)
        #expect(split.count == reports.count && whole.count < split.count && backToBack.count < whole.count)
        let outputs = [whole, split, backToBack].map { events -> [AdvertisingReport] in
            var a = ReportAssembler()
            return events.flatMap { e -> [AdvertisingReport] in
                guard case .success(.advertisingReports(let r)) = HCIEvent.parse(e) else {
                    Issue.record("event did not parse: \(Hex.encode(e))")
                    return []
                }
                return feed(Array(r), into: &a)
            }
        }
        #expect(outputs[0].map { Array($0.data) } == expected)
        #expect(outputs[1] == outputs[0])
        #expect(outputs[2] == outputs[0])
    }

    /// Encodes reports into LE Meta events: runs of one kind (legacy or extended), at most
    /// `maxPerEvent` reports and 255 parameter bytes per event.
    static func events(_ reports: [AdvertisingReport], maxPerEvent: Int) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var run: [AdvertisingReport] = []
        func encode(_ rs: [AdvertisingReport]) -> [UInt8] {
            rs[0].isExtended ? SpecEvents.extended(rs.map(Fragments.spec)) : encodeLegacy(rs)
        }
        func size(_ rs: [AdvertisingReport]) -> Int {
            2 + rs.reduce(0) { $0 + ($1.isExtended ? 24 : 10) + $1.data.count }
        }
        for r in reports {
            if let first = run.first,
                first.isExtended != r.isExtended || run.count == maxPerEvent || size(run + [r]) > 255
            {
                out.append(encode(run))
                run = []
            }
            run.append(r)
        }
        if !run.isEmpty { out.append(encode(run)) }
        return out
    }
}

extension ReportAssemblerTests {
    @Test("maxPending 0 is taken as 1, not a crash")
    func zeroPending() {
        var a = ReportAssembler(maxPending: 0)
        #expect(a.maxPending == 1)
        #expect(a.add(F.more("AA:00:00:00:00:01", sid: 1, [1])) == nil)
        #expect(a.add(F.more("AA:00:00:00:00:02", sid: 1, [2])) == nil)
        #expect(a.add(F.last("AA:00:00:00:00:02", sid: 1, [3]))?.data == [2, 3])
    }
}
