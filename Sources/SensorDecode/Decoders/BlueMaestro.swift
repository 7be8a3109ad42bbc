/// Blue Maestro Tempo Disc thermometers / hygrometers / barometers and the Pebble environment
/// monitor.
/// Models: Tempo Disc T, Tempo Disc THD, Tempo Disc THPD, Pebble
///
/// Where: manufacturer-specific data, company 0x0133 (Blue Maestro); byte 0 (after the id) is the
/// device version. Tempo Disc numbers are big-endian, the Pebble's little-endian.
///
/// Tempo Disc (offsets after the company id; temperatures s16 / 10 °C):
/// | version            | length | 1       | 2–3      | 4–5       | 6–7  | 8–9          | 10–11             |
/// |--------------------|--------|---------|----------|-----------|------|--------------|-------------------|
/// | 0x0D T (TD1in1)    | ≥ 10   | battery %| interval s| log count | temp | —            | —                 |
/// | 0x16, 0x17 THD (TD3in1) | ≥ 14 | battery %| interval s| log count | temp | humidity / 10 % | dew point / 10 °C |
/// | 0x1B THPD (TD4in1) | ≥ 14   | battery %| interval s| log count | temp | humidity / 10 % | pressure / 10 hPa |
///
/// Pebble (version 0x01, ≥ 18 bytes): three temperatures s16 LE / 10 °C at 1, 3, 5 (the second is
/// reported, as ble_monitor does), humidity % u8 at 7, pressure hPa u16 LE at
/// 8; the rest is not decoded.
///
/// Integrity check: none. Sanity: battery or humidity > 100 % is `malformed`.
///
/// Sample: `11 ff 33 01 17 55 0e 10 06 1e ff 2f 02 a6 ff 03 01 00` → Tempo Disc THD, battery 85 %,
/// temperature −20.9 °C, humidity 67.8 %, dew point −25.3 °C.
///
/// Source: custom-components/ble_monitor `bluemaestro.py` (versions, layouts); theengs decoder
/// `BM1IN1`/`BM3IN1`/`BM4IN1` (TD1in1/TD4in1 offsets). Their tests are among our vectors.
public struct BlueMaestroDecoder: SensorDecoder {
    public let id = "bluemaestro"
    public let selectors: [Selector] = [.manufacturer(company: 0x0133)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.manufacturerData(company: 0x0133), let version = d.u8(0) else { return .notMine }
        switch version {
        case 0x0D: return tempoDisc(d, ad, model: "Tempo Disc T", length: 10)
        case 0x16, 0x17: return tempoDisc(d, ad, model: "Tempo Disc THD", length: 14)
        case 0x1B: return tempoDisc(d, ad, model: "Tempo Disc THPD", length: 14)
        case 0x01: return pebble(d, ad)
        default: return .notMine
        }
    }

    private func tempoDisc(_ d: Frame, _ ad: Advertisement, model: String, length: Int) -> DecodeOutcome {
        guard d.count >= length, let battery = d.u8(1), let t = d.be16s(6) else {
            return .malformed("\(model) frame of \(d.count) bytes, expected \(length)")
        }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        var r = ad.reading(decoder: id, model: model)
        r.add(.temperatureC, Double(t) / 10)
        if length == 14, let h = d.be16(8), let third = d.be16s(10) {
            let humidity = Double(h) / 10
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            r.add(.humidityPercent, humidity)
            if model == "Tempo Disc THPD" {
                r.add(.pressureHPa, Double(UInt16(bitPattern: third)) / 10)
            } else {
                r.add(.dewpointC, Double(third) / 10)
            }
        }
        r.add(.batteryPercent, Double(battery))
        return .reading(consume r)
    }

    private func pebble(_ d: Frame, _ ad: Advertisement) -> DecodeOutcome {
        guard d.count >= 18, let t = d.le16s(3), let humidity = d.u8(7), let p = d.le16(8) else {
            return .malformed("Pebble frame of \(d.count) bytes, expected 18")
        }
        guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
        var r = ad.reading(decoder: id, model: "Pebble")
        r.add(.temperatureC, Double(t) / 10)
        r.add(.humidityPercent, Double(humidity))
        r.add(.pressureHPa, Double(p))
        return .reading(consume r)
    }
}
