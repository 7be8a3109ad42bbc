import AdvScanner
import SensorDecode

/// A capture we build ourselves (so the test knows every value): three sensors advertising every
/// 10 s for 20 minutes starting at `start`, one of them going below zero, written with our
/// btsnoop writer, then replayed into a database through the real binary.
struct SyntheticCapture {
    static let start: Int64 = 1_767_225_600 * 1_000_000  // 2026-01-01T00:00:00Z
    static let minew = BDAddress("A4:C1:38:BC:07:01")!
    static let pvvx = BDAddress("A4:C1:38:11:22:33")!
    static let lowBattery = BDAddress("A4:C1:38:44:55:66")!

    struct Sample {
        let address: BDAddress
        let timeMicros: Int64
        let values: [String: Double]
    }

    private(set) var samples: [Sample] = []
    private(set) var packets: [HCIPacket] = []

    /// An LE Advertising Report event with one report.
    static func event(_ address: BDAddress, _ ad: [UInt8], rssi: Int8 = -60) -> [UInt8] {
        let params: [UInt8] = [0x02, 0x01, 0x00, 0x00] + address.littleEndianBytes + [UInt8(ad.count)] + ad
            + [UInt8(bitPattern: rssi)]
        return [0x3E, UInt8(params.count)] + params
    }

    static func minewAD(_ tempCenti: Int, humidity: Double, battery: UInt8, name: [UInt8]) -> [UInt8] {
        let t = UInt16(bitPattern: Int16(tempCenti * 256 / 100))
        let h = UInt16(humidity * 256)
        let frame: [UInt8] = [0xA1, 0x01, battery, UInt8(t >> 8), UInt8(t & 0xFF), UInt8(h >> 8), UInt8(h & 0xFF)]
            + minew.littleEndianBytes
        return [0x02, 0x01, 0x06, UInt8(frame.count + 3), 0x16, 0xE1, 0xFF] + frame + [UInt8(name.count + 1), 0x09] + name
    }

    static func pvvxAD(_ address: BDAddress, tempCenti: Int16, humidityCenti: UInt16, battery: UInt8) -> [UInt8] {
        let t = UInt16(bitPattern: tempCenti)
        let frame: [UInt8] = address.littleEndianBytes + [UInt8(t & 0xFF), UInt8(t >> 8),
            UInt8(humidityCenti & 0xFF), UInt8(humidityCenti >> 8), 0x86, 0x0B, battery, 0x01, 0x04]
        return [UInt8(frame.count + 3), 0x16, 0x1A, 0x18] + frame
    }

    init() {
        // 9 bytes: a legacy advertisement carries at most 31.
        let hostileName = Array("=1+2,\"x\"\n".utf8)
        for i in 0..<120 {
            let t = Self.start + Int64(i) * 10_000_000
            let tempCenti = 250 - i * 5  // 2.50 °C falling to -3.45 °C
            let minew = Self.minewAD(tempCenti, humidity: 50 + Double(i % 4) * 0.5, battery: 100, name: hostileName)
            packets.append(HCIPacket(type: .event, bytes: Self.event(Self.minew, minew), incoming: true, timeMicros: t))
            samples.append(Sample(address: Self.minew, timeMicros: t, values: [
                "temperature_c": Double(Int16(tempCenti * 256 / 100)) / 256, "humidity_pct": 50 + Double(i % 4) * 0.5,
                "battery_pct": 100]))
            let pvvxTemp = Int16(2000 + (i % 7) * 13)
            let p = Self.pvvxAD(Self.pvvx, tempCenti: pvvxTemp, humidityCenti: 4567, battery: 87)
            packets.append(HCIPacket(type: .event, bytes: Self.event(Self.pvvx, p), incoming: true, timeMicros: t + 1000))
            samples.append(Sample(address: Self.pvvx, timeMicros: t + 1000, values: [
                "temperature_c": Double(pvvxTemp) / 100, "humidity_pct": 45.67, "battery_pct": 87, "voltage_v": 2.95]))
            let low = Self.pvvxAD(Self.lowBattery, tempCenti: -1050, humidityCenti: 9000, battery: 9)
            packets.append(HCIPacket(type: .event, bytes: Self.event(Self.lowBattery, low), incoming: true, timeMicros: t + 2000))
            samples.append(Sample(address: Self.lowBattery, timeMicros: t + 2000, values: [
                "temperature_c": -10.5, "humidity_pct": 90, "battery_pct": 9, "voltage_v": 2.95]))
        }
    }

    func write(to path: String) throws {
        let w = try CaptureWriter(path: path)
        for p in packets { try w.write(p) }
        try w.close()
    }

    /// A btsnoop file at `path` of one advertising event per advertisement: its sender, AD bytes
    /// and receive time.
    static func write(_ path: String, _ advertisements: [(address: BDAddress, ad: [UInt8], timeMicros: Int64)]) throws {
        let w = try CaptureWriter(path: path)
        for a in advertisements {
            try w.write(HCIPacket(type: .event, bytes: event(a.address, a.ad), incoming: true, timeMicros: a.timeMicros))
        }
        try w.close()
    }
}
