import Testing

@testable import SensorReport

struct HTMLPageTests {
    @Test func aPageWithoutSensorsSaysSo() {
        let page = HTMLPage.render(sections: [], generatedMicros: 0, newestMicros: 0, local: .utc, empty: "Nothing here.")
        #expect(page.contains("<p class=\"empty\">Nothing here.</p>"))
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(!page.contains("http") && !page.contains("<script"))
    }

    @Test func aSectionNamesItsSensorAndFlags() {
        let s = SensorSection(
            name: "Fridge", address: "A4:C1:38:00:00:01", model: "MM-BLEBC7", lastSeenMicros: 0, batteryPercent: 9,
            flags: ["stale", "low-battery"], quantities: [])
        let page = HTMLPage.render(sections: [s], generatedMicros: 0, newestMicros: 0, local: .utc)
        #expect(page.contains("<h2>Fridge<span class=\"flag\">stale</span><span class=\"flag\">low-battery</span></h2>"))
        #expect(page.contains("MM-BLEBC7 · A4:C1:38:00:00:01 · last seen 1970-01-01 00:00 · battery 9 %"))
        #expect(page.contains("id=\"s-a4c13800000" + "1\""))
    }
}
