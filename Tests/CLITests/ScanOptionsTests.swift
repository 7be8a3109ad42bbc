import AdvScanner
import SensorDecode
import Testing

@testable import blesensor_log

/// `--hci` (repeatable: several adapters into one store) and `--unblock`.
@Suite struct ScanOptionsTests {
    static func targets(_ args: [String]) throws -> ScanTargets {
        try ScanOptions.configuration(try ParsedArguments(args, spec: RunCommand.spec)).0
    }

    @Test func everyHciIsATargetInOrder() throws {
        #expect(try Self.targets([]) == ScanTargets(transports: [.hci(nil)], unblock: false))
        #expect(try Self.targets(["--hci", "00:1A:7D:DA:71:13", "--hci", "hci1", "--hci", "tcp:127.0.0.1:9", "--unblock"])
            == ScanTargets(transports: [.adapter(BDAddress("00:1A:7D:DA:71:13")!), .hci(1), .h4(.tcp(host: "127.0.0.1", port: 9))],
                           unblock: true))
    }

    @Test func theSameAdapterTwiceOrABadOneIsAUsageError() {
        for args in [["--hci", "hci1", "--hci", "hci1"], ["--hci", "00:1A:7D:DA:71:13", "--hci", "00:1a:7d:da:71:13"],
                     ["--hci", "hci1", "--hci", "bluetooth0"]] {
            #expect(throws: CLIError.self, "\(args)") { _ = try Self.targets(args) }
        }
    }
}
