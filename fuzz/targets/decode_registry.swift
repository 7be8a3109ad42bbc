import SensorDecode

/// The AD walk and every decoder through the registry: the first 6 input bytes are the address,
/// the rest the AD bytes. Two addresses have a key, so the encrypted BTHome v2 and MiBeacon paths
/// decrypt (and fail to) as well. The entry point is the one `blesensor-log decode` calls; the
/// path `run` and `replay` take (`decode(_:)`, over the bytes) must give the same readings, and
/// every value must be a finite number.
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
    let ad = Advertisement(address: BDAddress(rawValue: address), data: Array(UnsafeBufferPointer(start: data + 6, count: size - 6)))
    let result = registry.decode(ad, AdvertisingData(parsing: ad.data))
    for r in result.readings {
        _ = r.name
        _ = r.frameKind
        for m in r.measurements where !m.value.isFinite { fatalError("\(r.decoderID): \(m.quantity.key) is \(m.value)") }
    }
    let direct = registry.decode(ad)
    if Array(result.readings) != Array(direct.readings) {
        fatalError("the two decode paths differ: \(Array(result.readings)) vs \(Array(direct.readings))")
    }
    let a = result.malformed.map { "\($0.decoder): \($0.reason)" }, b = direct.malformed.map { "\($0.decoder): \($0.reason)" }
    if a != b { fatalError("the two decode paths differ in what is malformed: \(a) vs \(b)") }
    return 0
}
