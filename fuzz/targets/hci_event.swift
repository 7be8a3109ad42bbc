import AdvScanner
import SensorDecode

/// HCI event parser + report assembler. The input is a run of event packets, each a length byte
/// then that many bytes (so extended-report fragments meet across events). Each goes through the
/// report parse path (`AdvertisementExtractor`, which live scanning, captures and `decode` share)
/// and, as a reference, `HCIEvent.parse` with every report through `ReportAssembler.add`: both must
/// yield the same advertisements.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHCIEvent(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var extractor = AdvertisementExtractor()
    var assembler = ReportAssembler()
    var at = 0
    var time: Int64 = 0
    while at < input.count {
        let n = min(Int(input[at]), input.count - at - 1)
        let packet = Array(input[(at + 1)..<(at + 1 + n)])
        at += 1 + n
        time += 1
        var captured: [(UInt64, [UInt8])] = []
        extractor.forEachAdvertisement(in: HCIPacket(type: .event, bytes: packet, incoming: true, timeMicros: time)) {
            header, bytes in
            var copy: [UInt8] = []
            for i in bytes.indices { copy.append(bytes[i]) }
            captured.append((header.address.rawValue, copy))
        }
        var live: [(UInt64, [UInt8])] = []
        switch HCIEvent.parse(packet) {
        case .success(.advertisingReports(let reports)):
            for r in reports {
                if let whole = assembler.add(r) {
                    let ad = whole.advertisement(timeMicros: time)
                    live.append((ad.address.rawValue, Array(ad.data)))
                }
            }
        default:
            break
        }
        precondition(captured.count == live.count, "the extractor and the reference differ in count")
        for (c, l) in zip(captured, live) { precondition(c.0 == l.0 && c.1 == l.1, "the extractor and the reference differ") }
        _ = HCIEvent.parse(h4: packet)
    }
    return 0
}
