import SensorDecode
import Testing

/// Dispatch by selector (which decoders the registry runs for an advertisement, and how often),
/// its size, its statistics, and the standard registry over every peer record.
@Suite struct RegistryTests {
    /// Reports every call as a reading whose model is the decoder's name, so a test sees who ran.
    struct Probe: SensorDecoder {
        let id: String
        let selectors: [Selector]
        var outcome: DecodeOutcome? = nil
        func decode(_ ad: Advertisement) -> DecodeOutcome {
            outcome ?? .reading(ad.reading(decoder: id, model: id))
        }
    }

    static let registry = Registry([
        Probe(id: "len9", selectors: [.manufacturerLength(9)]),
        Probe(id: "acme", selectors: [.manufacturer(company: 0x1234), .manufacturerLength(4)]),
        Probe(id: "fe95", selectors: [.serviceData(uuid16: 0xFE95), .serviceData(uuid16: 0x181A)]),
        Probe(id: "name", selectors: [.localName("ABC"), .localName("")]),
        Probe(id: "never", selectors: [.manufacturerLength(255), .manufacturerLength(1)]),
    ])

    static func ran(_ hex: String) -> [String] {
        registry.decode(Advertisement(address: BDAddress(rawValue: 1), data: Hex.decode(hex)!)).readings.map(\.model)
    }

    @Test func manufacturerLengthSelectsExactlyThatLength() {
        #expect(Self.ran("0aff 010203040506070809") == ["len9"])  // 9-byte value
        #expect(Self.ran("09ff 0102030405060708") == [])  // 8
        #expect(Self.ran("0bff 01020304050607080900") == [])  // 10
    }

    @Test func eachDecoderRunsOnceInListOrderWhateverMatchesIt() {
        // Company 0x1234 with a 4-byte value matches "acme" twice; service data both its UUIDs.
        #expect(Self.ran("0416 95fe00 05ff 34120000 0416 1a1800") == ["acme", "fe95"])
        #expect(Self.ran("05ff 01020304 0aff 3412000000000000 00") == ["len9", "acme"])
    }

    @Test func localNameSelectsThatNameExactlyTheCompleteOneWinning() {
        #expect(Self.ran("0409 414243") == ["name"])
        #expect(Self.ran("0408 414243") == ["name"])  // a shortened name counts too
        #expect(Self.ran("0109") == ["name"])  // an empty name
        #expect(Self.ran("0409 414244") == [])
        #expect(Self.ran("0409 616263") == [])  // another case is another name
        #expect(Self.ran("0408 414243 0609 4142434445") == [])
        #expect(Self.ran("0608 4142434445 0409 414243") == ["name"])
        // A manufacturer structure whose value is those bytes is not a name.
        #expect(Self.ran("04ff 414243") == [])
    }

    @Test func noSelectedDataRunsNoDecoder() {
        #expect(Self.ran("020106") == [])
        #expect(Self.ran("") == [])
        #expect(Self.ran("0416 aaaa00 04ff 351200") == [])
    }

    @Test func structuresPastTheFourthOfAKindAreSeenByDispatchAndDecoders() {
        // A Ruuvi frame as the sixth manufacturer structure, a Minew frame as the sixth service
        // data: both decoded, the same as when each is alone.
        let ruuvi = "1bff 9904 0512fc5394c37c0004fffc040cac364200cdcbb8334c884f"
        let minew = "1016 e1ff a10164ff8032006655443322 11"
        let junkMakers = String(repeating: "04ff 3412 00 ", count: 5)
        let junkServices = String(repeating: "0516 0a18 0000 ", count: 5)
        let registry = Registry.standard()
        for (alone, crowded) in [(ruuvi, junkMakers + ruuvi), (minew, junkServices + minew)] {
            let address = BDAddress(rawValue: 0x11_2233_4455)
            let one = registry.decode(Advertisement(address: address, data: Hex.decode(alone)!)).readings
            let ad = Advertisement(address: address, data: Hex.decode(crowded)!)
            #expect(one.count == 1)
            #expect(registry.decode(ad).readings.map(\.measurements) == one.map(\.measurements), "\(crowded)")
            #expect(ad.fields.manufacturerData.count + ad.fields.serviceData.count == 6)
        }
    }

    /// Hundreds of decoders, three companies and a service UUID each: every key reaches its
    /// decoder and only it, and a key nobody registered reaches none.
    @Test func twoHundredFiftyDecodersEachReachedByItsOwnKeys() {
        let count = 250
        let companies = (0..<count).map { d in (0..<3).map { UInt16(truncatingIfNeeded: (d * 3 + $0) &* 7919) } }
        let registry = Registry(companies.enumerated().map { d, keys in
            Probe(id: "d\(d)", selectors: keys.map { .manufacturer(company: $0) } + [.serviceData(uuid16: UInt16(0x8000 + d))])
        })
        #expect(registry.decoders.count == count)
        func ran(_ data: [UInt8]) -> [String] {
            registry.decode(Advertisement(address: BDAddress(rawValue: 1), data: data)).readings.map(\.model)
        }
        for (d, keys) in companies.enumerated() {
            for key in keys { #expect(ran([4, 0xFF, UInt8(key & 0xFF), UInt8(key >> 8), 0x00]) == ["d\(d)"], "company \(key)") }
            let uuid = UInt16(0x8000 + d)
            #expect(ran([3, 0x16, UInt8(uuid & 0xFF), UInt8(uuid >> 8)]) == ["d\(d)"], "uuid \(uuid)")
        }
        let registered = Set(companies.joined())
        for key in (0...UInt16.max).lazy.filter({ !registered.contains($0) }).prefix(2_000) {
            #expect(ran([4, 0xFF, UInt8(key & 0xFF), UInt8(key >> 8), 0x00]).isEmpty, "company \(key)")
        }
    }

    @Test func statisticsCountEachOutcomePerDecoder() {
        let registry = Registry([
            Probe(id: "yes", selectors: [.manufacturer(company: 1)]),
            Probe(id: "no", selectors: [.manufacturer(company: 1), .manufacturer(company: 2)], outcome: .notMine),
            Probe(id: "bad", selectors: [.manufacturer(company: 2)], outcome: .malformed("corrupt")),
            Probe(id: "idle", selectors: [.manufacturer(company: 3)]),
        ])
        var statistics = DecoderStatistics()
        for company: UInt8 in [1, 1, 2, 9] {
            _ = registry.decode(Advertisement(address: BDAddress(rawValue: 1), data: [3, 0xFF, company, 0]), counting: &statistics)
        }
        #expect(statistics["yes"].decoded == 2 && statistics["yes"].runs == 2)
        #expect(statistics["no"].notMine == 3 && statistics["no"].runs == 3)
        #expect(statistics["bad"].malformed == 1 && statistics["bad"].runs == 1)
        #expect(statistics["idle"].runs == 0)
        #expect(statistics.lines == [
            "yes: 2 decoded, 0 not mine, 0 malformed", "no: 0 decoded, 3 not mine, 0 malformed",
            "bad: 0 decoded, 0 not mine, 1 malformed",
        ])
    }

    @Test func malformedOutcomesAreReportedWithTheirDecoderAndReadingsKept() {
        let registry = Registry([
            Probe(id: "bad", selectors: [.manufacturer(company: 1)], outcome: .malformed("corrupt")),
            Probe(id: "good", selectors: [.manufacturer(company: 1)]),
        ])
        let result = registry.decode(Advertisement(address: BDAddress(rawValue: 1), data: [3, 0xFF, 1, 0]))
        #expect(result.malformed == [Registry.Malformed(decoder: "bad", reason: "corrupt")])
        #expect(result.readings.map(\.model) == ["good"])
    }

    @Test func standardRegistryListsEachDecoderOnce() {
        let ids = Registry.standard().decoders.map(\.id)
        #expect(ids.count >= 17)  // issue 24's 17 and the families added since (DecoderTableTests: one README row each)
        #expect(Set(ids).count == ids.count)
    }

    /// No record of the 362 — most of them other vendors' devices — makes a decoder of the
    /// families whose vectors are all well-formed report `malformed`: a stranger's frame is "not
    /// mine", never an error.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func noPeerRecordIsMalformedForStrangers() {
        let families: Set<String> = ["bthome", "xiaomi_181a", "xiaomi_mibeacon", "qingping", "eddystone_tlm", "ibeacon"]
        let registry = Registry.standard()
        for v in PeerVector.all {
            let result = registry.decode(Advertisement(address: v.address, data: v.adBytes))
            for m in result.malformed where families.contains(m.decoder) {
                Issue.record("\(v): \(m.decoder) says malformed: \(m.reason)")
            }
        }
    }

    /// The family vectors give the same values through the whole registry as through the decoder
    /// alone (no other decoder claims their data with different numbers).
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func familyVectorsThroughTheRegistry() {
        let formats: Set<String> = [
            "bthome_v1", "bthome_v2_fcd2", "xiaomi_181a_atc1441", "xiaomi_181a_pvvx", "xiaomi_mibeacon_fe95",
            "qingping_fdcd",
        ]
        for v in PeerVector.forFormats(formats) {
            var decoded = v.decodedValues(.standard())
            if let hpa = decoded["pressure_hpa"] { decoded["pressure_pa"] = hpa * 100 }
            let excluded = XiaomiMiBeaconTests.notInFrame.first { v.locator.hasPrefix($0.key) }?.value.keys ?? []
            expectMatches(v, decoded, ignoring: excluded.union(["rssi_dbm"]))
        }
    }
}
