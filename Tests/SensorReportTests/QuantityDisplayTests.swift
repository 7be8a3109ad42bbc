import Testing

@testable import SensorReport

struct QuantityDisplayTests {
    @Test(arguments: [
        ("temperature_c", "Temperature", "°C"), ("humidity_pct", "Humidity", "%"), ("battery_pct", "Battery", "%"),
        ("pressure_hpa", "Pressure", "hPa"), ("pm2_5_ug_m3", "PM2.5", "µg/m³"), ("conductivity_us_cm", "Conductivity", "µS/cm"),
        ("temperature_probe_2_c", "Temperature probe 2", "°C"), ("volume_flow_m3_h", "Volume flow", "m³/h"),
        ("door", "Door", ""), ("voltage_v", "Voltage", "V"),
    ])
    func namesAndUnitsComeFromTheKey(key: String, name: String, unit: String) {
        let d = QuantityDisplay(key: key)
        #expect(d.name == name)
        #expect(d.unit == unit)
    }

    @Test func fahrenheitConvertsTemperaturesOnly() {
        let t = QuantityDisplay(key: "temperature_c", fahrenheit: true)
        #expect(t.unit == "°F")
        #expect(t.convert(-40) == -40)
        #expect(t.convert(100) == 212)
        #expect(t.text(21.5) == "70.7 °F")
        let h = QuantityDisplay(key: "humidity_pct", fahrenheit: true)
        #expect(h.unit == "%" && h.convert(50) == 50 && h.text(45.5) == "45.5 %")
    }

    @Test func temperatureAndHumidityComeFirstAndBatteryLast() {
        let keys = ["battery_pct", "voltage_v", "humidity_pct", "co2_ppm", "temperature_c"]
        #expect(keys.sorted(by: QuantityDisplay.order) == ["temperature_c", "humidity_pct", "co2_ppm", "voltage_v", "battery_pct"])
    }
}

struct ReportTextTests {
    @Test func fixedAndTrimmedNumbers() {
        #expect(ReportText.fixed(2.5, decimals: 1) == "2.5")
        #expect(ReportText.fixed(-0.04, decimals: 1) == "0.0")
        #expect(ReportText.fixed(-0.06, decimals: 1) == "-0.1")
        #expect(ReportText.fixed(0.05, decimals: 2) == "0.05")
        #expect(ReportText.fixed(1234, decimals: 0) == "1234")
        #expect(ReportText.number(20.50, maxDecimals: 2) == "20.5")
        #expect(ReportText.number(-0.001, maxDecimals: 2) == "0")
        #expect(ReportText.number(100, maxDecimals: 1) == "100")
    }

    @Test func markupIsEscapedAndControlCharactersReplaced() {
        #expect(ReportText.escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;")
        #expect(ReportText.escape("a\u{1B}[31mb\u{07}") == "a\u{FFFD}[31mb\u{FFFD}")
    }

    @Test func localDateTimeAndOffsetName() {
        let t: Int64 = (CivilDate.days(year: 2026, month: 1, day: 1) * 86400 + 23 * 3600 + 30 * 60) * 1_000_000
        let india = LocalTime.fixed(offsetSeconds: 19800)
        #expect(ReportText.localDateTime(micros: t, local: india) == "2026-01-02 05:00")
        #expect(ReportText.offsetName(atMicros: t, local: india) == "UTC+05:30")
        #expect(ReportText.offsetName(atMicros: t, local: .fixed(offsetSeconds: -18000)) == "UTC−05:00")
        #expect(ReportText.isoUTC(micros: t) == "2026-01-01T23:30:00Z")
    }
}
