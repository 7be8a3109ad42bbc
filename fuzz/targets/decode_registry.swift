import SensorDecode

/// The AD walk and every decoder through the registry: the first 6 input bytes are the address,
/// the rest the AD bytes. Two addresses have a key, so the encrypted BTHome v2 and MiBeacon paths
/// decrypt (and fail to) as well. The entry point is the one `decode`, `run` and `replay` call;
/// every value must be a finite number, and counting statistics must not change the outcome.
let keys: DeviceKeys = {
    var k = DeviceKeys()
    k.keys[BDAddress(rawValue: 0x0000_0000_0001)] = Array(repeating: 0x11, count: 16)
    k.keys[BDAddress(rawValue: 0x0000_0000_0002)] = Array(0..<16)
    return k
}()
let registry = Registry.standard(keys: keys)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecodeRegistry(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 6 else { return 0 }
    var address: UInt64 = 0
    for i in 0..<6 { address = address << 8 | UInt64(data[i]) }
    // The fuzzer's buffer is valid for `size` bytes during this call; it is copied before use.
    let bytes = Array(UnsafeBufferPointer(start: data + 6, count: size - 6))
    let ad = Advertisement(address: BDAddress(rawValue: address), data: bytes)
    let result = registry.decode(ad)
    for r in result.readings {
        for m in r.measurements where !m.value.isFinite { fatalError("\(r.decoderID): \(m.quantity.key) is \(m.value)") }
    }
    var statistics = DecoderStatistics()
    if registry.decode(ad, counting: &statistics) != result { fatalError("counting statistics changed the outcome") }
    return 0
}
