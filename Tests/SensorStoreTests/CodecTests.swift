import TestSupport
import SensorDecode
import Testing

@testable import SensorStore

@Suite struct MeasurementCodecTests {
    @Test func headerSampleEncodesAsDocumented() {
        var out: [UInt8] = []
        MeasurementCodec.encode([(1, 21.37), (3, 87)], into: &out)
        #expect(out == [0x01, 0x02, 0xB2, 0x21, 0x03, 0x00, 0xAE, 0x01])
    }

    static let values: [Double] = [
        0, 1, -1, 21.37, -12.5, 99.9, 1013.25, 0.001, 12345.6789, 1.0 / 3.0, -40.123456, 1e300, -1e-300,
        .infinity, -.infinity, 4_294_967_296, 9_007_199_254_740_994, .pi, 65535, -32768,
    ]

    @Test(arguments: values) func everyValueRoundTripsBitForBit(_ v: Double) throws {
        var out: [UInt8] = []
        MeasurementCodec.encode([(7, v), (300, v)], into: &out)
        let back = try #require(MeasurementCodec.decode(out))
        #expect(back.map(\.id) == [7, 300])
        #expect(
            back.map(\.value.bitPattern) == [v.bitPattern, v.bitPattern]
                || (v == 0 && back.allSatisfy { $0.value == 0 }))
    }

    /// The in-place encoding (`write(_:to:)`) gives the same bytes as `encode`, within
    /// `maxItemBytes` per item, and decodes back bit for bit, for ids and values of every size.
    @Test(arguments: values + [.nan, -0.0, 0.5, -0.05, 2.675, 1e15 + 0.5, 123_456_789.012_34])
    func inPlaceWritingMatchesEncode(_ v: Double) {
        let items: [(id: Int64, value: Double)] = [(1, v), (127, -v), (128, v / 7), (Int64.max, v * 1e4)]
        var expected: [UInt8] = []
        MeasurementCodec.encode(items, into: &expected)
        // Room for exactly `maxItemBytes` per item: writing more would trap.
        let bytes = [UInt8](capacity: items.count * MeasurementCodec.maxItemBytes) { (o: inout OutputSpan<UInt8>) in
            MeasurementCodec.write(items, to: &o)
        }
        #expect(bytes == expected)
        let back = MeasurementCodec.decode(bytes)
        #expect(back?.map(\.id) == items.map(\.id))
        // Bit for bit, NaN payloads included; a zero may lose its sign (stored as the integer 0).
        let same = zip(back ?? [], items).allSatisfy {
            $0.value.bitPattern == $1.value.bitPattern || ($0.value == 0 && $1.value == 0)
        }
        #expect(same && back?.count == items.count)
    }

    @Test func nanSurvivesAsNaN() throws {
        var out: [UInt8] = []
        MeasurementCodec.encode([(1, .nan)], into: &out)
        let back = try #require(MeasurementCodec.decode(out))
        #expect(back.count == 1 && back[0].value.isNaN)
    }

    @Test func decimalValuesTakeFewBytes() {
        var out: [UInt8] = []
        MeasurementCodec.encode([(1, 21.37), (2, 45.5), (3, 87)], into: &out)
        #expect(out.count <= 12)
    }

    @Test func everyTruncationIsRejectedWithoutCrashing() {
        var out: [UInt8] = []
        MeasurementCodec.encode([(1, 21.37), (200, 1.0 / 3.0), (3, 87)], into: &out)
        // Cuts inside a measurement fail; cuts between measurements decode the prefix.
        let boundaries: Set<Int> = [0, 4, 4 + 11, out.count]
        for n in 0...out.count {
            let r = MeasurementCodec.decode(Array(out.prefix(n)))
            #expect((r != nil) == boundaries.contains(n), "prefix \(n)")
        }
    }

    /// A rollup's `stats` blob decodes back to its statistics; a cut inside a quantity's entry
    /// is refused (the entries before it are still reported, nothing past the cut is read).
    @Test func statsBlobsRoundTripAndEveryTruncationIsRejected() {
        let hour: Int64 = 472_222 * 3_600_000_000
        var first = SensorStats()
        first.addRow(samples: 3, time: hour + 5_000_000, [(id: 2, value: 21.37)])
        first.addRow(samples: 1, time: hour + 65_000_000, [(id: 2, value: 1.0 / 3.0)])
        var both = first
        both.addRow(samples: 2, time: hour + 70_000_000, [(id: 300, value: -1e300)])
        let entry = first.statsBlob(hourStart: hour).count
        let blob = both.statsBlob(hourStart: hour)
        #expect(blob.count > entry && entry > 0)
        #expect(blob.count <= both.quantities.count * SensorStats.maxStatsBytes)
        for n in 0...blob.count {
            var got: [(id: Int64, stats: QuantityStats)] = []
            let ok = SensorStats.decodeStats(Array(blob.prefix(n)).span, hourStart: hour) { got.append(($0, $1)) }
            #expect(ok == [0, entry, blob.count].contains(n), "prefix \(n)")
            let whole = n < entry ? 0 : n < blob.count ? 1 : 2
            #expect(got.map(\.id) == both.quantities.prefix(whole).map(\.id), "prefix \(n)")
            #expect(got.map(\.stats) == both.quantities.prefix(whole).map(\.stats), "prefix \(n)")
        }
    }

    @Test func unknownKindIsMalformed() {
        #expect(MeasurementCodec.decode([0x01, 0x09, 0x00]) == nil)
        #expect(MeasurementCodec.decode([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]) == nil)
    }
}

@Suite struct DownsamplerTests {
    let a = BDAddress(rawValue: 0xA4C1_3800_0001)
    let t0: Int64 = 1_700_000_040_000_000  // 12:34:00 UTC-aligned minute? 1_700_000_040 % 60 == 0

    func reading(_ t: Int64, temp: Double, battery: Double, address: BDAddress? = nil) -> Reading {
        Reading(
            address: address ?? a, decoderID: "test", model: "M",
            measurements: [Measurement(.temperatureC, temp), Measurement(.batteryPercent, battery)], timeMicros: t)
    }

    func run(_ d: inout Downsampler, _ rs: [Reading], closeAll: Bool = true) -> [StoredRow] {
        var out: [StoredRow] = []
        for r in rs { d.add(r, into: &out) }
        if closeAll { d.closeAll(into: &out) }
        return out
    }

    @Test func oneMinuteFoldsIntoMeanOfContinuousAndLastOfWholeQuantities() throws {
        #expect(t0 % 60_000_000 == 0)
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 60))
        let rows = run(
            &d,
            [
                reading(t0 + 1_000_000, temp: 20, battery: 90), reading(t0 + 20_000_000, temp: 21, battery: 89),
                reading(t0 + 59_000_000, temp: 22.5, battery: 88),
            ])
        let row = try #require(rows.first)
        #expect(rows.count == 1)
        #expect(row.timeMicros == t0)
        #expect(row.samples == 3)
        #expect(row.firstHeardMicros == t0 + 1_000_000 && row.lastHeardMicros == t0 + 59_000_000)
        #expect(
            row.measurements == [Measurement(.batteryPercent, 88), Measurement(.temperatureC, (20 + 21 + 22.5) / 3)])
    }

    @Test func retransmissionOfTheSameFrameIsCountedOnce() throws {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 60))
        let rows = run(
            &d, [reading(t0 + 1_000_000, temp: 20, battery: 90), reading(t0 + 1_004_000, temp: 20, battery: 90)])
        #expect(rows.count == 1)
        #expect(rows.first?.samples == 1)
        #expect(d.statistics.duplicates == 1)
    }

    @Test func intervalZeroStoresEveryAdvertisementButNoRetransmission() {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 0))
        let rows = run(
            &d,
            [
                reading(t0, temp: 20, battery: 90), reading(t0 + 2_000, temp: 20, battery: 90),  // same frame heard again
                reading(t0 + 1_500_000, temp: 20, battery: 90),  // outside the window: a new advertisement
                reading(t0 + 1_600_000, temp: 20.5, battery: 90),  // new value
            ])
        #expect(rows.map(\.timeMicros) == [t0, t0 + 1_500_000, t0 + 1_600_000])
        #expect(rows.allSatisfy { $0.samples == 1 })
    }

    @Test func bucketsCloseOnceTheRadioTimePassesTheirEnd() {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 60))
        let b = BDAddress(rawValue: 0xA4C1_3800_0002)
        var out: [StoredRow] = []
        d.add(reading(t0 + 10_000_000, temp: 20, battery: 90), into: &out)
        d.add(reading(t0 + 50_000_000, temp: 5, battery: 50, address: b), into: &out)
        d.closeDue(into: &out)
        #expect(out.isEmpty)
        d.add(reading(t0 + 61_000_000, temp: 6, battery: 50, address: b), into: &out)  // b's own next bucket
        #expect(out.map(\.address) == [b])
        d.closeDue(into: &out)  // radio time 61 s: a's minute is over too
        #expect(out.map(\.address) == [b, a])
        d.closeDue(wallMicros: t0 + 121_000_000, into: &out)
        #expect(out.count == 3)
        #expect(d.openBuckets == 0)
    }

    @Test func anAddressFloodStaysWithinTheBoundAndLosesNoReading() {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 60, maxSensors: 64))
        var rng = SplitMix64(state: 1)
        var rows: [StoredRow] = []
        for i in 0..<10_000 {
            let r = reading(
                t0 + Int64(i) * 1000, temp: Double(i), battery: 1, address: BDAddress(rawValue: rng.next()))
            d.add(r, into: &rows)
            #expect(d.trackedSensors <= 64)
        }
        d.closeAll(into: &rows)
        #expect(rows.reduce(0) { $0 + $1.samples } == 10_000)
        #expect(d.statistics.evictedSensors >= 10_000 - 64)
    }

    /// A full table evicts the least recently heard eighth, oldest first: a sensor heard again
    /// stays, whatever order it was first heard in.
    @Test func aFullTableEvictsTheLeastRecentlyHeardEighth() {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 60, maxSensors: 16))
        func address(_ i: Int) -> BDAddress { BDAddress(rawValue: 0xC0_0000_0000 + UInt64(i)) }
        var rows: [StoredRow] = []
        for i in 0..<16 { d.add(reading(t0 + Int64(i) * 1000, temp: 1, battery: 1, address: address(i)), into: &rows) }
        d.add(reading(t0 + 50_000, temp: 2, battery: 1, address: address(0)), into: &rows)  // heard again
        #expect(rows.isEmpty)
        d.add(reading(t0 + 60_000, temp: 3, battery: 1, address: address(16)), into: &rows)
        #expect(rows.map(\.address) == [address(1), address(2)])
        #expect(d.trackedSensors == 15)
        #expect(d.statistics.evictedSensors == 2)
    }

    /// Eviction takes entries out of the middle of the table (the last one moves into each hole):
    /// every sensor left must still fold into its own bucket, and a new one open its own.
    @Test func sensorsLeftAfterAnEvictionStillFoldIntoTheirOwnBuckets() {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 60, maxSensors: 16))
        func address(_ i: Int) -> BDAddress { BDAddress(rawValue: 0xC0_0000_0000 + UInt64(i)) }
        var rows: [StoredRow] = []
        // Heard in an order that puts the least recently heard in the middle of the table.
        let order = [5, 9, 0, 1, 2, 3, 4, 6, 7, 8, 10, 11, 12, 13, 14, 15]
        for (k, i) in order.enumerated() {
            d.add(reading(t0 + Int64(k) * 1000, temp: Double(i), battery: 1, address: address(i)), into: &rows)
        }
        d.add(reading(t0 + 20_000, temp: 16, battery: 1, address: address(16)), into: &rows)
        #expect(rows.map(\.address) == [address(5), address(9)])
        rows.removeAll()
        // Every tracked sensor again, in the same minute: one more sample each, its own value.
        let left = (0..<17).filter { $0 != 5 && $0 != 9 }
        for (k, i) in left.enumerated() {
            let r = reading(t0 + 30_000 + Int64(k) * 1000, temp: Double(i) + 1, battery: 1, address: address(i))
            d.add(r, into: &rows)
        }
        #expect(rows.isEmpty)
        #expect(d.trackedSensors == 15)
        d.closeAll(into: &rows)
        #expect(rows.count == 15)
        for r in rows {
            let i = Int(r.address.rawValue - 0xC0_0000_0000)
            #expect(r.samples == 2)
            #expect(r.value(.temperatureC) == Double(i) + 0.5)
        }
    }

    func listed(_ t: Int64, _ ms: [Measurement], address: BDAddress? = nil) -> Reading {
        Reading(address: address ?? a, decoderID: "test", model: "M", measurements: ms, timeMicros: t)
    }

    /// A one-reading bucket keeps the decoder's list (no copy) but reads back in key order.
    @Test func aOneReadingBucketListedOutOfKeyOrderComesOutInKeyOrder() throws {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 60))
        let ms = [
            Measurement(.temperatureC, 21.5), Measurement(.humidityPercent, 40), Measurement(.batteryPercent, 90),
        ]
        let rows = run(&d, [listed(t0 + 1_000_000, ms), listed(t0 + 61_000_000, ms)])
        #expect(rows.count == 2)
        for row in rows {
            #expect(
                row.measurements == [
                    Measurement(.batteryPercent, 90), Measurement(.humidityPercent, 40), Measurement(.temperatureC, 21.5),
                ])
            #expect(row.count == 3 && row.value(.humidityPercent) == 40 && row.value(.co2PPM) == nil)
        }
    }

    /// A decoder listing one quantity twice: the row keeps the last, folded or not.
    @Test func aQuantityListedTwiceKeepsItsLastValue() throws {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 60))
        let ms = [Measurement(.temperatureC, 1), Measurement(.batteryPercent, 50), Measurement(.temperatureC, 3)]
        let one = run(&d, [listed(t0, ms)])
        #expect(one.first?.measurements == [Measurement(.batteryPercent, 50), Measurement(.temperatureC, 3)])
        let two = run(&d, [listed(t0 + 60_000_000, ms), listed(t0 + 70_000_000, ms.map { Measurement($0.quantity, $0.value + 1) })])
        #expect(two.first?.measurements == [Measurement(.batteryPercent, 51), Measurement(.temperatureC, 3.5)])
    }

    /// The sensor's cached key order must follow a change of the decoder's listing.
    @Test func aSensorWhoseListingChangesOrderIsFoldedByQuantity() throws {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 60))
        let rows = run(
            &d,
            [
                listed(t0 + 1_000_000, [Measurement(.temperatureC, 20), Measurement(.batteryPercent, 90)]),
                listed(t0 + 2_000_000, [Measurement(.batteryPercent, 80), Measurement(.temperatureC, 22)]),
                // The same frame as the previous reading, listed the other way: still a duplicate.
                listed(t0 + 2_100_000, [Measurement(.temperatureC, 22), Measurement(.batteryPercent, 80)]),
                listed(t0 + 61_000_000, [Measurement(.temperatureC, 5), Measurement(.batteryPercent, 70)]),
                listed(t0 + 121_000_000, [Measurement(.batteryPercent, 60), Measurement(.temperatureC, 6)]),
            ])
        #expect(d.statistics.duplicates == 1)
        #expect(rows.map(\.samples) == [2, 1, 1])
        #expect(
            rows.map(\.measurements) == [
                [Measurement(.batteryPercent, 80), Measurement(.temperatureC, 21)],
                [Measurement(.batteryPercent, 70), Measurement(.temperatureC, 5)],
                [Measurement(.batteryPercent, 60), Measurement(.temperatureC, 6)],
            ])
    }

    /// A quantity first heard in the bucket's second reading joins the row in key order.
    @Test func aSensorThatGainsAQuantityKeepsKeyOrder() throws {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 60))
        let rows = run(
            &d,
            [
                listed(t0 + 1_000_000, [Measurement(.temperatureC, 20)]),
                listed(t0 + 2_000_000, [Measurement(.temperatureC, 22), Measurement(.batteryPercent, 90)]),
                listed(t0 + 62_000_000, [Measurement(.temperatureC, 23), Measurement(.humidityPercent, 50)]),
            ])
        #expect(
            rows.map(\.measurements) == [
                [Measurement(.batteryPercent, 90), Measurement(.temperatureC, 21)],
                [Measurement(.humidityPercent, 50), Measurement(.temperatureC, 23)],
            ])
    }

    /// Rows share their sensor's facts until one changes: each row still says what its latest
    /// reading said (a reading without a name keeps the bucket's).
    @Test func eachRowCarriesTheFactsOfItsLatestReading() throws {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 60))
        let ms = [Measurement(.temperatureC, 20)]
        func r(_ t: Int64, model: String, name: String?) -> Reading {
            Reading(address: a, decoderID: "test", model: model, measurements: ms, timeMicros: t, name: name)
        }
        let rows = run(
            &d,
            [
                r(t0 + 1_000_000, model: "M1", name: "kitchen"), r(t0 + 30_000_000, model: "M2", name: nil),
                r(t0 + 61_000_000, model: "M2", name: "kitchen"), r(t0 + 121_000_000, model: "M2", name: "hall"),
                r(t0 + 181_000_000, model: "M2", name: nil),
            ])
        #expect(rows.map(\.model) == ["M2", "M2", "M2", "M2"])
        #expect(rows.map(\.name) == ["kitchen", "kitchen", "hall", nil])
    }

    /// Folded rows (key-ordered lists of their own) of a sensor listing out of key order still
    /// say what their own latest reading said.
    @Test func foldedRowsCarryTheFactsOfTheirLatestReading() throws {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 60))
        func r(_ t: Int64, _ v: Double, name: String) -> Reading {
            Reading(
                address: a, decoderID: "test", model: "M",
                measurements: [Measurement(.temperatureC, v), Measurement(.batteryPercent, 50)], timeMicros: t,
                name: name)
        }
        let rows = run(
            &d,
            [
                r(t0 + 1_000_000, 1, name: "a"), r(t0 + 2_000_000, 3, name: "b"),
                r(t0 + 61_000_000, 5, name: "b"), r(t0 + 62_000_000, 7, name: "c"),
                r(t0 + 121_000_000, 9, name: "c"), r(t0 + 122_000_000, 11, name: "c"),
            ])
        #expect(rows.map(\.name) == ["b", "c", "c"])
        #expect(rows.map { $0.value(.temperatureC) } == [2, 6, 10])
        #expect(rows.allSatisfy { $0.keyOrder == nil && $0.measurements.first?.quantity == .batteryPercent })
    }

    /// A row shares its reading's list (which may have room to spare) until it is compacted, which
    /// the store does for rows held beyond one batch (invariant 5).
    @Test func aCompactedRowOwnsAListOfItsOwnSize() throws {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 0))
        var ms: [Measurement] = []
        ms.reserveCapacity(8)
        ms.append(Measurement(.temperatureC, 20))
        ms.append(Measurement(.batteryPercent, 90))
        var row = try #require(run(&d, [listed(t0, ms)]).first)
        #expect(row.listed.capacity >= 8)
        let before = row.measurements
        row.compact()
        #expect(row.listed.capacity < 8)
        #expect(row.measurements == before)
    }

    @Test func aReadingOlderThanItsOpenBucketBecomesItsOwnRow() {
        var d = Downsampler(DownsampleConfiguration(intervalSeconds: 60))
        let rows = run(
            &d, [reading(t0 + 70_000_000, temp: 1, battery: 1), reading(t0 + 5_000_000, temp: 2, battery: 2)])
        #expect(Set(rows.map(\.timeMicros)) == [t0, t0 + 60_000_000])
        #expect(d.statistics.outOfOrder == 1)
    }
}
