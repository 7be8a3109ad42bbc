import SensorDecode

/// Advertisements → readings, the part of the flow shared by `run`, `replay` and `scan`:
/// the `--only` filter, the registry, and counting. Problems a decoder finds are reported through
/// `onProblem` once per device and reason, with a bounded memory of what was already said.
struct Pipeline {
    let registry: Registry
    /// `--only` addresses; empty means every device.
    let only: Set<BDAddress>
    private(set) var advertisements = 0
    private(set) var readings = 0
    private(set) var malformed = 0
    /// Per decoder: decoded, not mine, malformed (`run -v` and `replay -v` print them).
    private(set) var statistics = DecoderStatistics()
    /// (address, decoder) pairs already reported; bounded so a noisy radio cannot grow it.
    private var reported: Set<String> = []
    private static let maxReported = 1024
    /// `--keep-unknown`: where advertisements that no decoder decoded are kept, if asked.
    var unknown: UnknownDevicesFile?

    init(registry: Registry, only: Set<BDAddress> = []) {
        self.registry = registry
        self.only = only
    }

    /// Decodes one advertisement, given as its header and its bytes, and hands each reading to
    /// `body`, in order. `onProblem` gets a one-line message the first time a device's
    /// frames are found malformed by a decoder (e.g. a wrong key), not for every frame.
    mutating func process(
        _ header: AdvertisementHeader, _ bytes: ArraySlice<UInt8>, onProblem: (String) -> Void,
        each body: (consuming Reading) -> Void
    ) {
        advertisements += 1
        let address = header.address
        if !only.isEmpty, !only.contains(address) { return }
        let ad = Advertisement(header: header, data: bytes)
        let result = registry.decode(ad, counting: &statistics)
        readings += result.readings.count
        if result.readings.isEmpty { unknown?.record(ad) }
        for m in result.malformed {
            malformed += 1
            let key = "\(address) \(m.decoder)"
            if !reported.contains(key) {
                if reported.count >= Self.maxReported { reported.removeAll() }
                reported.insert(key)
                onProblem("\(address): \(m.decoder): \(m.reason) (further such frames from it are not reported)")
            }
        }
        for r in result.readings { body(r) }
    }
}
