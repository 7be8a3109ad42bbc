import Foundation
import SensorDecode
import Testing
import TestSupport

@testable import SensorStore

/// `forEachHourlyRollup` against statistics computed from the exported rows themselves.
@Suite struct RollupSeriesTests {
    let t0: Int64 = 1_700_000_000_000_000

    func store(_ dir: TempDir) throws -> String {
        var rng = SplitMix64(state: 27)
        let path = dir.file("a.db")
        let store = try SensorStore(path: path, configuration: StoreConfiguration())
        var now = 0.0
        for k in 0..<2000 {
            let s = Int(rng.next() % 4)
            var ms = [Measurement(.temperatureC, Double(Int(rng.next() % 6000) - 2000) / 100)]
            if s % 2 == 0 { ms.append(Measurement(.humidityPercent, Double(rng.next() % 1000) / 10)) }
            let t = t0 + Int64(k) * 9_000_000 + Int64(rng.next() % 1000)  // 5 hours
            now += 0.01
            store.add(
                Reading(address: BDAddress(rawValue: 0xA4C1_3800_0000 + UInt64(s)), decoderID: "test", model: "M",
                        measurements: ms, timeMicros: t, rssi: -60),
                now: now)
            store.tick(now: now)
        }
        try store.close(now: now + 10)
        return path
    }

    struct Key: Hashable {
        var sensor: Int64
        var hour: Int64
        var quantity: String
    }

    @Test func everyHourOfEveryQuantityIsWhatItsRowsGive() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let reader = try StoreReader(path: try store(dir))
        var expected: [Key: (rows: Int64, sum: Double, min: Double, max: Double, last: Double, at: Int64)] = [:]
        for r in try exportAll(reader).rows {
            for m in r.measurements {
                let k = Key(sensor: r.sensor.id, hour: SensorStore.hour(r.timeMicros), quantity: m.quantity.key)
                var e = expected[k] ?? (0, 0, .infinity, -.infinity, 0, .min)
                e.rows += 1
                e.sum += m.value
                e.min = min(e.min, m.value)
                e.max = max(e.max, m.value)
                if r.timeMicros >= e.at { (e.last, e.at) = (m.value, r.timeMicros) }
                expected[k] = e
            }
        }
        let keys = try reader.quantityKeys()
        var seen = Set<Key>()
        var lastHour = Int64.min
        try reader.forEachHourlyRollup(hours: Int64.min..<Int64.max, sensors: nil) { r in
            let k = Key(sensor: r.sensorID, hour: r.hour, quantity: keys[r.quantityID]!)
            #expect(r.hour >= lastHour, "hours come in order")
            lastHour = r.hour
            #expect(seen.insert(k).inserted)
            guard let e = expected[k] else {
                Issue.record("a rollup without rows: \(k)")
                return
            }
            #expect(r.rows == e.rows && abs(r.sum - e.sum) < 1e-9 && r.min == e.min && r.max == e.max)
            #expect(r.last == e.last && r.lastTimeMicros == e.at)
        }
        #expect(seen == Set(expected.keys))
    }

    @Test func hoursAndSensorsSelectWhatIsRead() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let reader = try StoreReader(path: try store(dir))
        let first = SensorStore.hour(t0) + 1
        let one = try reader.sensors()[1].id
        var got: [(Int64, Int64)] = []
        try reader.forEachHourlyRollup(hours: first..<(first + 2), sensors: [one]) { got.append(($0.hour, $0.sensorID)) }
        #expect(!got.isEmpty)
        #expect(got.allSatisfy { $0.0 >= first && $0.0 < first + 2 && $0.1 == one })
    }
}
