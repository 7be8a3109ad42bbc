import TestSupport
import AdvScanner
import Foundation
import SensorDecode
import Testing

/// Re-encodes legacy reports the way the specification lays them out (report after report).
func encodeLegacy(_ reports: [AdvertisingReport]) -> [UInt8] {
    SpecEvents.legacy(
        reports.map {
            SpecEvents.Legacy(
                eventType: UInt8($0.eventType), addressType: $0.addressType, address: $0.address, data: Array($0.data),
                rssi: $0.rssi ?? 127)
        })
}

@Suite("HCI event parsing")
struct HCIEventTests {
    @Test("a legacy event with three reports gives all three, every field in place")
    func legacyThreeReports() {
        guard case .success(.advertisingReports(let r)) = HCIEvent.parse(SamplePackets.legacyThree) else {
            Issue.record("not parsed: \(HCIEvent.parse(SamplePackets.legacyThree))")
            return
        }
        #expect(r.count == 3)
        #expect(r.map(\.eventType) == [0x00, 0x03, 0x04])
        #expect(r.map(\.addressType) == [0x01, 0x00, 0x01])
        #expect(r.map(\.address.description) == ["A4:C1:38:EC:0B:03", "11:22:33:44:55:66", "C0:FF:EE:00:00:01"])
        #expect(
            r.map(\.data) == [[0x02, 0x01, 0x06, 0x03, 0xFF, 0x88, 0xEC], [], [0x05, 0x09, 0x41, 0x42, 0x43, 0x44]])
        #expect(r.map(\.rssi) == [-60, -60, -90])
        #expect(r.allSatisfy { !$0.isExtended && $0.dataStatus == .complete })
    }

    @Test("an extended event with two reports gives both, with PHYs, SID, TX power and RSSI")
    func extendedTwoReports() {
        guard case .success(.advertisingReports(let r)) = HCIEvent.parse(SamplePackets.extendedTwo) else {
            Issue.record("not parsed")
            return
        }
        #expect(r.count == 2)
        #expect(r.map(\.address.description) == ["D0:00:00:00:00:01", "D0:00:00:00:00:02"])
        #expect(r.map(\.sid) == [1, 3])
        #expect(r.map(\.secondaryPHY) == [nil, 2])
        #expect(r.map(\.primaryPHY) == [1, 1])
        #expect(r.map(\.txPower) == [nil, nil])  // 127 = not available
        #expect(r.map(\.rssi) == [-70, -70])
        #expect(r.map(\.data.count) == [3, 40])
        #expect(r.allSatisfy { $0.isExtended })
    }

    @Test("an extended report's data status (bits 5–6) is read: complete, more to come, truncated")
    func extendedDataStatus() {
        let a = BDAddress("D0:00:00:00:00:09")!
        let event = SpecEvents.extended([
            .init(eventType: 0x0000, address: a, data: [1]),
            .init(eventType: 0x0020, address: a, data: [2]),
            .init(eventType: 0x0040, address: a, data: [3]),
        ])
        guard case .success(.advertisingReports(let r)) = HCIEvent.parse(event) else {
            Issue.record("not parsed")
            return
        }
        #expect(r.map(\.dataStatus) == [.complete, .moreToCome, .truncated])
    }

    @Test("the H4 indicator is optional; other indicators are not events")
    func h4Forms() {
        let plain = HCIEvent.parse(SamplePackets.legacyOne)
        #expect(HCIEvent.parse(h4: [0x04] + SamplePackets.legacyOne) == plain)
        #expect(HCIEvent.parse(h4: SamplePackets.legacyOne) == plain)
        #expect(HCIEvent.parse(h4: [0x02, 0x40, 0x20]) == .failure(.notAnEvent(indicator: 0x02)))
        #expect(HCIEvent.parse(h4: []) == .failure(.empty))
    }

    @Test(
        "an event cut at every length is an error value",
        arguments: [SamplePackets.legacyThree, SamplePackets.extendedTwo])
    func truncatedEverywhere(_ event: [UInt8]) {
        for n in 0..<event.count {
            guard case .failure = HCIEvent.parse(Array(event.prefix(n))) else {
                Issue.record("cut at \(n) of \(event.count) parsed")
                continue
            }
        }
    }

    @Test("a parameter length that disagrees with the bytes is rejected")
    func lengthMismatch() {
        var e = SamplePackets.legacyOne
        e[1] &+= 1
        #expect(HCIEvent.parse(e) == .failure(.lengthMismatch(declared: Int(e[1]), actual: e.count - 2)))
    }

    @Test("num_reports that lies (more, fewer, zero) is an error, not a partial result")
    func lyingReportCount() {
        var more = SamplePackets.legacyThree
        more[3] = 4
        guard case .failure(.badReport(_, let index, _)) = HCIEvent.parse(more) else {
            Issue.record("4 of 3 parsed")
            return
        }
        #expect(index == 3)

        var fewer = SamplePackets.legacyThree
        fewer[3] = 2
        guard case .failure(.trailingBytes(_, let count)) = HCIEvent.parse(fewer) else {
            Issue.record("2 of 3 parsed")
            return
        }
        #expect(count == 6 + 9 + 1)  // the third report: header 9, data 6, RSSI 1

        var zero = SamplePackets.legacyOne
        zero[3] = 0
        guard case .failure = HCIEvent.parse(zero) else {
            Issue.record("0 reports parsed")
            return
        }

        var extendedMore = SamplePackets.extendedTwo
        extendedMore[3] = 3
        guard case .failure = HCIEvent.parse(extendedMore) else {
            Issue.record("3 of 2 extended parsed")
            return
        }
    }

    @Test("a data length past the end of the event, or above 31 in a legacy report, is rejected")
    func dataLengthPastEnd() {
        // legacyOne: 3E len 02 01 | type addrtype addr(6) | data_len at offset 12
        var past = SamplePackets.legacyOne
        past[12] = 30
        guard case .failure(.badReport(_, 0, let why)) = HCIEvent.parse(past) else {
            Issue.record("parsed")
            return
        }
        #expect(why.contains("runs past"))

        let big = SpecEvents.legacy([.init(address: BDAddress(rawValue: 1), data: [UInt8](repeating: 0, count: 32))])
        guard case .failure(.badReport(_, 0, let why2)) = HCIEvent.parse(big) else {
            Issue.record("parsed")
            return
        }
        #expect(why2.contains("> 31"))

        var extendedPast = SamplePackets.extendedTwo
        // First extended report's data length: code, length, subevent, count, then 23 fixed bytes → offset 27.
        extendedPast[27] = 200
        guard case .failure = HCIEvent.parse(extendedPast) else {
            Issue.record("parsed")
            return
        }
    }

    @Test("events with more reports than are held inline give every report, in order", arguments: [1, 4, 5, 9, 12])
    func manyReports(n: Int) {
        // Four report positions are held; the rest are found by checking the event again.
        let legacy = (0..<n).map {
            SpecEvents.Legacy(address: BDAddress(rawValue: 0xC0FFEE_0000 + UInt64($0)), data: [2, 0x01, UInt8($0)], rssi: Int8(-$0))
        }
        // 24 bytes a report before its data: at most 10 fit in an event's 255 bytes of parameters.
        let extended = (0..<min(n, 10)).map {
            SpecEvents.Extended(
                address: BDAddress(rawValue: 0xBEEF_0000 + UInt64($0)), sid: UInt8($0), data: [UInt8](repeating: UInt8($0), count: $0 % 2))
        }
        for (packet, addresses, datas) in [
            (SpecEvents.legacy(legacy), legacy.map(\.address), legacy.map(\.data)),
            (SpecEvents.extended(extended), extended.map(\.address), extended.map(\.data)),
        ] {
            guard case .success(.advertisingReports(let reports)) = HCIEvent.parse(packet) else {
                Issue.record("not parsed: \(HCIEvent.parse(packet))")
                continue
            }
            #expect(reports.count == addresses.count)
            #expect(reports.map(\.address) == addresses)
            #expect(reports.map { Array($0.data) } == datas)
            #expect(reports.last?.address == addresses.last)  // read alone, past the window
        }
    }

    @Test("100,000 random and mutated packets: every one an error or a report list that re-encodes to itself, the capture shortcut agreeing")
    func randomPackets() {
        var rng = SplitMix64(state: 0x5EED_0001)
        let seeds = [
            SamplePackets.legacyThree, SamplePackets.legacyOne, SamplePackets.extendedTwo,
            [0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00],
        ]
        var parsed = 0
        var legacyOK = 0
        for i in 0..<100_000 {
            var p: [UInt8]
            switch i % 4 {
            case 0:  // pure noise, any length up to 300
                p = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            case 1:  // noise behind a plausible LE Meta header
                let body = (0..<Int.random(in: 0...255, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng)
                }
                p = [0x3E, UInt8(body.count), [0x02, 0x0D].randomElement(using: &rng)!] + body.dropFirst()
                if body.isEmpty { p = [0x3E, 0] }
            default:  // a valid event with 1–3 bytes changed, or cut, or extended
                p = seeds.randomElement(using: &rng)!
                for _ in 0..<Int.random(in: 1...3, using: &rng) where !p.isEmpty {
                    p[Int.random(in: 0..<p.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
                if Bool.random(using: &rng) { p = Array(p.prefix(Int.random(in: 0...p.count, using: &rng))) }
            }
            let result = HCIEvent.parse(p)
            guard case .success(let event) = result else { continue }
            parsed += 1
            if case .advertisingReports(let reports) = event {
                // The assembler's views (legacy reports read straight from the event) give the
                // advertisements that the reports, taken one by one through `add`, give.
                var viewed: [Advertisement] = []
                var viewing = ReportAssembler()
                viewing.forEachAdvertisement(in: reports, timeMicros: 7) { header, bytes in
                    viewed.append(Advertisement(header: header, data: bytes))
                }
                var adding = ReportAssembler()
                let added = reports.compactMap { adding.add($0)?.advertisement(timeMicros: 7) }
                #expect(viewed == added, "case \(i): \(Hex.encode(p))")
            }
            if case .advertisingReports(let reports) = event, p.count > 2, p[2] == 0x02 {
                // A legacy event that parses must be exactly its reports, nothing more or less.
                legacyOK += 1
                #expect(encodeLegacy(Array(reports)) == p, "case \(i): \(Hex.encode(p))")
            }
        }
        #expect(parsed < 100_000)
        #expect(legacyOK > 0)  // the property above was exercised
    }
}
