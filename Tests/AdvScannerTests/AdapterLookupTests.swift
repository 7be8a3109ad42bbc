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
