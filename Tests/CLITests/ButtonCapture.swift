import AdvScanner
import Foundation
import SensorDecode

/// `fixtures/captures/bthome-buttons.btsnoop`: a BTHome v2 button (the frame a Shelly BLU Button
/// sends: packet id, battery, button event) pressed four times, each press a burst of 5 copies of
/// one frame 100 ms apart, as a scanner hears it; between presses, a "none" beacon every 10 s
/// (button object 0, a new packet id). The device advertises a hostile local name, which must
/// reach no command. Built from the format (bthome.io/format), not recorded.
struct ButtonCapture {
    static let start: Int64 = 1_767_225_600 * 1_000_000  // 2026-01-01T00:00:00Z
    static let button = BDAddress("3C:2E:F5:00:00:01")!
    /// 15 bytes, all a legacy advertisement has room for beside the flags and the frame.
    static let hostileName = Array("$(touch PWN)`\n\"".utf8)
    /// The presses: seconds after `start`, the 0x3A value, its event name.
    static let presses: [(at: Int64, code: UInt8, name: String)] = [
        (5, 0x01, "press"), (7, 0x02, "double_press"), (20, 0x04, "long_press"), (21, 0x01, "press"),
    ]

    private(set) var packets: [HCIPacket] = []

    static func ad(packetID: UInt8, button code: UInt8) -> [UInt8] {
        let frame: [UInt8] = [0xD2, 0xFC, 0x44, 0x00, packetID, 0x01, 0x5A, 0x3A, code]
        return [0x02, 0x01, 0x06, UInt8(frame.count + 1), 0x16] + frame + [UInt8(hostileName.count + 1), 0x09] + hostileName
    }

    init() {
        var frames: [(Int64, [UInt8])] = []
        var id: UInt8 = 0x10
        for s in stride(from: Int64(0), through: 30, by: 10) {  // "none" beacons
            frames.append((Self.start + s * 1_000_000 + 500_000, Self.ad(packetID: id, button: 0)))
            id &+= 1
        }
        for p in Self.presses {
            for copy in 0..<5 {
                frames.append((Self.start + p.at * 1_000_000 + Int64(copy) * 100_000, Self.ad(packetID: id, button: p.code)))
            }
            id &+= 1
        }
        frames.sort { $0.0 < $1.0 }
        packets = frames.map { t, ad in
            HCIPacket(type: .event, bytes: SyntheticCapture.event(Self.button, ad, rssi: -55), incoming: true, timeMicros: t)
        }
    }

    func write(to path: String) throws {
        let w = try CaptureWriter(path: path)
        for p in packets { try w.write(p) }
        try w.close()
    }
}
