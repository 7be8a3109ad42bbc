import AdvScanner
import SensorDecode

/// `blesensor-bench capture FILE`: the front half of `replay` without the store — capture reader →
/// HCI event parsing → report assembly → `Registry.standard().decode`, as `replay` does — in one
/// pass over FILE.
///
/// Run under callgrind by scripts/bench at two sizes, it gives the instructions per advertisement
/// of reading and decoding alone; the difference to `replay` is the cost of downsampling and
/// storing. Prints the counts, so the two runs can be checked to have decoded the same things.
enum CaptureBench {
    static func run(_ options: Options) throws(BenchError) {
        guard let path = options.positional.first else { throw BenchError("capture wants a capture file") }
        let registry = Registry.standard()
        var extractor = AdvertisementExtractor()
        var advertisements = 0
        var readings = 0
        let start = monotonicSeconds()
        do throws(SourceError) {
            let source = try CaptureSource(path: path)
            while case .packet(let packet) = try source.next(timeout: 0) {
                extractor.forEachAdvertisement(in: packet) { header, bytes in
                    advertisements += 1
                    readings += registry.decode(Advertisement(header: header, data: bytes)).readings.count
                }
            }
        } catch {
            throw BenchError("\(path): \(error.description)")
        }
        let seconds = monotonicSeconds() - start
        report([
            ("adv_per_s", fixed(Double(advertisements) / seconds)), ("reports", "\(advertisements)"),
            ("readings", "\(readings)"), ("malformed_events", "\(extractor.malformedEvents)"),
        ])
    }
}
