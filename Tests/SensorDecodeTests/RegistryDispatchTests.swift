import SensorDecode
import TestSupport
import Testing

/// Dispatch by selector: which decoders the registry runs for an advertisement, and how often.
@Suite struct RegistryDispatchTests {
    /// Reports every call as a reading whose model is the decoder's name, so a test sees who ran.
    struct Probe: SensorDecoder {
        var id: StaticString { "probe" }
        let name: String
        let selectors: [DecoderSelector]
        init(id name: String, selectors: [DecoderSelector]) {
            self.name = name
            self.selectors = selectors
        }
        func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
            readings.begin(ad, decoderID: id, model: "?")
            readings.setModel(name)
            return .decoded
        }
    }

    static let registry = Registry([
        Probe(id: "len9", selectors: [.manufacturerValueLength(9)]),
        Probe(id: "acme", selectors: [.manufacturer(0x1234), .manufacturerValueLength(4)]),
        Probe(id: "fe95", selectors: [.serviceData16(0xFE95), .serviceData16(0x181A)]),
        Probe(id: "anyM", selectors: [.anyManufacturer]),
        Probe(id: "all", selectors: [.any]),
        Probe(id: "name3", selectors: [.localNameLength(3), .localNameLength(0)]),
        Probe(id: "never", selectors: [.manufacturerValueLength(255), .manufacturerValueLength(1)]),
    ])

    static func ran(_ hex: String) -> [String] {
        registry.decode(Advertisement(address: BDAddress(rawValue: 1), data: Hex.decode(hex)!)).readings.map(\.model)
    }

    @Test func valueLengthSelectsExactlyThatLength() {
        #expect(Self.ran("0aff 010203040506070809") == ["len9", "anyM", "all"])  // 9-byte value
        #expect(Self.ran("09ff 0102030405060708") == ["anyM", "all"])  // 8
        #expect(Self.ran("0bff 01020304050607080900") == ["anyM", "all"])  // 10
    }

    @Test func eachDecoderRunsOnceInListOrderWhateverMatchesIt() {
        // Company 0x1234 with a 4-byte value matches "acme" twice; service data both its UUIDs.
        #expect(Self.ran("05ff 34120000 0416 95fe00 0416 1a1800") == ["acme", "fe95", "anyM", "all"])
        #expect(Self.ran("0aff 3412000000000000 00 05ff 01020304") == ["len9", "acme", "anyM", "all"])
    }

    @Test func companyAndLengthSelectOnlyWhenOneStructureHasBoth() {
        let registry = Registry([
            Probe(id: "both", selectors: [
                .manufacturerWithValueLength(company: 0x0001, length: 4),
                .manufacturerWithValueLength(company: 0x0002, length: 6),
            ]),
            Probe(id: "co1", selectors: [.manufacturer(0x0001)]),
        ])
        func ran(_ hex: String) -> [String] {
            let ad = Advertisement(address: BDAddress(rawValue: 1), data: Hex.decode(hex)!)
            return registry.decode(ad).readings.map(\.model)
        }
        #expect(ran("05ff 0100 aabb") == ["both", "co1"])  // company 1, 4 bytes
        #expect(ran("07ff 0200 aabbccdd") == ["both"])  // company 2, 6 bytes
        #expect(ran("07ff 0100 aabbccdd") == ["both", "co1"])  // any pairing of the two lists
        #expect(ran("06ff 0100 aabbcc") == ["co1"])  // company 1, 5 bytes: not "both"
        #expect(ran("05ff 0300 aabb") == [])  // 4 bytes, another company
        // The company in one structure and the length in another do not make a match.
        #expect(ran("06ff 0100 aabbcc 05ff 0300 aabb") == ["co1"])
    }

    @Test func nameLengthSelectsExactlyThatLengthOfTheNameThatCounts() {
        #expect(Self.ran("0409 414243") == ["all", "name3"])
        #expect(Self.ran("0408 414243") == ["all", "name3"])  // a shortened name counts too
        #expect(Self.ran("0109") == ["all", "name3"])  // an empty name: length 0
        #expect(Self.ran("0509 41424344") == ["all"])
        #expect(Self.ran("0309 4142") == ["all"])
        // The complete name wins over a shortened one, as everywhere.
        #expect(Self.ran("0408 414243 0609 4142434445") == ["all"])
        #expect(Self.ran("0608 4142434445 0409 414243") == ["all", "name3"])
        // A manufacturer structure whose value is 3 bytes is not a name.
        #expect(Self.ran("04ff 010203") == ["anyM", "all"])
    }

    @Test func structuresPastTheFourthOfAKindAreSeenByDispatchAndDecoders() {
        // The walk keeps four structures of a kind in the view's index; the registry walks the
        // rest into an overflow it keeps for the decode. A Ruuvi frame as the sixth manufacturer
        // structure, a Minew frame as the sixth service data: both decoded, from a header and
        // bytes as from an `AdvertisingData`, the same as when each is alone.
        let ruuvi = "1bff 9904 0512fc5394c37c0004fffc040cac364200cdcbb8334c884f"
        let minew = "1016 e1ff a10164ff8032006655443322 11"
        let junkMakers = String(repeating: "04ff 3412 00 ", count: 5)
        let junkServices = String(repeating: "0516 0a18 0000 ", count: 5)
        let registry = Registry.standard()
        for (alone, crowded) in [(ruuvi, junkMakers + ruuvi), (minew, junkServices + minew)] {
            let address = BDAddress(rawValue: 0x11_2233_4455)
            let one = registry.decode(Advertisement(address: address, data: Hex.decode(alone)!)).readings
            let bytes = Hex.decode(crowded)!
            let viaBytes = registry.decode(Advertisement(address: address, data: bytes)).readings
            let parsed = AdvertisingData(parsing: bytes)
            let viaParsed = registry.decode(Advertisement(address: address, data: bytes), parsed).readings
            #expect(one.count == 1)
            #expect(viaBytes.map(\.measurements) == one.map(\.measurements), "\(crowded)")
            #expect(viaParsed.map(\.measurements) == one.map(\.measurements), "\(crowded)")
            #expect(parsed.manufacturerData.count + parsed.serviceData.count == 6)
        }
    }

    /// The registry chooses decoders two ways: from a header and bytes, as the walk records each
    /// entry (replay, the live scanner), and from an already walked `AdvertisingData` (tools).
    /// Random advertisements built of the structures decoders look at must get the same readings
    /// and the same malformed reasons both ways.
    @Test func bytesAndParsedDataChooseTheSameDecoders() {
        var rng = SplitMix64(state: 0xD15_9A7C)
        let keys = DeviceKeys([BDAddress(rawValue: 0xA4C1_388D_18B2): Array(repeating: 0x11, count: 16)])
        let registry = Registry.standard(keys: keys)
        let uuids: [UInt16] = [0xFCD2, 0x181C, 0x181A, 0xFE95, 0xFDCD, 0xFEAA, 0xFFE1, 0xFD3D, 0x0D00, 0x1234]
        let companies: [UInt16] = [0xEC88, 0x0001, 0x8801, 0x0499, 0x2449, 0x0000, 0x0002, 0x004C, 0x0969, 0x1234]
        var decoded = 0
        for _ in 0..<20_000 {
            var data: [UInt8] = []
            for _ in 0..<Int.random(in: 1...7, using: &rng) {
                let value = rng.bytes(maxLength: 22)
                switch Int.random(in: 0..<5, using: &rng) {
                case 0:
                    let u = uuids.randomElement(using: &rng)!
                    data += [UInt8(value.count + 3), 0x16, UInt8(u & 0xFF), UInt8(u >> 8)] + value
                case 1:
                    let c = companies.randomElement(using: &rng)!
                    data += [UInt8(value.count + 3), 0xFF, UInt8(c & 0xFF), UInt8(c >> 8)] + value
                case 2:
                    let type: UInt8 = [0x08, 0x09].randomElement(using: &rng)!
                    data += [UInt8(min(value.count, 12) + 1), type] + value.prefix(12)
                case 3: data += [UInt8(value.count + 1), 0xFF] + value  // data where the company should be
                default: data += [UInt8(value.count + 1), UInt8.random(in: 0...255, using: &rng)] + value
                }
            }
            if Int.random(in: 0..<8, using: &rng) == 0 { data.removeLast(Int.random(in: 0...data.count, using: &rng)) }
            let ad = Advertisement(address: BDAddress(rawValue: 0xA4C1_388D_18B2), rssi: -60, data: data)
            let fromBytes = registry.decode(ad)
            let fromParsed = registry.decode(ad, AdvertisingData(parsing: data))
            #expect(fromBytes.readings == fromParsed.readings, "\(Hex.encode(data))")
            #expect(fromBytes.malformed.map(\.reason) == fromParsed.malformed.map(\.reason), "\(Hex.encode(data))")
            if !fromBytes.readings.isEmpty { decoded += 1 }
        }
        #expect(decoded > 500)  // the structures reached the decoders, not only the walk (689)
    }

    @Test func noDataMeansOnlyTheAlwaysDecoders() {
        #expect(Self.ran("020106") == ["all"])
        #expect(Self.ran("") == ["all"])
    }

    @Test func everyRegisteredKeyFindsItsDecoderAndNoOtherKeyFindsAny() {
        // 64 decoders, three companies each: enough keys to collide in the lookup table.
        let companies = (0..<64).map { d in (0..<3).map { UInt16(truncatingIfNeeded: (d * 3 + $0) &* 7919) } }
        let registry = Registry(companies.enumerated().map { d, keys in
            Probe(id: "d\(d)", selectors: keys.map { .manufacturer($0) })
        })
        #expect(registry.decoders.count == Registry.maxDecoders)
        func ran(_ company: UInt16) -> [String] {
            let data: [UInt8] = [4, 0xFF, UInt8(company & 0xFF), UInt8(company >> 8), 0x00]
            return registry.decode(Advertisement(address: BDAddress(rawValue: 1), data: data)).readings.map(\.model)
        }
        for (d, keys) in companies.enumerated() {
            for key in keys { #expect(ran(key) == ["d\(d)"], "company \(key)") }
        }
        let registered = Set(companies.joined())
        for key in (0...UInt16.max).lazy.filter({ !registered.contains($0) }).prefix(5_000) {
            #expect(ran(key).isEmpty, "company \(key)")
        }
    }
}
