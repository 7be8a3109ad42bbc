/// One press fires once. A button advertises each press as a burst of identical frames (a Shelly
/// BLU button sends its frame for about a second, a scanner hears several copies); this stage lets
/// the first through and drops the repeats, per device, with a bounded memory.
///
/// Rules, per advertiser address:
/// 1. A frame with a packet id (BTHome object 0x00, MiBeacon's frame counter) is a repeat when its
///    id equals the last id seen from the device within `packetIDWindow` seconds (the rule
///    Home Assistant's bthome-ble applies): a new press always brings a new id, and a device that
///    reboots and starts its ids again is heard anew once the window has passed.
/// 2. A frame without one is a repeat when it carries exactly the events of the device's last
///    frame within `burstWindow` seconds (two real presses that close are one).
/// Each repeat restarts its window, so a device that keeps repeating one frame fires once.
/// Frames with no events (a "none" button object, a plain measurement) neither fire nor change
/// what the device's last frame was.
///
/// Memory: at most `maxDevices` devices are remembered; the one heard longest ago is forgotten
/// first (at worst, one of its repeats then fires again).
///
/// Times are seconds on any clock that does not go back within a run (the logger's monotonic
/// clock, a capture's clock).
public struct EventDeduper: Sendable {
    public let packetIDWindow: Double
    public let burstWindow: Double
    public let maxDevices: Int

    private struct Last: Sendable {
        var packetID: Int?
        var events: [DeviceEvent]
        var time: Double
    }

    private var last: [BDAddress: Last] = [:]
    /// Repeats dropped so far.
    public private(set) var repeats = 0

    public init(packetIDWindow: Double = 5, burstWindow: Double = 1.5, maxDevices: Int = 256) {
        self.packetIDWindow = packetIDWindow
        self.burstWindow = burstWindow
        self.maxDevices = max(1, maxDevices)
    }

    /// Devices remembered now (≤ `maxDevices`).
    public var trackedDevices: Int { last.count }

    /// The events of `reading` that are new: all of them, or none when the frame repeats the
    /// device's last one.
    public mutating func admit(_ reading: Reading, now: Double) -> [DeviceEvent] {
        let events = reading.events
        guard !events.isEmpty else { return [] }
        let packetID = events.first?.packetID
        if var previous = last[reading.address] {
            let isRepeat: Bool
            if let packetID {
                isRepeat = previous.packetID == packetID && now - previous.time <= packetIDWindow
            } else {
                isRepeat = previous.packetID == nil && previous.events == events && now - previous.time <= burstWindow
            }
            if isRepeat {
                previous.time = now
                last[reading.address] = previous
                repeats += 1
                return []
            }
        } else if last.count >= maxDevices, let oldest = last.min(by: { $0.value.time < $1.value.time })?.key {
            last[oldest] = nil
        }
        last[reading.address] = Last(packetID: packetID, events: events, time: now)
        return events
    }
}
