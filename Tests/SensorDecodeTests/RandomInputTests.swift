import TestSupport
import SensorDecode
import Testing

/// Radio garbage must never crash, hang or fool a decoder: random byte strings through the AD
/// parser and every registered decoder, both as raw AD bytes and wrapped in each decoder's own
/// selector (so the decoder's parsing code is really reached, not just its first check). What a
/// decoder makes of them must still pass its own sanity rules.
@Suite struct RandomInputTests {
    /// A reading random bytes may yield: finite values, percentages within 0–100 (but BTHome's,
    /// a generic format that passes on what the device sent), from the decoder that ran.
    static func expectSane(_ readings: [Reading], from decoder: String? = nil, _ data: [UInt8]) {
        for r in readings {
            if let decoder { #expect(r.decoderID == decoder, "\(Hex.encode(data))") }
            for m in r.measurements {
                #expect(m.value.isFinite, "\(r.decoderID): \(m.quantity) \(m.value) for \(Hex.encode(data))")
                if r.decoderID != "bthome", m.quantity == .humidityPercent || m.quantity == .batteryPercent {
                    #expect((0...100).contains(m.value), "\(r.decoderID): \(m.quantity) \(m.value) for \(Hex.encode(data))")
                }
            }
        }
    }

    @Test func hundredThousandRandomAdvertisementsThroughEverything() {
        var rng = SplitMix64(state: 0xB1E5_E450)
        let registry = Registry.standard(keys: DeviceKeys([BDAddress(rawValue: 1): Array(repeating: 0x11, count: 16)]))
        for i in 0..<100_000 {
            let data = rng.bytes(maxLength: 40)
            let ad = Advertisement(address: BDAddress(rawValue: UInt64(i % 3)), data: data)
            #expect(ad.fields == AdvertisingData(parsing: data))
            Self.expectSane(registry.decode(ad).readings, data)
        }
    }

    @Test func randomPayloadsInsideEachDecodersSelector() {
        var rng = SplitMix64(state: 0x5EED)
        let keys = DeviceKeys([BDAddress(rawValue: 1): Array(repeating: 0x11, count: 16)])
        let registry = Registry.standard(keys: keys)
        var reached = 0
        for decoder in registry.decoders {
            for selector in decoder.selectors {
                for i in 0..<3_000 {
                    let payload = rng.bytes(maxLength: 30)
                    var data: [UInt8]
                    switch selector {
                    case .serviceData(let uuid):
                        data = [UInt8(payload.count + 3), 0x16, UInt8(uuid & 0xFF), UInt8(uuid >> 8)] + payload
                    case .manufacturer(let company):
                        data = [UInt8(payload.count + 3), 0xFF, UInt8(company & 0xFF), UInt8(company >> 8)] + payload
                    case .manufacturerLength(let n):
                        data = [UInt8(n + 1), 0xFF] + (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                    case .localName(let name):
                        data = Kit.name(name) + [UInt8(payload.count + 1), 0xFF] + payload
                    }
                    // Sometimes cut the structure short, sometimes add a name.
                    if i % 7 == 0 { data = Array(data.prefix(Int.random(in: 0...data.count, using: &rng))) }
                    if i % 5 == 0 { data += [0x04, 0x09, 0x41, 0x42, 0x43] }
                    let ad = Advertisement(address: BDAddress(rawValue: UInt64(i % 2)), data: data)
                    if case .readings(let r) = decoder.decode(ad) {
                        reached += 1
                        Self.expectSane(r, from: decoder.id, data)
                    }
                }
            }
        }
        #expect(reached > 1_000)  // the payloads reached the decoders' parsing, not only their first check
    }

    @Test func randomManufacturerDataIsRarelyClaimed() {
        var rng = SplitMix64(state: 0x5EED)
        let registry = Registry.standard()
        var claimed: [String: Int] = [:]
        let rounds = 10_000
        for _ in 0..<rounds {
            let length = Int.random(in: 2...29, using: &rng)
            let value = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let result = registry.decode(Kit.advertisement(Kit.ad(0xFF, value)))
            for r in result.readings { claimed[r.decoderID, default: 0] += 1 }
        }
        // Decoders that look at manufacturer data recognise their frames by fixed bytes, exact
        // lengths, a CRC or a name; random bytes should almost never pass (< 0.1 % each), but for
        // formats with a company id, where a random company is rarely theirs.
        for (id, count) in claimed {
            #expect(count * 1000 < rounds, "\(id) claimed \(count) of \(rounds) random manufacturer values")
        }
    }

    @Test func randomADStructuresUnderKnownSelectorsGiveOnlySaneReadings() {
        var rng = SplitMix64(state: 0xF00D)
        let registry = Registry.standard()
        let types: [UInt8] = [0x09, 0x16, 0xFF, 0x03, 0x06]
        let selectors: [[UInt8]] = [
            [0x88, 0xEC], [0x01, 0x00], [0x01, 0x88], [0x99, 0x04], [0x49, 0x24], [0x3D, 0xFD],
            [0x00, 0x0D], [0x69, 0x09], [0x10, 0x00], [0x00, 0x00],
        ]
        for _ in 0..<10_000 {
            var data: [UInt8] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let type = types.randomElement(using: &rng)!
                var value = type == 0x16 || type == 0xFF ? selectors.randomElement(using: &rng)! : []
                value += (0..<Int.random(in: 0...26, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                data += Kit.ad(type, value)
            }
            Self.expectSane(registry.decode(Kit.advertisement(data)).readings, data)
        }
    }
}
