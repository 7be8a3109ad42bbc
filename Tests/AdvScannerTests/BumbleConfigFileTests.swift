import Foundation
import Testing

/// `run` set up by its config file alone (`--config FILE`, nothing else on the command line):
/// the file's adapter is scanned, its database filled, its interval used.
@Suite(.enabled(if: BumbleWorld.isAvailable && BumbleWorld.binary != nil,
    "needs .venv-bumble (IntegrationTests/bumble/setup.sh) and a built blesensor-log next to the tests"))
struct BumbleConfigFileTests {
    @Test func theConfigFileAloneDrivesTheLogger() throws {
        let world = try BumbleWorld([])
        defer { world.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("conf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("from-config.db").path
        let conf = dir.appendingPathComponent("blesensor-log.conf").path
        try """
            # the logger, as a service would run it
            hci = tcp:127.0.0.1:\(world.port)
            db = \(db)
            interval = 0      # every advertisement
            duration = 6s
            verbose = yes
            """.write(toFile: conf, atomically: true, encoding: .utf8)
        let run = try BumbleCLIRun.run(BumbleWorld.binary!, ["run", "--config", conf], timeout: 60)
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        #expect(run.stderr.contains("config: \(conf) (5 settings used)"), "\(run.stderr.prefix(2000))")
        let startup = run.stderr.split(separator: "\n").first { $0.contains("logging to") }
        #expect(startup?.contains("tcp:127.0.0.1:\(world.port)") == true && startup?.contains(db) == true
            && startup?.contains("interval off") == true, "\(String(describing: startup))")

        let export = try BumbleCLIRun.run(BumbleWorld.binary!, ["export", "--jsonl", "--db", db], timeout: 30)
        #expect(export.status == 0, "\(export.stderr)")
        let addresses = Set(export.objects.compactMap { $0["address"] as? String })
        #expect(addresses.isSuperset(of: [BumbleWorld.minew, BumbleWorld.pvvx, BumbleWorld.bthome]), "\(addresses)")
        // Every advertisement stored (interval 0): more rows than sensors.
        #expect(export.objects.count > 3, "\(export.objects.count) rows")
    }
}
