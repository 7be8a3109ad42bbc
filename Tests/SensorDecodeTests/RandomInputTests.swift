import TestSupport
import SensorDecode
import Testing

/// Radio garbage must never crash or hang a parser or a decoder: random byte strings through the AD
/// parser and every registered decoder, both as raw AD bytes and wrapped in each decoder's own
/// selector (so the decoder's parsing code is really reached, not just its first check).
@Suite struct RandomInputTests {
    @Test func hundredThousandRandomAdvertisementsThroughEverything() {
        var rng = SplitMix64(state: 0xB1E5_E450)
        let registry = Registry.standard(keys: DeviceKeys([BDAddress(rawValue: 1): Array(repeating: 0x11, count: 16)]))
        var readings = 0
        for i in 0..<100_000 {
            let data = rng.bytes(maxLength: 40)
            let address = BDAddress(rawValue: UInt64(i % 3))
            let ad = AdvertisingData(parsing: data)
            readings += registry.decode(Advertisement(address: address, data: data), ad).readings.count
        }
        #expect(readings >= 0)  // the assertion is reaching here: no trap, no hang
    }

    @Test func randomPayloadsInsideEachDecodersSelector() {
        var rng = SplitMix64(state: 0x5EED)
        let keys = DeviceKeys([BDAddress(rawValue: 1): Array(repeating: 0x11, count: 16)])
        let registry = Registry.standard(keys: keys)
        var reached: [String: Int] = [:]
        for decoder in registry.decoders {
            for selector in decoder.selectors {
                for i in 0..<5_000 {
                    let payload = rng.bytes(maxLength: 30)
                    var data: [UInt8]
                    switch selector {
                    case .serviceData16(let uuid):
                        data = [UInt8(payload.count + 3), 0x16, UInt8(uuid & 0xFF), UInt8(uuid >> 8)] + payload
                    case .manufacturer(let company):
                        data = [UInt8(payload.count + 3), 0xFF, UInt8(company & 0xFF), UInt8(company >> 8)] + payload
                    case .anyManufacturer:
                        data = [UInt8(payload.count + 1), 0xFF] + payload
                    case .manufacturerValueLength(let n):
                        data = [UInt8(n + 1), 0xFF] + (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                    case .manufacturerWithValueLength(let company, let n):
                        let rest = (0..<max(0, n - 2)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                        data = [UInt8(n + 1), 0xFF, UInt8(company & 0xFF), UInt8(company >> 8)] + rest
                    case .localNameLength(let n):
                        // Manufacturer data after a random name of that length.
                        let name = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                        data = [UInt8(n + 1), 0x09] + name + [UInt8(payload.count + 1), 0xFF] + payload
                    case .any:
                        data = payload
                    }
                    // Sometimes cut the structure short, sometimes add a name.
                    if i % 7 == 0 { data = Array(data.prefix(Int.random(in: 0...data.count, using: &rng))) }
                    if i % 5 == 0 { data += [0x04, 0x09, 0x41, 0x42, 0x43] }
                    let ad = Advertisement(address: BDAddress(rawValue: UInt64(i % 2)), data: data)
                    let out = decoder.decode(ad, AdvertisingData(parsing: data))
                    if case .readings(let r) = out {
                        reached[decoder.id.description, default: 0] += 1
                        for reading in r {
                            for m in reading.measurements {
                                #expect(!m.value.isNaN, "\(decoder.id) produced NaN for \(Hex.encode(data))")
                            }
                        }
                    }
                }
            }
        }
        #expect(!registry.decoders.isEmpty)
    }
}
