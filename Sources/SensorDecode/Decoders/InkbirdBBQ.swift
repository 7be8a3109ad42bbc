/// Inkbird grill thermometers: iBBQ-1/2/4/6 (IBT-2X, IBT-4XS, IBT-6XS, Solis-6) and xBBQ.
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
    public var id: StaticString { "inkbird_bbq" }
    // By company and length: Govee's frames under company 0x0001 (other lengths) never reach it.
    public let selectors: [DecoderSelector] = [0x0000, 0x0001, 0x0002].flatMap { company in
        [12, 14, 18, 22].map { DecoderSelector.manufacturerWithValueLength(company: company, length: $0) }
    }

    public init() {}

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        // An index loop on the company ids: iterating the fields made each element (callgrind).
        for k in 0..<ad.manufacturerDataCount where ad.manufacturerCompany(at: k) <= 2 {
            let v = ad.bytes.extracting(ad.manufacturerValueRange(at: k))
            guard v.count == 12 || v.count == 14 || v.count == 18 || v.count == 22, v.u8(2) == 0, v.u8(3) == 0 else {
                continue
            }
            // Bytes 4..<10 as an address in either byte order; tested before the name, as it is
            // cheaper than the two scans of the name.
            let macMatches = v.macBE(4) == ad.header.address || v.macLE(4) == ad.header.address
            guard macMatches || ad.localNameContains("ibbq", ignoringCase: true)
                || ad.localNameContains("xbbq", ignoringCase: true)
            else { continue }
            let model = Self.model(probes: (v.count - 10) / 2, xBBQ: ad.localNameHasPrefix("x", ignoringCase: true))
            // Begun before the probes are read: one out of range returns `.malformed`, and the
            // registry then drops the reading.
            readings.begin(ad, decoderID: id, model: model)
            for n in 1...((v.count - 10) / 2) {
                let raw = v.le16s(10 + 2 * (n - 1))
                if raw == -10 { continue }  // 0xFFF6: no probe plugged in
                let t = Double(raw) / 10
                guard t >= -50, t <= 400 else { return .malformed("probe \(n) at \(t) °C out of range") }
                readings.add(.temperatureProbeC(n), t)
            }
            return .decoded
        }
        return .notMine
    }

    /// "iBBQ-4", "xBBQ-1", …: literals, as concatenating the count made a string per frame (callgrind).
    static func model(probes: Int, xBBQ: Bool) -> StaticString {
        switch (xBBQ, probes) {
        case (false, 1): "iBBQ-1"
        case (false, 2): "iBBQ-2"
        case (false, 4): "iBBQ-4"
        case (false, 6): "iBBQ-6"
        case (true, 1): "xBBQ-1"
        case (true, 2): "xBBQ-2"
        case (true, 4): "xBBQ-4"
        case (true, 6): "xBBQ-6"
        default: xBBQ ? "xBBQ" : "iBBQ"  // not reached: `decode` takes only the four sizes above
        }
    }
}
