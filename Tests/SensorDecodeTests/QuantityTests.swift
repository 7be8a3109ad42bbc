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

    /// A key read from a database is the declared quantity.
    @Test func aQuantityIsItsKeyAndKind() {
        #expect(Quantity("temperature_c") == .temperatureC)
        #expect(Set([Quantity("temperature_c"), .temperatureC]).count == 1)
        #expect(Quantity("battery_pct") != .batteryPercent)  // not an integer quantity: another one
    }
}
