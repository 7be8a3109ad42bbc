import SensorDecode

/// `blesensor-bench decode FILE`: advertisements/s through `Registry.standard().decode`, each
/// advertisement's AD structures parsed in the loop (as `replay` parses each report it decodes).
///
/// FILE holds one `AA:BB:CC:DD:EE:FF <AD hex>` line per advertisement (scripts/bench-peers.py
/// writes it from the peer vectors into a temp dir). The hex is parsed once, before timing, as the
/// peers' HCI packets and JSON strings are built once on their side. Each round decodes the whole
/// set repeatedly for at least `--min-seconds`; the rate printed is the median of `--rounds`.
/// `reports` in the output is the number of advertisements decoded in all (for callgrind slopes).
enum DecodeBench {
    static func run(_ options: Options) throws(BenchError) {
        guard let path = options.positional.first else { throw BenchError("decode wants a vectors file") }
        let rounds = try options.int("rounds", default: 5)
        let minSeconds = try options.double("min-seconds", default: 0.5)
        // `--passes N`: exactly N passes over the set per round, whatever the time (for callgrind).
        let passes = try options.int("passes", default: 0)
        // `--text 1`: also read every reading's name and frame kind, as a caller that prints or
        // stores each reading does.
        let makeText = try options.int("text", default: 0) != 0
        let ads = try load(path)
        guard !ads.isEmpty else { throw BenchError("\(path) holds no advertisements") }

        let registry = Registry.standard()
        var decoded = 0
        for ad in ads where !registry.decode(ad).readings.isEmpty { decoded += 1 }

        // Each advertisement is made again from its header and bytes in the loop, as a report is
        // parsed into one; they are kept apart so that the loop copies no whole advertisement.
        let headers = ads.map(\.header)
        let bytes = ads.map(\.data)
        var rates: [Double] = []
        var total = 0
        var sink = 0  // keeps the optimiser from dropping the decode calls
        for _ in 0..<rounds {
            var n = 0
            let start = monotonicSeconds()
            var elapsed = 0.0
            repeat {
                for i in ads.indices {
                    let result = registry.decode(Advertisement(header: headers[i], data: bytes[i]))
                    sink &+= result.readings.count
                    if makeText {
                        for r in result.readings { sink &+= (r.name?.utf8.count ?? 0) &+ (r.frameKind?.utf8.count ?? 0) }
                    }
                }
                n += ads.count
                elapsed = monotonicSeconds() - start
            } while passes > 0 ? n < passes * ads.count : elapsed < minSeconds
            rates.append(Double(n) / elapsed)
            total += n
        }
        report([
            ("adv_per_s", fixed(median(rates))), ("decoded", "\(decoded)"), ("total", "\(ads.count)"),
            ("reports", "\(total)"),
            ("sink", "\(sink % 7)"),
        ])
    }

    /// Parses the vectors file: address, space, AD hex.
    static func load(_ path: String) throws(BenchError) -> [Advertisement] {
        let bytes = try readWholeFile(path)
        var out: [Advertisement] = []
        for (n, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() {
            let parts = line.split(separator: UInt8(ascii: " "), maxSplits: 1)
            guard parts.count == 2,
                let address = BDAddress(String(decoding: parts[0], as: UTF8.self)),
                let data = Hex.decode(String(decoding: parts[1], as: UTF8.self))
            else { throw BenchError("\(path) line \(n + 1): expected 'AA:BB:CC:DD:EE:FF <hex>'") }
            out.append(Advertisement(address: address, rssi: -60, data: data))
        }
        return out
    }
}
