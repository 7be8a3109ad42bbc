import Foundation
import Testing

@testable import blesensor_log

/// `DoctorProbe.commandOutput`: a child's first 4 KiB, and never a doctor stuck on a child that
/// says more.
@Suite struct DoctorProbeTests {
    @Test func aChildsOutputIsItsFirstLineAndAChildSayingMoreDoesNotStallDoctor() throws {
        #expect(DoctorProbe.commandOutput("/bin/echo", ["throttled=0x50000"]) == "throttled=0x50000")
        // 1 MiB, far beyond a pipe's buffer: the child must not be left blocked on a pipe that
        // nobody reads while doctor waits for it.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var output: String? = nil
        Thread.detachNewThread {
            output = DoctorProbe.commandOutput("/usr/bin/head", ["-c", "1048576", "/dev/zero"])
            done.signal()
        }
        try #require(done.wait(timeout: .now() + 20) == .success, "doctor still waits for a child that wrote 1 MiB")
        #expect(output?.utf8.count == 4096, "the first 4 KiB")
    }
}
