import AdvScanner

/// The H4 framer over a byte stream cut at input-chosen points: the first byte picks the chunk
/// size. Every packet it returns must be whole (header + declared length), and what it holds back
/// stays below one packet.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzH4Framer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let chunk = Int(data[0] % 64) + 1
    let stream = UnsafeBufferPointer(start: data + 1, count: size - 1)
    var framer = H4Framer()
    var at = 0
    var delivered = 0
    while at < stream.count {
        let end = min(at + chunk, stream.count)
        for (type, bytes) in framer.feed(stream[at..<end]) {
            delivered += bytes.count + 1
            if type == .event {
                precondition(bytes.count >= 2 && bytes.count == 2 + Int(bytes[1]), "an event that is not whole")
                _ = HCIEvent.parse(bytes)
            }
        }
        at = end
        precondition(delivered + framer.skippedBytes + framer.pendingBytes == at, "bytes lost or doubled")
    }
    return 0
}
