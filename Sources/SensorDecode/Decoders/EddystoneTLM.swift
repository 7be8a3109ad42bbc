/// Eddystone-TLM, Google's open "telemetry" frame: battery voltage, beacon temperature, counters.
/// Sent by many beacons between their UID/URL frames, among them the SANWA MM-BLEBC7 (Minew) when
/// a slot is set to TLM.
/// Models: any Eddystone beacon sending TLM, e.g. SANWA MM-BLEBC7 (Minew) with a TLM slot
///
/// Where: service data, 16-bit UUID 0xFEAA; byte 0 = frame type 0x20 (TLM), byte 1 = version.
/// Only version 0x00 (plain TLM) is decoded: version 0x01 is encrypted (eTLM) and other frame types
/// (0x00 UID, 0x10 URL, 0x30 EID, vendor frames such as KKM's 0x21) are not ours. Big-endian.
/// | offset | size | field                                                         |
/// |--------|------|---------------------------------------------------------------|
/// | 0      | 1    | frame type 0x20                                               |
/// | 1      | 1    | version 0x00                                                  |
/// | 2      | 2    | battery mV; 0 = not supported (omitted)                       |
/// | 4      | 2    | temperature, signed 8.8 °C; 0x8000 = not supported (omitted)  |
/// | 6      | 4    | advertising PDU count since power-on                          |
/// | 10     | 4    | time since power-on, 0.1 s                                    |
///
/// Integrity check: none. A TLM frame of another length than 14 is `malformed`.
///
/// Sample: `11 16 aa fe 20 00 0b b8 ff 80 00 00 01 00 00 00 27 10` → 3.0 V, −0.5 °C, 256 PDUs,
/// uptime 1000 s.
///
/// Source: github.com/google/eddystone, `eddystone-tlm/tlm-plain.md`.
public struct EddystoneTLMDecoder: SensorDecoder {
    public let id = "eddystone_tlm"
    public let selectors: [Selector] = [.serviceData(uuid16: 0xFEAA)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let frame = ad.serviceData(uuid16: 0xFEAA), frame.u8(0) == 0x20, frame.u8(1) == 0x00 else {
            return .notMine
        }
        guard frame.count == 14, let millivolts = frame.be16(2), let temperature = frame.be16s(4),
            let packets = frame.be32(6), let uptime = frame.be32(10)
        else { return .malformed("TLM frame of \(frame.count) bytes, expected 14") }
        var r = ad.reading(decoder: id, model: "Eddystone TLM", frameKind: "tlm")
        if millivolts != 0 { r.add(.voltageV, Double(millivolts) / 1000) }  // 0: not supported
        if temperature != Int16.min { r.add(.temperatureC, Double(temperature) / 256) }  // 0x8000: not supported
        r.add(.packetCount, Double(packets))
        r.add(.uptimeS, Double(uptime) / 10)
        return .reading(consume r)
    }
}
