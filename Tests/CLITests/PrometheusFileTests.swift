import Foundation
import Testing

/// `run --prometheus-file`: the textfile equals `export --prometheus` once the logger stopped,
/// and exists while it runs.
@Suite(.enabled(if: CLI.isBuilt, "needs a built blesensor-log"))
struct PrometheusFileTests {
    @Test func theTextfileIsWhatExportPrometheusPrints() throws {
        let dir = try TempDir()
        let radio = try FakeH4Controller()
        defer {
            radio.stop()
            dir.cleanup()
        }
        let db = dir.file("a.db")
        let prom = dir.file("blesensor.prom")
        let run = try MQTTPublisherTests.Background(
            ["run", "--hci", radio.spec, "--db", db, "--interval", "1s", "--prometheus-file", prom], dir: dir)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !((try? String(contentsOfFile: prom, encoding: .utf8))?.contains("blesensor_last_seen_seconds") ?? false) {
            Thread.sleep(forTimeInterval: 0.2)
        }
        let during = (try? String(contentsOfFile: prom, encoding: .utf8)) ?? ""
        #expect(during.contains("# TYPE blesensor_last_seen_seconds gauge"), "while running: \(during) \(run.stderr)")
        #expect(run.terminate() == 0, "\(run.stderr)")
        let exported = try CLI.run(["export", "--prometheus", "--db", db])
        #expect(exported.status == 0)
        #expect(try String(contentsOfFile: prom, encoding: .utf8) == exported.stdout)
        // Only the file is left in its folder: the temporary file was renamed over it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("blesensor.prom") } == ["blesensor.prom"])
    }
}
