import Foundation
import Testing

@testable import SensorReport

struct SVGChartTests {
    static let start: Int64 = CivilDate.days(year: 2026, month: 11, day: 23) * 24

    /// A day of hourly buckets, hours 6…11 empty.
    func chart(gap: Range<Int64> = 6..<12, key: String = "temperature_c", fahrenheit: Bool = false) -> Chart {
        let plan = BucketPlan(hours: Self.start..<(Self.start + 24), widthHours: 1, local: .utc)
        let series = (0..<24).filter { !gap.contains($0) }.map { h in
            HourValue(hour: Self.start + h, rows: 10, sum: Double(h) * 10 - 50, min: Double(h) - 6, max: Double(h) - 4)
        }
        return Chart(
            range: .day, display: QuantityDisplay(key: key, fahrenheit: fahrenheit), startMicros: Self.start * 3_600_000_000,
            endMicros: (Self.start + 24) * 3_600_000_000, buckets: plan.fold(series), latest: 18, sensorName: "Kitchen <1>",
            sensorAddress: "A4:C1:38:00:00:01")
    }

    func attribute(_ name: String, ofClass cls: String, in svg: String) -> String? {
        guard let at = svg.range(of: "class=\"\(cls)\" \(name)=\"") else { return nil }
        return String(svg[at.upperBound...].prefix { $0 != "\"" })
    }

    @Test func aGapStartsANewSubpathOfTheLineAndOfTheBand() throws {
        let svg = SVGChart.render(chart(), local: .utc, standalone: false)
        let mean = try #require(attribute("d", ofClass: "mean", in: svg))
        let band = try #require(attribute("d", ofClass: "band", in: svg))
        #expect(mean.filter { $0 == "M" }.count == 2)
        #expect(band.filter { $0 == "M" }.count == 2 && band.filter { $0 == "Z" }.count == 2)
        // Hours 0…5 then 12…23: 6 and 12 points.
        let runs = mean.split(separator: "M").map { $0.split(separator: "L").count }
        #expect(runs == [6, 12])
    }

    @Test func withoutAGapTheLineIsOnePath() throws {
        let mean = try #require(attribute("d", ofClass: "mean", in: SVGChart.render(chart(gap: 0..<0), local: .utc, standalone: false)))
        #expect(mean.filter { $0 == "M" }.count == 1)
    }

    @Test func aLoneBucketIsADot() {
        let svg = SVGChart.render(chart(gap: 1..<24), local: .utc, standalone: false)
        #expect(svg.contains("class=\"dot\""))
        #expect(!svg.contains("class=\"mean\""))
    }

    @Test func titleHasTheLatestValueInTheUnitShown() {
        let svg = SVGChart.render(chart(fahrenheit: true), local: .utc, standalone: true)
        #expect(svg.contains("<tspan class=\"latest\">64.4 °F</tspan>"))
        #expect(svg.contains("Kitchen &lt;1&gt; · Temperature · last 24 hours"))
        #expect(svg.contains(">°F</text>"))
    }

    @Test func standaloneHasTheNamespaceAndItsStyleAndFetchesNothing() {
        let svg = SVGChart.render(chart(), local: .utc, standalone: true)
        #expect(svg.hasPrefix("<svg class=\"chart q-temperature\" viewBox=\"0 0 480 200\" width=\"480\" height=\"200\" xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("<style>") && svg.contains("prefers-color-scheme:dark"))
        #expect(svg.components(separatedBy: "http").count == 2)
        #expect(!SVGChart.render(chart(), local: .utc, standalone: false).contains("http"))
    }

    @Test func aChartWithoutDataSaysSo() {
        let c = chart(gap: 0..<24)
        #expect(!c.hasData)
        #expect(SVGChart.render(c, local: .utc, standalone: true).contains("No data stored in this period"))
    }
}

struct PathDataTests {
    @Test func coordinatesAreWrittenAsReportTextWritesThem() {
        for v in [0.0, -0.0, 0.04, -0.04, -0.06, 0.05, 12.34, 12.35, -471.96, 480, 99.95, 1e6 + 0.3, -3.0] {
            var p = PathData()
            p.add("M", v, -v)
            #expect(p.text == "M" + ReportText.coordinate(v) + " " + ReportText.coordinate(-v), "\(v)")
        }
        var p = PathData()
        p.add("L", .nan, .infinity)
        #expect(p.text == "L0 0")
        // An absurd coordinate is clamped to 10^11, the most digits a whole part has.
        var far = PathData()
        far.add("M", 1e300, -1e300)
        #expect(far.text == "M100000000000 -100000000000")
    }
}
