/// Inkbird grill thermometers: iBBQ-1/2/4/6 (IBT-2X, IBT-4XS, IBT-6XS, Solis-6) and xBBQ.
/// Models: iBBQ-1/2/4/6 (IBT-2X, IBT-4XS, IBT-6XS, Solis-6), xBBQ
///
/// Where: manufacturer-specific data with company 0x0000 (iBBQ) or 0x0001/0x0002 (xBBQ); offsets
/// count from the first byte of the whole value (the company id included).
///
/// | offset | size  | field                                                          |
/// |--------|-------|----------------------------------------------------------------|
/// | 0      | 2     | 00 00 / 01 00 / 02 00                                          |
/// | 2      | 2     | 00 00                                                          |
/// | 4      | 6     | MAC address (iBBQ: big- or little-endian; xBBQ: other data)    |
/// | 10     | 2 × n | probe n, s16 LE / 10 °C; 0xFFF6 (−1.0) = no probe, omitted     |
///
/// Value length 12, 14, 18 or 22 → 1, 2, 4 or 6 probes. The frame is claimed when the local name
/// contains `iBBQ`/`xBBQ`, or when its MAC field equals the advertiser address (in either byte
/// order): the check that stands in for an integrity check here. When an xBBQ sends both a
/// company-1 and a company-2 structure, the first is decoded (inkbird-ble ignores company 2 then).
///
/// Integrity check: none beyond the MAC match. Sanity: a probe beyond 400 °C or below −50 °C is
/// `malformed`.
///
/// Sample: `0f ff 00 00 00 00 34 14 b5 ab f4 7b c8 00 d2 00` from 34:14:B5:AB:F4:7B → probe 1
/// 20.0 °C, probe 2 21.0 °C.
///
/// Source: custom-components/ble_monitor and Bluetooth-Devices inkbird-ble (`inkbird.py`,
/// lengths and s16/10); theengs decoder IBT-2X/4X/6XS tests (0xFFF6 = unplugged, omitted).
public struct InkbirdBBQDecoder: SensorDecoder {
    public let id = "inkbird_bbq"
    /// Under company ids 0 to 2; Govee's frames under 0x0001 have other lengths.
    public let selectors: [Selector] = [0x0000, 0x0001, 0x0002].map { .manufacturer(company: $0) }

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        for m in ad.manufacturerData where m.companyID <= 2 {
            let v = m.frame
            guard v.count == 12 || v.count == 14 || v.count == 18 || v.count == 22, v.u8(2) == 0, v.u8(3) == 0,
                let macBE = v.macBE(4), let macLE = v.macLE(4)
            else { continue }
            // Bytes 4..<10 are the advertiser's address in either byte order, or the name says iBBQ.
            guard macBE == ad.address || macLE == ad.address || ad.localNameContains("ibbq", ignoringCase: true)
                || ad.localNameContains("xbbq", ignoringCase: true)
            else { continue }
            let probes = (v.count - 10) / 2
            var r = ad.reading(
                decoder: id, model: (ad.localNameHasPrefix("x", ignoringCase: true) ? "xBBQ-" : "iBBQ-") + "\(probes)")
            for n in 1...probes {
                guard let raw = v.le16s(10 + 2 * (n - 1)) else { continue }
                if raw == -10 { continue }  // 0xFFF6: no probe plugged in
                let t = Double(raw) / 10
                guard t >= -50, t <= 400 else { return .malformed("probe \(n) at \(t) °C out of range") }
                r.add(.temperatureProbeC(n), t)
            }
            return .reading(consume r)
        }
        return .notMine
    }
}
