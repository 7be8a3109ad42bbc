/// Govee meat (BBQ) thermometers: H5181, H5183 (one probe), H5182, H5184 (two probes per frame,
/// H5184 up to four), H5185 and H5198 (two probes per frame, H5198 up to four), H5191 (one probe
/// and the ambient temperature), and the H5055 (six probes, two per frame).
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
    public var id: StaticString { "govee_meat" }
    /// Whole manufacturer values of the frames below (data of 14, 17 or 20 bytes after the company
    /// id), alone or with an iBeacon glued on (`GoveeFrame.unglued`, 25 bytes more).
    static let valueLengths = [16, 19, 22, 41, 44, 47]
    public let selectors: [DecoderSelector] = GoveeMeatDecoder.valueLengths.map { .manufacturerValueLength($0) }

    public init() {}

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        // An index loop on the company ids: iterating the fields made each element (callgrind).
        for k in 0..<ad.manufacturerDataCount where ad.manufacturerCompany(at: k) != GoveeFrame.appleCompany {
            let bytes = ad.bytes
            let data = bytes.extracting(GoveeFrame.unglued(ad.manufacturerPayloadRange(at: k), in: bytes))
            if data.count == 14 || data.count == 17 || data.count == 20, data.u8(1) == 0x01, data.u8(2) == 0x00,
                data.u8(3) == 0x01, data.u8(4) == 0x01
            {
                return probeFrame(data, ad, into: &readings)
            } else if data.count == 20, isH5055(data, ad) {
                return h5055Frame(data, ad, into: &readings)
            }
        }
        return .notMine
    }

    private func isH5055(_ data: Span<UInt8>, _ ad: ADView) -> Bool {
        guard data.u8(1) == 0x00 else { return false }
        // Without a name: the two probe markers agree and the frame ends in 00 00. Tested first,
        // as it holds whatever model a UUID names, and making the model is most of the cost.
        if ad.localNameRange == nil && data.u8(4) == data.u8(11) && data.u8(18) == 0 && data.u8(19) == 0
            && data.u8(2) <= 100
        {
            return true
        }
        return GoveeFrame.modelNumber(ad) == 5055
    }

    private func probe(_ data: Span<UInt8>, _ offset: Int) -> Double? {
        let raw = data.be16(offset)
        return raw == 0xFFFF ? nil : Double(Int16(bitPattern: raw)) / 100
    }

    private func probeFrame(
        _ data: Span<UInt8>, _ ad: ADView,
        into readings: inout ReadingList
    ) -> DecodeVerdict {
        let number = GoveeFrame.modelNumber(ad)
        let named = number.flatMap(GoveeFrame.knownModel)
        /// Begins the reading; `kind` is a literal, as an interpolated "probe-\(count)" cost a string
        /// build per frame. A model number not known by name is named at run time.
        func begin(_ model: StaticString, _ kind: StaticString) {
            readings.begin(ad, decoderID: id, model: named ?? model, frameKind: kind)
            if let number, named == nil { readings.setModel(GoveeFrame.model(number: number)) }
        }
        /// Probe `n` at `offset`, unless it reads "no probe".
        func addProbe(_ n: Int, at offset: Int) {
            if let t = probe(data, offset) { readings.add(.temperatureProbeC(n), t) }
        }
        switch data.count {
        case 14:
            begin(named ?? "H5181/H5183", "probe-14")
            addProbe(1, at: 8)
        case 17:
            let pair = Int(data.u8(6))
            guard (1...2).contains(pair) else { return .malformed("probe pair \(pair) unknown") }
            begin(named ?? "H5182/H5184", "probe-17")
            addProbe(2 * pair - 1, at: 8)
            addProbe(2 * pair, at: 13)
        default:  // 20
            let pair = Int(data.u8(6) & 0x3F)
            let isH5191 = number == 5191 || (number == nil && !(1...3).contains(pair))
            if isH5191 {
                begin("H5191", "probe-20")
                addProbe(1, at: 8)
                if let ambient = probe(data, 14) { readings.add(.temperatureC, ambient) }
            } else {
                guard (1...3).contains(pair) else { return .malformed("probe pair \(pair) unknown") }
                begin(named ?? "H5185", "probe-20")
                addProbe(2 * pair - 1, at: 8)
                addProbe(2 * pair, at: 14)
            }
        }
        return .decoded
    }

    private func h5055Frame(
        _ data: Span<UInt8>, _ ad: ADView,
        into readings: inout ReadingList
    ) -> DecodeVerdict {
        let battery = data.u8(2)
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        let pair = Int(data.u8(3) >> 6)
        guard pair <= 2 else { return .malformed("H5055 probe pair \(pair) unknown") }
        let plugged = data.u8(3) & 0x3F
        readings.begin(ad, decoderID: id, model: "H5055", frameKind: "h5055")
        readings.add(.batteryPercent, Double(battery))
        /// Probe `n` (from 1) at `offset`, when plugged in and not 0xFFFF. A function per slot: a
        /// list of (slot, offset) pairs was an array made per frame (callgrind).
        func addProbe(_ n: Int, at offset: Int) {
            let raw = data.le16(offset)
            if plugged & (1 << (n - 1)) != 0, raw != 0xFFFF {
                readings.add(.temperatureProbeC(n), Double(Int16(bitPattern: raw)))
            }
        }
        addProbe(2 * pair + 1, at: 5)
        addProbe(2 * pair + 2, at: 12)
        return .decoded
    }
}
