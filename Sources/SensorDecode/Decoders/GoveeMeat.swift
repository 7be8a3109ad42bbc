/// Govee meat (BBQ) thermometers: H5181, H5183 (one probe), H5182, H5184 (two probes per frame,
/// H5184 up to four), H5185 and H5198 (two probes per frame, H5198 up to four), H5191 (one probe
/// and the ambient temperature), and the H5055 (six probes, two per frame).
/// Models: H5181, H5182, H5183, H5184, H5185, H5191, H5198, H5055
///
/// Where: manufacturer-specific data whose company id is *not* fixed (it changes with the device
/// and firmware), so this decoder looks at any manufacturer data except Apple's iBeacon, and
/// recognises the frame by its fixed bytes and exact length. The model comes from the local name
/// (`GVH5183_2EC8`) or the 16-bit service UUID (0x8351 for H5183: the model with its bytes
/// swapped) when the advertisement carries one. Offsets are after the 2-byte company id.
///
/// Probe frames (H518x/H5191): bytes 1–4 are `01 00 01 01`; probe temperatures are s16 BE /100 °C;
/// 0xFFFF is "no probe" and is omitted.
///
/// | length | layout                                                                              | models       |
/// |--------|-------------------------------------------------------------------------------------|--------------|
/// | 14     | ?, 01 00 01 01, flags(3), probe 1, alarm 1, 00 00                                    | H5181, H5183 |
/// | 17     | ?, 01 00 01 01, ?, pair (1: probes 1–2, 2: 3–4), ?, probe a, alarm a, ?, probe b, alarm b | H5182/4 |
/// | 20     | ?, 01 00 01 01, ?, pair (low 6 bits), ?, probe a, alarm a, ?, probe b, alarm b, ?     | H5185, H5198 |
/// | 20     | ?, 01 00 01 01, flags(3), probe 1, alarm 1, ?, ambient temperature, ?, ?               | H5191        |
///
/// H5055 frame (20 bytes): ?, 00, battery %, probe byte (bits 7–6: pair index, bits 5–0: probe
/// plugged in, bit n for probe n+1), marker, probe a s16 LE °C, alarm(4), marker, probe b s16 LE °C,
/// alarm(4), 00 00. A probe is reported when its bit is set and its value is not 0xFFFF.
///
/// A 20-byte probe frame with no name or UUID is taken as H5185 when the pair byte (offset 6, low
/// 6 bits) is 1–3, else as H5191: a heuristic, stated as one.
///
/// Integrity check: none. Sanity: an unknown pair index is `malformed`; battery > 100 `malformed`.
///
/// Sample: `17 ff 32 49 0a 01 00 01 01 e4 c1 96 09 c4 1b bc ff ff 0a 28 24 74 ff ff` (UUID 0x8551)
/// → H5185, probe 1 25.0 °C, probe 2 26.0 °C.
///
/// Source: custom-components/ble_monitor `govee.py` (offsets, pair index, H5198 sensor ids);
/// Bluetooth-Devices govee-ble tests and theengs decoder `H5055_json` (the H5055 probe byte).
/// Peers report an unplugged probe (0xFFFF) as 0 °C; we omit it.
public struct GoveeMeatDecoder: SensorDecoder {
    public let id = "govee_meat"
    /// Whole manufacturer values of the frames below (data of 14, 17 or 20 bytes after the company
    /// id), alone or with an iBeacon glued on (`GoveeFrame.unglued`, 25 bytes more).
    static let valueLengths = [16, 19, 22, 41, 44, 47]
    public let selectors: [Selector] = GoveeMeatDecoder.valueLengths.map { .manufacturerLength($0) }

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        for m in ad.manufacturerData where m.companyID != GoveeFrame.appleCompany {
            let data = GoveeFrame.unglued(m.payload)
            if data.count == 14 || data.count == 17 || data.count == 20, data.u8(1) == 0x01, data.u8(2) == 0x00, data.u8(3) == 0x01,
                data.u8(4) == 0x01
            {
                return probeFrame(data, ad)
            } else if data.count == 20, isH5055(data, ad) {
                return h5055Frame(data, ad)
            }
        }
        return .notMine
    }

    private func isH5055(_ data: Frame, _ ad: Advertisement) -> Bool {
        guard data.u8(1) == 0x00 else { return false }
        // Without a name: the two probe markers agree and the frame ends in 00 00.
        if ad.localName == nil, data.u8(4) == data.u8(11), data.u8(18) == 0, data.u8(19) == 0,
            let battery = data.u8(2), battery <= 100
        {
            return true
        }
        return GoveeFrame.modelNumber(ad) == 5055
    }

    /// A probe's temperature in hundredths, big-endian, unless it reads "no probe" (0xFFFF).
    private func probe(_ data: Frame, _ offset: Int) -> Double? {
        guard let raw = data.be16(offset), raw != 0xFFFF else { return nil }
        return Double(Int16(bitPattern: raw)) / 100
    }

    private func probeFrame(_ data: Frame, _ ad: Advertisement) -> DecodeOutcome {
        let number = GoveeFrame.modelNumber(ad)
        let named = number.map(GoveeFrame.model(number:))
        guard let pairByte = data.u8(6) else { return .notMine }  // every frame here has 14 bytes or more
        var r: Reading
        switch data.count {
        case 14:
            r = ad.reading(decoder: id, model: named ?? "H5181/H5183", frameKind: "probe-14")
            if let t = probe(data, 8) { r.add(.temperatureProbeC(1), t) }
        case 17:
            let pair = Int(pairByte)
            guard (1...2).contains(pair) else { return .malformed("probe pair \(pair) unknown") }
            r = ad.reading(decoder: id, model: named ?? "H5182/H5184", frameKind: "probe-17")
            if let t = probe(data, 8) { r.add(.temperatureProbeC(2 * pair - 1), t) }
            if let t = probe(data, 13) { r.add(.temperatureProbeC(2 * pair), t) }
        default:  // 20
            let pair = Int(pairByte & 0x3F)
            if number == 5191 || (number == nil && !(1...3).contains(pair)) {
                r = ad.reading(decoder: id, model: named ?? "H5191", frameKind: "probe-20")
                if let t = probe(data, 8) { r.add(.temperatureProbeC(1), t) }
                if let ambient = probe(data, 14) { r.add(.temperatureC, ambient) }
            } else {
                guard (1...3).contains(pair) else { return .malformed("probe pair \(pair) unknown") }
                r = ad.reading(decoder: id, model: named ?? "H5185", frameKind: "probe-20")
                if let t = probe(data, 8) { r.add(.temperatureProbeC(2 * pair - 1), t) }
                if let t = probe(data, 14) { r.add(.temperatureProbeC(2 * pair), t) }
            }
        }
        return .reading(consume r)
    }

    private func h5055Frame(_ data: Frame, _ ad: Advertisement) -> DecodeOutcome {
        guard let battery = data.u8(2), let slots = data.u8(3), let first = data.le16(5), let second = data.le16(12)
        else { return .notMine }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        let pair = Int(slots >> 6)
        guard pair <= 2 else { return .malformed("H5055 probe pair \(pair) unknown") }
        let plugged = slots & 0x3F
        var r = ad.reading(decoder: id, model: "H5055", frameKind: "h5055")
        r.add(.batteryPercent, Double(battery))
        // Probe n (from 1), when plugged in (bit n − 1) and not 0xFFFF.
        for (n, raw) in [(2 * pair + 1, first), (2 * pair + 2, second)]
        where plugged & (1 << (n - 1)) != 0 && raw != 0xFFFF {
            r.add(.temperatureProbeC(n), Double(Int16(bitPattern: raw)))
        }
        return .reading(consume r)
    }
}
