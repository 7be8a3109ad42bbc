import AdvScanner
import Testing

@Suite struct GATTUUIDTests {
    func text(_ s: String) -> String? { GATTUUID(s).map(\.description) }

    @Test func eitherFormAndTheBaseUUIDFolding() {
        #expect(text("2220") == "2220")
        #expect(text("0x2A37") == "2a37")
        #expect(text("0000180f-0000-1000-8000-00805f9b34fb") == "180f")
        #expect(GATTUUID("0000180f-0000-1000-8000-00805f9b34fb") == GATTUUID("180f"))
        #expect(text("6E400001B5A3F393E0A9E50E24DCCA9E") == "6e400001-b5a3-f393-e0a9-e50e24dcca9e")
    }

    @Test(arguments: ["", "22", "22201", "0x", "zzzz", "6e400001-b5a3-f393-e0a9-e50e24dcca9g", "6e400001-b5a3-f393-e0a9-e50e24dcca9e00"])
    func otherTextIsNoUUID(_ s: String) {
        #expect(GATTUUID(s) == nil)
    }
}
