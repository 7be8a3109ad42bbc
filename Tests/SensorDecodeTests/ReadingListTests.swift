import SensorDecode
import TestSupport
import Testing

/// A result reused from one advertisement to the next (`Registry.decode(_:_:into:)`) must give
/// exactly what a fresh decode gives: nothing of an earlier advertisement's readings (warnings,
/// names, extra measurements, a sub-device) may show through a reused slot.
@Suite struct ReadingListTests {
    /// Minew frames that leave different things in a slot: a warning, a name in the frame, a local
    /// name, four measurements, one measurement, and a malformed frame.
    static let samples: [(address: UInt64, hex: String)] = [
        (0x1122_3344_5566, "10 16 e1ff a101 64 ff80 3200 665544332211"),
        (0x1122_3344_5566, "10 16 e1ff a101 64 ff80 3200 000000000000"),  // payload MAC differs: warning
        (0x1122_3344_5566, "13 16 e1ff a108 50 665544332211 4b69746368656e"),  // name in the frame
        (0x1122_3344_5566, "0e 16 e1ff a113 32 0a80 665544332211 05 09 506f7263"),  // local name
        (0x1122_3344_5566, "12 16 e1ff a103 64 0100 ff00 0080 665544332211"),  // four measurements
        (0x1122_3344_5566, "0d 16 e1ff a102 64 01 665544332211"),
        (0x1122_3344_5566, "10 16 e1ff a101 65 ff80 3200 665544332211"),  // battery 101 %: malformed
        (0x1122_3344_5566, "0201 06"),  // nothing to decode
    ]

    /// The samples, the peer vectors where the shared folder has them, and mutations of both.
    static func advertisements() -> [Advertisement] {
        var base = samples.map { Advertisement(address: BDAddress(rawValue: $0.address), rssi: -70, data: Hex.decode($0.hex)!) }
        base += PeerVector.all.map { Advertisement(address: $0.address, rssi: -60, data: $0.adBytes) }
        var rng = SplitMix64(state: 0x5107)
        var out = base
        for round in 0..<20 {
            for ad in base {
                var data = Array(ad.data)
                guard !data.isEmpty else { continue }
                switch rng.next() % 3 {
                case 0: data[Int(rng.next() % UInt64(data.count))] ^= UInt8(truncatingIfNeeded: 1 << (rng.next() % 8))
                case 1: data.removeLast(Int(rng.next() % UInt64(data.count)))
                default: data[Int(rng.next() % UInt64(data.count))] = UInt8(truncatingIfNeeded: rng.next())
                }
                // No RSSI now and then, and a time of its own: the envelope must not carry over either.
                let rssi: Int8? = round % 4 == 0 ? nil : Int8(-40 - round)
                out.append(Advertisement(address: ad.address, rssi: rssi, data: data, timeMicros: Int64(out.count)))
            }
        }
        // Shuffled, so that every kind of reading lands in a slot another kind used.
        for i in stride(from: out.count - 1, to: 0, by: -1) { out.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
        return out
    }

    @Test func aReusedResultGivesWhatAFreshDecodeGives() {
        let registry = Registry.standard()
        var reused = Registry.Result()
        var decoded = 0
        var malformed = 0
        for ad in Self.advertisements() {
            let fresh = registry.decode(ad)
            registry.decode(ad, into: &reused)
            #expect(Array(reused.readings) == Array(fresh.readings), "\(ad.address) \(Hex.encode(ad.data))")
            #expect(reused.malformed.map(\.reason) == fresh.malformed.map(\.reason))
            decoded += fresh.readings.isEmpty ? 0 : 1
            malformed += fresh.malformed.count
        }
        // Both kinds were reached, so slots were really reused across them. (The samples' mutations
        // alone decode 60 times; the peer vectors, where ../shared has them, add thousands.)
        #expect(decoded > 40)
        #expect(malformed > 10)
    }

    @Test func aReadingCopiedOutKeepsItsValuesWhenTheResultIsReused() throws {
        let registry = Registry.standard()
        let first = Advertisement(address: BDAddress(rawValue: 0x1122_3344_5566), data: Hex.decode(Self.samples[4].hex)!)
        let second = Advertisement(address: BDAddress(rawValue: 0x1122_3344_5566), data: Hex.decode(Self.samples[0].hex)!)
        var result = Registry.Result()
        registry.decode(first, into: &result)
        let kept = try #require(result.readings.first)
        registry.decode(second, into: &result)
        #expect(kept == registry.decode(first).readings.first)
        #expect(kept.measurements.count == 4)
        #expect(result.readings.first?.value(.temperatureC) == -0.5)
    }

    /// Begins a reading, then gives `verdict`.
    struct Quitter: SensorDecoder {
        let id: StaticString
        let verdict: DecodeVerdict
        var selectors: [DecoderSelector] { [.any] }
        func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
            readings.begin(ad, decoderID: id, model: id)
            readings.add(.batteryPercent, 1)
            return verdict
        }
    }

    @Test func readingsOfADecoderThatDoesNotSayDecodedAreDropped() {
        let registry = Registry([
            Quitter(id: "bad", verdict: .malformed("corrupt")),
            Quitter(id: "good", verdict: .decoded),
            Quitter(id: "other", verdict: .notMine),
        ])
        let ad = Advertisement(address: BDAddress(rawValue: 7), data: Hex.decode("0201 06")!)
        var result = Registry.Result()
        for _ in 0..<2 {  // the second time into a used result
            registry.decode(ad, into: &result)
            #expect(result.readings.map(\.decoderID) == ["good"])
            #expect(result.malformed.map(\.decoder) == ["bad"])
            #expect(registry.decoders[0].decode(ad, AdvertisingData(parsing: ad.data)) == .malformed("corrupt"))
        }
    }

    @Test func aNameFromTheRadioIsEscapedWhenRead() {
        let bell = DeferredText.radio([0x41, 0x07, 0x42, 0x5C][...])
        #expect(bell.text == "A\\x07B\\\\")
        #expect(bell == DeferredText("A\\x07B\\\\"))
        #expect(bell != DeferredText.radio([0x41, 0x07, 0x42][...]))
        #expect(DeferredText([0x01, 0x02][...], format: { Hex.encode($0) }).text == "0102")
        // Two different invalid UTF-8 bytes both read as U+FFFD: equal names.
        #expect(DeferredText.radio([0x41, 0xFF][...]) == DeferredText.radio([0x41, 0xFE][...]))
        var r = Reading(address: BDAddress(rawValue: 1), decoderID: "x", model: "x", measurements: [])
        r.nameText = bell
        #expect(r.name == "A\\x07B\\\\")
        r.name = "plain"
        #expect(r.nameText == DeferredText("plain"))
    }
}

extension ReadingListTests {
    @Test func theSamplesCarryTheNamesTheySay() {
        let registry = Registry.standard()
        func decoded(_ k: Int) -> Reading? {
            registry.decode(Advertisement(address: BDAddress(rawValue: Self.samples[k].address), data: Hex.decode(Self.samples[k].hex)!)).readings.first
        }
        #expect(decoded(2)?.name == "Kitchen")
        #expect(decoded(3)?.name == "Porc")
        #expect(decoded(3)?.value(.temperatureC) == 10.5)
    }

    @Test func takeEachMovesTheReadingsOutAndTheSlotsStayUsable() {
        let registry = Registry.standard()
        var result = Registry.Result()
        var taken: [Reading] = []
        var fresh: [Reading] = []
        for ad in Self.advertisements() {
            registry.decode(ad, into: &result)
            result.readings.takeEach { taken.append($0) }
            #expect(result.readings.isEmpty)
            fresh += registry.decode(ad).readings
        }
        #expect(taken == fresh)
        #expect(taken.count > 40)  // as above: the samples alone give 60
    }

    /// Adds without beginning, after another decoder's reading.
    struct Intruder: SensorDecoder {
        var id: StaticString { "intruder" }
        var selectors: [DecoderSelector] { [.any] }
        func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
            readings.add(.co2PPM, 999)
            return .notMine
        }
    }

    @Test func aDecoderCannotAddToAnotherDecodersReading() async {
        await #expect(processExitsWith: .failure) {
            let registry = Registry([Quitter(id: "good", verdict: .decoded), Intruder()])
            _ = registry.decode(Advertisement(address: BDAddress(rawValue: 7), data: Hex.decode("0201 06")!))
        }
    }
}

/// What decoders give readings at run time (a name the frame carries, an identity, a model name),
/// kept as copied bytes in the readings' heads or as words apart (`ReadingList.RunTimeTexts`), must
/// reach the right reading, go with a reading that is dropped, and never keep the buffer an
/// advertisement came in.
extension ReadingListTests {
    /// Begins a plain reading and one with every run-time text, then gives `verdict`.
    struct Namer: SensorDecoder {
        let id: StaticString
        let verdict: DecodeVerdict
        var selectors: [DecoderSelector] { [.any] }
        func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
            readings.begin(ad, decoderID: id, model: "plain")
            readings.add(.batteryPercent, 1)
            readings.begin(
                ad, decoderID: id, model: "literal", frameKind: "literal", name: ad.bytes.extracting(0..<2))
            readings.setFrameKind(copying: ad.bytes.extracting(1..<3), format: { Hex.encode($0) })
            readings.setModel("model \(id)")
            readings.add(.batteryPercent, 2)
            return verdict
        }
    }

    @Test func runTimeTextsReachTheirReadingsAndGoWithDroppedOnes() {
        let registry = Registry([
            Namer(id: "a", verdict: .decoded), Namer(id: "b", verdict: .notMine), Namer(id: "c", verdict: .decoded),
        ])
        let ad = Advertisement(address: BDAddress(rawValue: 7), data: Hex.decode("4142 43 0309 5859")!)
        var result = Registry.Result()
        for _ in 0..<2 {  // the second time into a used result
            registry.decode(ad, into: &result)
            let readings = Array(result.readings)
            #expect(readings.map(\.decoderID) == ["a", "a", "c", "c"])
            #expect(readings.map(\.model) == ["plain", "model a", "plain", "model c"])
            #expect(readings.map(\.name) == [nil, "AB", nil, "AB"])
            #expect(readings.map(\.frameKind) == [nil, "4243", nil, "4243"])
            #expect(readings.map { $0.value(.batteryPercent) } == [1, 2, 1, 2])
        }
        // A plain reading in a used result shows nothing of the run-time texts before it.
        let plainOnly = Registry([Quitter(id: "q", verdict: .decoded)])
        plainOnly.decode(ad, into: &result)
        #expect(result.readings.map(\.model) == ["q"])
        #expect(result.readings.map(\.frameKind) == [nil])
    }

    /// Gives its reading a frame kind in words and one as copied bytes, in the order `copyLast` says.
    struct TwoFrameKinds: SensorDecoder {
        let id: StaticString
        let copyLast: Bool
        var selectors: [DecoderSelector] { [.any] }
        func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
            readings.begin(ad, decoderID: id, model: "m")
            if copyLast { readings.setFrameKind("words") }
            readings.setFrameKind(copying: ad.bytes.extracting(0..<2), format: { Hex.encode($0) })
            if !copyLast { readings.setFrameKind("words") }
            return .decoded
        }
    }

    /// A frame kind in words and one kept as bytes are held apart; the one given last wins.
    @Test func theFrameKindGivenLastWins() {
        let registry = Registry([
            TwoFrameKinds(id: "bytes-last", copyLast: true), TwoFrameKinds(id: "words-last", copyLast: false),
        ])
        let ad = Advertisement(address: BDAddress(rawValue: 7), data: Hex.decode("4142 43 0309 5859")!)
        var result = Registry.Result()
        for _ in 0..<2 {  // the second time into a used result
            registry.decode(ad, into: &result)
            #expect(result.readings.map(\.frameKind) == ["4142", "words"])
        }
    }

    /// Whether `buffer`'s storage is unreferenced elsewhere: writing to it then copies nothing.
    static func isUnshared(_ buffer: inout [UInt8]) -> Bool {
        let before = buffer.withUnsafeBufferPointer { $0.baseAddress }
        buffer[0] = buffer[0]
        return buffer.withUnsafeBufferPointer { $0.baseAddress } == before
    }

    @Test func runTimeTextsDoNotKeepTheAdvertisementsBuffer() {
        // Bytes with a local name, and run-time texts made of them: the list copies all of them
        // (invariant 2), so the buffer is unshared while the readings are still there to read.
        var buffer = Hex.decode("4142 43 0309 5859")!
        var result = Registry.Result()
        for verdict in [DecodeVerdict.notMine, .decoded] {
            let ad = Advertisement(address: BDAddress(rawValue: 7), data: buffer[...])
            Registry([Namer(id: "a", verdict: verdict)]).decode(ad, into: &result)
        }
        #expect(Self.isUnshared(&buffer))
        #expect(result.readings.map(\.name) == [nil, "AB"])
        #expect(result.readings.map(\.frameKind) == [nil, "4243"])
        #expect(result.readings[0].nameText == nil)
        // Decoded from a view of the bytes alone, as `replay` decodes.
        buffer.withUnsafeBufferPointer { bytes in
            Registry([Namer(id: "a", verdict: .decoded)]).decode(
                AdvertisementHeader(address: BDAddress(rawValue: 9)), bytes.span, into: &result)
        }
        #expect(result.readings.map(\.name) == [nil, "AB"])
        #expect(result.readings.map(\.address) == [BDAddress(rawValue: 9), BDAddress(rawValue: 9)])
    }

    /// A reading taken out of the list keeps its copied texts when the list goes on to the next
    /// advertisement and copies that one's over them.
    @Test func aTakenReadingKeepsItsTextsWhenTheListMovesOn() {
        let registry = Registry([Namer(id: "a", verdict: .decoded)])
        var result = Registry.Result()
        var taken: [Reading] = []
        // Local names "XY", none, "Z[!": the plain readings carry them; the Namer's second reading
        // a name of bytes 0..<2 and a frame kind of bytes 1..<3, copied.
        let hexes = ["0309 5859", "4142 43", "0409 5a5b21"]
        for hex in hexes {
            registry.decode(Advertisement(address: BDAddress(rawValue: 7), data: Hex.decode(hex)!), into: &result)
            result.readings.takeEach { taken.append($0) }
        }
        let bytes = hexes.map { Hex.decode($0)! }
        let carried = [0, 2].map { DeferredText.radio(bytes[$0][0..<2]).text }
        #expect(taken.map(\.name) == ["XY", carried[0], nil, "AB", "Z[!", carried[1]])
        #expect(taken.map(\.frameKind) == [nil, "0958", nil, "4243", nil, "095a"])
    }

    /// The local name is copied at the first `begin` of each advertisement, over the last one: a
    /// shorter name after a longer one, a name after none and none after a name each read right.
    @Test func eachAdvertisementsReadingsCarryItsOwnLocalName() {
        let registry = Registry([Quitter(id: "q", verdict: .decoded)])
        var result = Registry.Result()
        for (hex, name) in [
            ("0b09 4c6f6e67204e616d6521", "Long Name!"), ("0309 4142", "AB"), ("020a 00", nil), ("0209 43", "C"),
            ("0109", ""), ("0209 07", "\\x07"),
        ] as [(String, String?)] {
            registry.decode(Advertisement(address: BDAddress(rawValue: 1), data: Hex.decode(hex)!), into: &result)
            #expect(result.readings.count == 1)
            #expect(result.readings.first?.name == name, "\(hex)")
        }
    }
}
