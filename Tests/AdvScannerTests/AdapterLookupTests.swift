import Testing

@testable import AdvScanner
import SensorDecode

/// `--hci ADDRESS`: parsing, and the transport that follows the address from one hciN to another
/// (the kernel's list injected; the real ioctls run in the VM suite).
@Suite struct AdapterLookupTests {
    /// A kernel whose adapter list a test changes between calls.
    final class FakeAdapters: AdapterDirectory {
        var list: Result<[AdapterInfo], SourceError>
        var calls = 0
        init(_ list: [AdapterInfo]) { self.list = .success(list) }
        func adapters() -> Result<[AdapterInfo], SourceError> {
            calls += 1
            return list
        }
    }

    static let dongle = BDAddress("00:1A:7D:DA:71:13")!
    static let builtin = BDAddress("B8:27:EB:00:00:01")!

    @Test func anAddressIsAnAdapterSpec() {
        #expect(TransportSpec.parse("00:1A:7D:DA:71:13") == .success(.adapter(Self.dongle)))
        #expect(TransportSpec.parse("00:1a:7d:da:71:13") == .success(.adapter(Self.dongle)))
        #expect(TransportSpec.parse("00-1A-7D-DA-71-13") == .success(.adapter(Self.dongle)))
        #expect(TransportSpec.parse("hci1") == .success(.hci(1)))
        for bad in ["00:1A:7D:DA:71", "00:1A:7D:DA:71:1G", "001A7DDA7113", "00:1A:7D:DA:71:13:00"] {
            guard case .failure(let e) = TransportSpec.parse(bad) else {
                Issue.record("\(bad) parsed")
                continue
            }
            #expect(e.description.contains("an adapter address"), "\(bad): \(e)")
        }
    }

    @Test func theAddressIsLookedUpInTheList() {
        let list = [AdapterInfo(devID: 0, address: Self.builtin, isUp: true), AdapterInfo(devID: 3, address: Self.dongle, isUp: false)]
        #expect(AdapterLookup.devID(of: Self.dongle, in: list) == 3)
        #expect(AdapterLookup.devID(of: BDAddress("11:22:33:44:55:66")!, in: list) == nil)
        #expect(AdapterLookup.present(list) == "present: hci0 B8:27:EB:00:00:01, hci3 00:1A:7D:DA:71:13")
        #expect(AdapterLookup.present([]) == "no adapter is registered")
    }

    @Test func theTransportFollowsTheAddressToItsNewNumber() {
        let kernel = FakeAdapters([AdapterInfo(devID: 0, address: Self.dongle, isUp: true)])
        let t = AddressedAdapterTransport(address: Self.dongle, directory: kernel)
        #expect(t.devID == nil && t.name == "00:1A:7D:DA:71:13")
        _ = t.adapterStatus()
        #expect(t.devID == 0 && t.name == "hci0 (00:1A:7D:DA:71:13)")

        // A USB reset: the built-in adapter registers first and takes hci0; ours comes back as hci1.
        kernel.list = .success([AdapterInfo(devID: 0, address: Self.builtin, isUp: true),
                                AdapterInfo(devID: 1, address: Self.dongle, isUp: false)])
        _ = t.adapterStatus()
        #expect(t.devID == 1 && t.name == "hci1 (00:1A:7D:DA:71:13)")

        // Unplugged: absent, and never the other adapter that has a number we used.
        kernel.list = .success([AdapterInfo(devID: 1, address: Self.builtin, isUp: true)])
        #expect(t.adapterStatus() == .absent)
        #expect(!t.isOpen)
        do {
            try t.reopen()
            Issue.record("reopened without the adapter")
        } catch {
            #expect(error == .unavailable("no adapter has address 00:1A:7D:DA:71:13 (present: hci1 B8:27:EB:00:00:01)"))
        }
        #expect(throws: SourceError.self) { try t.bringUp() }
    }

    @Test func aKernelWithoutBluetoothIsAbsentNotACrash() {
        let kernel = FakeAdapters([])
        kernel.list = .failure(.unavailable("this kernel has no Bluetooth support"))
        let t = AddressedAdapterTransport(address: Self.dongle, directory: kernel)
        #expect(t.adapterStatus() == .absent)
        #expect(t.pollDescriptors.isEmpty && t.fileDescriptor == nil)
        #expect(throws: SourceError.unavailable("this kernel has no Bluetooth support")) { try t.reopen() }
        #expect(throws: SourceError.self) { try t.send(command: [0x03, 0x0C, 0x00]) }
    }

}

/// The kernel's device events of every adapter as the addressed transport routes them to scan
/// control (the kernel's list injected; the real monitor socket runs in the VM's adapter mode).
@Suite struct AddressedDeviceEventTests {
    static func event(_ event: UInt16, hci devID: UInt16) -> DeviceEventMonitor.Event {
        let bytes: [UInt8] = [0xFD, 0x06, 0x01, 0x00, UInt8(event), 0, UInt8(devID), 0]
        return .init(event: event, devID: devID, packet: HCIPacket(type: .event, bytes: bytes, incoming: true, timeMicros: 0))
    }

    /// (event, dev_id) of a routed stack-internal packet.
    static func routed(_ p: HCIPacket?) -> [UInt16]? {
        guard let b = p.map({ Array($0.bytes) }), b.count == 8 else { return nil }
        return [UInt16(b[4]) | UInt16(b[5]) << 8, UInt16(b[6]) | UInt16(b[7]) << 8]
    }

    @Test func aRegistrationUnderANewNumberIsHeardAsOursAndOtherAdaptersAreNot() {
        let dongle = AdapterLookupTests.dongle, builtin = AdapterLookupTests.builtin
        let kernel = AdapterLookupTests.FakeAdapters([AdapterInfo(devID: 0, address: dongle, isUp: true)])
        let t = AddressedAdapterTransport(address: dongle, directory: kernel)
        _ = t.adapterStatus()
        #expect(t.devID == 0)
        // Unplugged: its unregistration is ours.
        #expect(Self.routed(t.route(Self.event(DeviceEventMonitor.unregistered, hci: 0))) == [2, 0])
        // Another adapter registers and takes hci0, then ours registers as hci1: its address is
        // not known yet (read at its first power-on), so the registration is not ours yet…
        kernel.list = .success([AdapterInfo(devID: 0, address: builtin, isUp: false),
                                AdapterInfo(devID: 1, address: BDAddress(rawValue: 0), isUp: false)])
        #expect(t.route(Self.event(DeviceEventMonitor.registered, hci: 0)) == nil)
        #expect(t.route(Self.event(DeviceEventMonitor.registered, hci: 1)) == nil)
        #expect(t.route(Self.event(DeviceEventMonitor.down, hci: 0)) == nil, "the other adapter's")
        // …its up is: heard as a registration of hci1, so scan control brings it up and arms.
        kernel.list = .success([AdapterInfo(devID: 0, address: builtin, isUp: false),
                                AdapterInfo(devID: 1, address: dongle, isUp: true)])
        #expect(Self.routed(t.route(Self.event(DeviceEventMonitor.up, hci: 1))) == [1, 1])
        #expect(t.devID == 1 && t.name == "hci1 (00:1A:7D:DA:71:13)")
        #expect(t.route(Self.event(DeviceEventMonitor.up, hci: 0)) == nil)
        #expect(Self.routed(t.route(Self.event(DeviceEventMonitor.down, hci: 1))) == [4, 1])
        #expect(t.route(Self.event(5, hci: 1)) == nil)
    }
}
