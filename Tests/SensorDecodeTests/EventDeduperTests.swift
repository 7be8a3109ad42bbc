import SensorDecode
import Testing

@Suite struct EventDeduperTests {
    static let button = BDAddress("38:1F:8D:00:00:01")!
    static let other = BDAddress("38:1F:8D:00:00:02")!

    func reading(_ address: BDAddress = button, _ events: [DeviceEvent]) -> Reading {
        Reading(address: address, decoderID: "test", model: "test", measurements: [], events: events)
    }

    func press(_ id: Int?, _ value: String = "press", from address: BDAddress = button) -> Reading {
        reading(address, [DeviceEvent(.button, value, packetID: id)])
    }

    /// What fires from a sequence of (time, reading).
    func fired(_ d: inout EventDeduper, _ frames: [(Double, Reading)]) -> [String] {
        frames.flatMap { t, r in d.admit(r, now: t).map { "\(t) \($0.value)" } }
    }

    @Test func aBurstOfOnePacketIDFiresOnce() {
        var d = EventDeduper()
        let burst = stride(from: 0.0, to: 1.0, by: 0.1).map { ($0, press(7)) }
        #expect(fired(&d, burst) == ["0.0 press"])
        #expect(d.repeats == 9)
    }

    @Test func aNewPacketIDIsANewPressEvenWithTheSameEvent() {
        var d = EventDeduper()
        #expect(fired(&d, [(0, press(7)), (0.2, press(7)), (0.5, press(8)), (0.6, press(8)), (0.7, press(9, "double_press"))])
            == ["0.0 press", "0.5 press", "0.7 double_press"])
    }

    /// bthome-ble's rule: the same id after the window is heard anew (a device that rebooted, or
    /// a counter that came round).
    @Test func theSameIDAfterTheWindowFiresAgain() {
        var d = EventDeduper(packetIDWindow: 5)
        #expect(fired(&d, [(0, press(3)), (4, press(3)), (9.5, press(3))]) == ["0.0 press", "9.5 press"])
        // Each repeat restarted the window: 4 → 9 would still be within it.
        var e = EventDeduper(packetIDWindow: 5)
        #expect(fired(&e, [(0, press(3)), (4, press(3)), (8.9, press(3))]) == ["0.0 press"])
    }

    @Test func withoutAPacketIDIdenticalEventsWithinTheBurstWindowAreOne() {
        var d = EventDeduper(burstWindow: 1.5)
        #expect(fired(&d, [(0, press(nil)), (0.4, press(nil)), (1.2, press(nil)), (3, press(nil)), (3.2, press(nil, "long_press"))])
            == ["0.0 press", "3.0 press", "3.2 long_press"])
    }

    /// "none" beacons (a 0x3A object of 0, a packet id and nothing else) fire nothing and do not
    /// disturb what the device's last press was.
    @Test func framesWithoutEventsChangeNothing() {
        var d = EventDeduper()
        let none = reading(Self.button, [])
        #expect(d.admit(none, now: 0).isEmpty)
        #expect(fired(&d, [(1, press(4)), (1.5, none), (1.6, press(4)), (2, none), (2.2, press(5))]) == ["1.0 press", "2.2 press"])
    }

    @Test func devicesAreDedupedApart() {
        var d = EventDeduper()
        #expect(fired(&d, [(0, press(1)), (0.1, press(1, from: Self.other)), (0.2, press(1)), (0.3, press(1, from: Self.other))])
            == ["0.0 press", "0.1 press"])
    }

    @Test func memoryIsBoundedAndForgetsTheOldestFirst() {
        var d = EventDeduper(maxDevices: 8)
        for i in 0..<100 {
            let address = BDAddress(rawValue: UInt64(i + 1))
            _ = d.admit(press(1, from: address), now: Double(i) / 100)
        }
        #expect(d.trackedDevices == 8)
        // The newest are remembered: a repeat of the last device is still dropped …
        #expect(d.admit(press(1, from: BDAddress(rawValue: 100)), now: 1.0).isEmpty)
        // … the first was forgotten, and its repeat is heard as new.
        #expect(d.admit(press(1, from: BDAddress(rawValue: 1)), now: 1.0).count == 1)
        #expect(d.trackedDevices == 8)
    }
}
