import AdvScanner
import SensorDecode

/// `blesensor-bench capture FILE`: the front half of `replay` without the store — capture reader →
/// HCI event parsing → report assembly → `Registry.standard().decode` — in one pass over FILE.
///
/// Run under callgrind by scripts/bench at two sizes, it gives the instructions per advertisement
/// of reading and decoding alone; the difference to `replay` is the cost of downsampling and
/// storing. Prints the counts, so the two runs can be checked to have decoded the same things.
enum CaptureBench {
    static func run(_ options: Options) throws(BenchError) {
        guard let path = options.positional.first else { throw BenchError("capture wants a capture file") }
        let registry = Registry.standard()
        var assembler = ReportAssembler()
        var reports = 0
        var readings = 0
        var malformedEvents = 0
        let start = monotonicSeconds()
        do throws(SourceError) {
            let source = try CaptureSource(path: path)
            while case .packet(let packet) = try source.next(timeout: 0) {
                guard packet.type == .event, packet.incoming else { continue }
                switch HCIEvent.parse(packet.bytes) {
                case .success(.advertisingReports(let list)):
                    for report in list {
                        reports += 1
                        guard let whole = assembler.add(report) else { continue }
                        readings += registry.decode(whole.advertisement(timeMicros: packet.timeMicros)).readings.count
                    }
                case .success: break
                case .failure: malformedEvents += 1
                }
            }
        } catch {
            throw BenchError("\(path): \(error.description)")
        }
        let seconds = monotonicSeconds() - start
        report([
            ("adv_per_s", fixed(Double(reports) / seconds)), ("reports", "\(reports)"), ("readings", "\(readings)"),
            ("malformed_events", "\(malformedEvents)"),
        ])
    }
}
