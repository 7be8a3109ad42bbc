@testable import SensorDecode
import Testing

/// Keys are stored in databases: the numbered and per-probe keys are pinned here, whatever builds
/// them.
@Suite struct QuantityTests {
    @Test func numberedInstancesPutTheNumberBeforeTheUnit() {
        #expect(Quantity.temperatureC.instance(1, unitSuffix: "c").key == "temperature_c")
        #expect(Quantity.temperatureC.instance(2, unitSuffix: "c").key == "temperature2_c")
        #expect(Quantity.humidityPercent.instance(3, unitSuffix: "pct").key == "humidity3_pct")
        #expect(Quantity.speedMS.instance(2, unitSuffix: "m_s").key == "speed2_m_s")
        #expect(Quantity.door.instance(2, unitSuffix: "").key == "door2")
        #expect(Quantity.count.instance(12, unitSuffix: "").key == "count12")
        // A name ending in a digit gets an underscore before the number.
        #expect(Quantity.pm25UgM3.instance(2, unitSuffix: "ug_m3").key == "pm2_5_2_ug_m3")
        #expect(Quantity.pm10UgM3.instance(2, unitSuffix: "ug_m3").key == "pm10_2_ug_m3")
        // A unit the key does not end with is not cut off.
        #expect(Quantity.uvIndex.instance(2, unitSuffix: "c").key == "uv_index2")
        #expect(Quantity("c").instance(2, unitSuffix: "c").key == "c2")
        #expect(Quantity("_c").instance(2, unitSuffix: "c").key == "2_c")
        #expect(Quantity.batteryPercent.instance(2, unitSuffix: "pct").isInteger)
    }

    @Test func probeKeysNumberFromOne() {
        for n in 1...10 { #expect(Quantity.temperatureProbeC(n).key == "temperature_probe_\(n)_c") }
        #expect(Quantity.temperatureProbeC(0).key == "temperature_probe_0_c")
        #expect(!Quantity.temperatureProbeC(3).isInteger)
    }

    /// A reading being written keeps a declared quantity as its code (`ReadingList`), and reads it
    /// back from `vocabulary`: each entry must sit at its code, and two codes must never name one key.
    @Test func everyDeclaredQuantitySitsAtItsCode() {
        let vocabulary = Quantity.vocabulary
        for (i, q) in vocabulary.enumerated().dropFirst() { #expect(Int(q.code) == i, "\(q.key)") }
        #expect(Set(vocabulary.dropFirst().map(\.key)).count == vocabulary.count - 1)
        #expect(Quantity.temperatureProbeC(8).code != 0)
        #expect(Quantity.temperatureProbeC(9).code == 0)
    }

    /// The code is a cache, not identity: a key read from a database is the declared quantity.
    @Test func aQuantityIsItsKeyWhateverItsCode() {
        #expect(Quantity("temperature_c") == .temperatureC)
        #expect(Set([Quantity("temperature_c"), .temperatureC]).count == 1)
        #expect(Quantity("battery_pct") != .batteryPercent)  // not an integer quantity: another one
    }

    /// Measurements of both kinds, in the order written, through a reading list.
    @Test func measurementsWithAndWithoutCodesReadBackInOrder() {
        var list = ReadingList()
        let ad = AdvertisingData(parsing: [UInt8]())
        let adv = Advertisement(address: BDAddress(rawValue: 1), data: [])
        list.begin(ad.view(adv.header), decoderID: "t", model: "m")
        let second = Quantity.temperatureC.instance(2, unitSuffix: "c")
        list.add(.temperatureC, 1)
        list.add(second, 2)
        list.add(.humidityPercent, 3)
        list.add(Quantity("made_up"), 4)
        list.begin(ad.view(adv.header), decoderID: "t", model: "m")
        list.add(Quantity("made_up2"), 5)
        list.add(.temperatureProbeC(2), 6)
        #expect(list[0].measurements == [Measurement(.temperatureC, 1), Measurement(second, 2), Measurement(.humidityPercent, 3), Measurement(Quantity("made_up"), 4)])
        #expect(list[1].measurements == [Measurement(Quantity("made_up2"), 5), Measurement(.temperatureProbeC(2), 6)])
        #expect(list[0].measurements.map(\.quantity.key) == ["temperature_c", "temperature2_c", "humidity_pct", "made_up"])
        // Emptied and written again, spare entries are overwritten, not read.
        list.removeAll()
        list.begin(ad.view(adv.header), decoderID: "t", model: "m")
        list.add(Quantity("other"), 7)
        #expect(list[0].measurements == [Measurement(Quantity("other"), 7)])
    }
}
