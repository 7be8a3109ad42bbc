#if canImport(Glibc)
import Glibc  // exp, log (format 6's luminosity)
#elseif canImport(Darwin)
import Darwin
#endif

/// RuuviTag sensor beacons: data format 3 ("RAWv1") and data format 5 ("RAWv2"); Ruuvi Air:
/// data format 6.
/// Models: RuuviTag, RuuviTag Pro (data formats 3 and 5), Ruuvi Air (data format 6)
///
/// Where: manufacturer-specific data, company 0x0499 (Ruuvi Innovations); byte 0 (after the
/// company id) is the data format. Every number is big-endian.
///
/// Format 3, 14 bytes:
/// | offset | size | field                                                        |
/// |--------|------|--------------------------------------------------------------|
/// | 0      | 1    | 0x03                                                         |
/// | 1      | 1    | humidity, u8 × 0.5 %                                         |
/// | 2      | 1    | temperature, whole °C, sign-magnitude (bit 7 = negative)      |
/// | 3      | 1    | temperature, hundredths of °C (0–99), same sign               |
/// | 4      | 2    | pressure, u16 + 50000 Pa                                      |
/// | 6      | 6    | acceleration x, y, z, s16 mG                                  |
/// | 12     | 2    | battery, u16 mV                                               |
///
/// Format 5, 24 bytes ("not available" values in brackets are omitted):
/// | offset | size | field                                                        |
/// |--------|------|--------------------------------------------------------------|
/// | 0      | 1    | 0x05                                                         |
/// | 1      | 2    | temperature, s16 × 0.005 °C [0x8000]                          |
/// | 3      | 2    | humidity, u16 × 0.0025 % [0xFFFF]                             |
/// | 5      | 2    | pressure, u16 + 50000 Pa [0xFFFF]                             |
/// | 7      | 6    | acceleration x, y, z, s16 mG [0x8000]                         |
/// | 13     | 2    | bits 15–5: battery mV − 1600 [2047]; bits 4–0: tx power (2n − 40 dBm) [31] |
/// | 15     | 1    | movement counter [0xFF]                                       |
/// | 16     | 2    | measurement sequence number [0xFFFF]                          |
/// | 18     | 6    | MAC address (big-endian) [all 0xFF]                           |
///
/// Format 6 (Ruuvi Air), at least 20 bytes (later firmware may append more, ignored):
/// | offset | size | field                                                        |
/// |--------|------|--------------------------------------------------------------|
/// | 0      | 1    | 0x06                                                         |
/// | 1      | 2    | temperature, s16 × 0.005 °C [0x8000]                          |
/// | 3      | 2    | humidity, u16 × 0.0025 % [0xFFFF]                             |
/// | 5      | 2    | pressure, u16 + 50000 Pa [0xFFFF]                             |
/// | 7      | 2    | PM2.5, u16 × 0.1 µg/m³ [0xFFFF]                               |
/// | 9      | 2    | CO₂, ppm [0xFFFF]                                             |
/// | 11     | 1    | VOC index, bits 8–1 (bit 0 in the flags) [0x1FF]              |
/// | 12     | 1    | NOx index, bits 8–1 (bit 0 in the flags) [0x1FF]              |
/// | 13     | 1    | luminosity code: lux = e^(code × ln 65536 / 254) − 1 [0xFF]   |
/// | 14     | 1    | sound level, bits 8–1 (not stored)                            |
/// | 15     | 1    | measurement sequence number, u8                               |
/// | 16     | 1    | flags: bit 0 calibrating, bit 4 sound bit 0, bit 6 VOC bit 0, bit 7 NOx bit 0 |
/// | 17     | 3    | the MAC's last three bytes                                    |
///
/// The luminosity steps are 4 % apart; lux is rounded to whole lux as Ruuvi's decoders do.
///
/// Integrity check: none. Sanity: a frame of a known format with the wrong length, humidity
/// above 100 % or fraction digits above 99 (format 3) is `malformed`; a format-5 MAC that differs
/// from the advertiser address is a warning.
///
/// Sample: `1b ff 99 04 05 12 fc 53 94 c3 7c 00 04 ff fc 04 0c ac 36 42 00 cd cb b8 33 4c 88 4f`
/// → temperature 24.3 °C, humidity 53.49 %, pressure 1000.44 hPa, acceleration 0.004 / −0.004 /
/// 1.036 g, battery 2.977 V, tx power 4 dBm, movement 66, sequence 205.
///
/// Source: Ruuvi's data-format documentation (docs.ruuvi.com, "RAWv1", "RAWv2", "Data format 6"),
/// whose examples are among ruuvi.endpoints.c's tests in our vectors; ruuvi.endpoints.c
/// `ruuvi_endpoint_6.h` and Bluetooth-Devices ruuvitag-ble (format 6: invalid values, the
/// luminosity scale, VOC/NOx low bits).
public struct RuuviDecoder: SensorDecoder {
    public let id = "ruuvi"
    public let selectors: [Selector] = [.manufacturer(company: 0x0499)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let data = ad.manufacturerData(company: 0x0499), let format = data.u8(0) else { return .notMine }
        switch format {
        case 0x03:
            guard data.count == 14, let h = data.u8(1), let whole = data.u8(2), let fraction = data.u8(3),
                let pressure = data.be16(4), let x = data.be16s(6), let y = data.be16s(8), let z = data.be16s(10),
                let millivolts = data.be16(12)
            else { return .malformed("format 3 frame of \(data.count) bytes, expected 14") }
            let humidity = Double(h) / 2
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            guard fraction <= 99 else { return .malformed("temperature fraction \(fraction) out of range") }
            let magnitude = Double(whole & 0x7F) + Double(fraction) / 100
            var r = ad.reading(decoder: id, model: "RuuviTag", frameKind: "rawv1")
            r.add(.temperatureC, whole & 0x80 != 0 ? -magnitude : magnitude)
            r.add(.humidityPercent, humidity)
            r.add(.pressureHPa, (Double(pressure) + 50000) / 100)
            r.add(.accelerationXG, Double(x) / 1000)
            r.add(.accelerationYG, Double(y) / 1000)
            r.add(.accelerationZG, Double(z) / 1000)
            r.add(.voltageV, Double(millivolts) / 1000)
            return .reading(consume r)
        case 0x05:
            guard data.count == 24, let t = data.be16(1), let h = data.be16(3), let p = data.be16(5),
                let x = data.be16(7), let y = data.be16(9), let z = data.be16(11), let power = data.be16(13),
                let movements = data.u8(15), let sequence = data.be16(16), let mac = data.macBE(18)
            else { return .malformed("format 5 frame of \(data.count) bytes, expected 24") }
            guard !data.isAllFF(from: 1) else { return .malformed("all-0xFF frame") }
            var r = ad.reading(decoder: id, model: "RuuviTag", frameKind: "rawv2")
            // Each field has a "not available" value, and is left out when it has it.
            if let why = RuuviFields.addClimate(temperature: t, humidity: h, pressure: p, to: &r) {
                return .malformed(why)
            }
            if x != 0x8000 { r.add(.accelerationXG, Double(Int16(bitPattern: x)) / 1000) }
            if y != 0x8000 { r.add(.accelerationYG, Double(Int16(bitPattern: y)) / 1000) }
            if z != 0x8000 { r.add(.accelerationZG, Double(Int16(bitPattern: z)) / 1000) }
            if power >> 5 != 0x7FF { r.add(.voltageV, Double(Int(power >> 5) + 1600) / 1000) }
            if power & 0x1F != 0x1F { r.add(.txPowerDBm, Double(Int(power & 0x1F) * 2 - 40)) }
            if movements != 0xFF { r.add(.movementCount, Double(movements)) }
            if sequence != 0xFFFF { r.add(.packetCount, Double(sequence)) }
            guard !r.measurements.isEmpty else { return .malformed("every field is \"not available\"") }
            // All 0xFF: the firmware does not send its MAC.
            if !data.isAllFF(from: 18) { r.checkPayloadAddress(mac) }
            return .reading(consume r)
        case 0x06:
            return decodeAir(data, ad)
        default:
            return .notMine  // formats 2, 4 (Eddystone URL: RuuviEddystoneURL.swift), 0xE1 …: not here
        }
    }

    /// Format 6, Ruuvi Air.
    func decodeAir(_ data: Frame, _ ad: Advertisement) -> DecodeOutcome {
        guard data.count >= 20, let t = data.be16(1), let h = data.be16(3), let p = data.be16(5),
            let pm = data.be16(7), let co2 = data.be16(9), let vocHigh = data.u8(11), let noxHigh = data.u8(12),
            let light = data.u8(13), let sequence = data.u8(15), let flags = data.u8(16)
        else { return .malformed("format 6 frame of \(data.count) bytes, expected ≥ 20") }
        var r = ad.reading(decoder: id, model: "Ruuvi Air", frameKind: "df6")
        if let why = RuuviFields.addClimate(temperature: t, humidity: h, pressure: p, to: &r) { return .malformed(why) }
        if pm != 0xFFFF { r.add(.pm25UgM3, Double(pm) / 10) }
        if co2 != 0xFFFF { r.add(.co2PPM, Double(co2)) }
        RuuviFields.addIndices(vocHigh: vocHigh, noxHigh: noxHigh, flags: flags, to: &r)
        if light != 0xFF { r.add(.illuminanceLux, (exp(Double(light) * log(65536) / 254) - 1).rounded()) }
        r.add(.packetCount, Double(sequence))
        return .reading(consume r)
    }
}
