import AdvScanner
import Foundation
import SensorDecode

/// The week of two sensors behind `fixtures/captures/demo-week.btsnoop` (the README's quick look)
/// and the report's browser test, built from the formats (MM-BLEBC7's Minew frame, pvvx's custom
/// 0x181A frame): every value is known, so the test can say where each point must sit.
///
/// From 2026-11-23T00:00Z (a Monday), one advertisement per sensor every 5 minutes for 7 days:
/// - `A4:C1:38:BC:07:01` (MM-BLEBC7): temperature a daily sine, 4 ± 8 °C, with a negative stretch
///   (15 °C lower) from day 3 12:00 to day 4 12:00; humidity a step, 40 % then 65 % from day 3
///   12:00; battery 100 %; silent for 6 hours, day 5 12:00 to 18:00 (the gap).
/// - `A4:C1:38:11:22:33` (pvvx firmware): 21 ± 2 °C and 45 ± 5 %, battery 64 %, no gap.
struct DemoCapture {
    static let start: Int64 = 1_795_392_000 * 1_000_000  // 2026-11-23T00:00:00Z
    static let minew = BDAddress("A4:C1:38:BC:07:01")!
    static let pvvx = BDAddress("A4:C1:38:11:22:33")!
    static let step: Int64 = 5 * 60_000_000
    static let hour: Int64 = 3_600_000_000
    static let gap: Range<Int64> = (start + (5 * 24 + 12) * hour)..<(start + (5 * 24 + 18) * hour)
    static let cold: Range<Int64> = (start + (3 * 24 + 12) * hour)..<(start + (4 * 24 + 12) * hour)
    static let humidityStep: Int64 = start + (3 * 24 + 12) * hour

    struct Sample {
        let address: BDAddress
        let timeMicros: Int64
        let temperature: Double
        let humidity: Double
    }

    private(set) var samples: [Sample] = []
    private(set) var packets: [HCIPacket] = []

    init() {
        let day = 2 * Double.pi / 86_400_000_000
        for k in 0..<Int64(7 * 24 * 12) {
            let t = Self.start + k * Self.step
            if !Self.gap.contains(t) {
                var celsius = 4 + 8 * sin(Double(t - Self.start) * day)
                if Self.cold.contains(t) { celsius -= 15 }
                let humidity: Double = t < Self.humidityStep ? 40 : 65
                // As the frame carries them: signed 8.8 and unsigned 8.8.
                let raw = Int16((celsius * 256).rounded())
                let ad = Self.minewAD(raw, humidity: UInt16(humidity * 256), battery: 100)
                packets.append(
                    HCIPacket(type: .event, bytes: SyntheticCapture.event(Self.minew, ad), incoming: true, timeMicros: t))
                samples.append(Sample(address: Self.minew, timeMicros: t, temperature: Double(raw) / 256, humidity: humidity))
            }
            let t2 = t + 7_000_000
            let phase = Double(t2 - Self.start) * day
            let centi = Int16((2100 + 200 * sin(phase - 1)).rounded())
            let rh = UInt16((4500 + 500 * cos(phase)).rounded())
            let ad = SyntheticCapture.pvvxAD(Self.pvvx, tempCenti: centi, humidityCenti: rh, battery: 64)
            packets.append(HCIPacket(type: .event, bytes: SyntheticCapture.event(Self.pvvx, ad, rssi: -71), incoming: true, timeMicros: t2))
            samples.append(Sample(address: Self.pvvx, timeMicros: t2, temperature: Double(centi) / 100, humidity: Double(rh) / 100))
        }
    }

    /// A Minew `A1 01` frame (battery, temperature s8.8, humidity u8.8, MAC) with the flags AD and no name.
    static func minewAD(_ temperature: Int16, humidity: UInt16, battery: UInt8) -> [UInt8] {
        let t = UInt16(bitPattern: temperature)
        let frame: [UInt8] = [0xA1, 0x01, battery, UInt8(t >> 8), UInt8(t & 0xFF), UInt8(humidity >> 8), UInt8(humidity & 0xFF)]
            + minew.littleEndianBytes
        return [0x02, 0x01, 0x06, UInt8(frame.count + 3), 0x16, 0xE1, 0xFF] + frame
    }

    func write(to path: String) throws {
        let w = try CaptureWriter(path: path)
        for p in packets { try w.write(p) }
        try w.close()
    }

    /// Hourly means of a sensor's temperature or humidity, as the store's rollups compute them
    /// (one stored row per advertisement at a 60 s interval), by hour since the epoch.
    func hourlyMeans(_ address: BDAddress, _ value: KeyPath<Sample, Double>) -> [Int64: (mean: Double, min: Double, max: Double)] {
        var groups: [Int64: [Double]] = [:]
        for s in samples where s.address == address { groups[s.timeMicros / Self.hour, default: []].append(s[keyPath: value]) }
        return groups.mapValues { ($0.reduce(0, +) / Double($0.count), $0.min()!, $0.max()!) }
    }
}
