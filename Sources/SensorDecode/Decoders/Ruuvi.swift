/// RuuviTag sensor beacons: data format 3 ("RAWv1") and data format 5 ("RAWv2").
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
/// Integrity check: none. Sanity: a frame of a known format with the wrong length, humidity
/// above 100 % or fraction digits above 99 (format 3) is `malformed`; a format-5 MAC that differs
/// from the advertiser address is a warning.
///
/// Sample: `1b ff 99 04 05 12 fc 53 94 c3 7c 00 04 ff fc 04 0c ac 36 42 00 cd cb b8 33 4c 88 4f`
/// → temperature 24.3 °C, humidity 53.49 %, pressure 1000.44 hPa, acceleration 0.004 / −0.004 /
/// 1.036 g, battery 2.977 V, tx power 4 dBm, movement 66, sequence 205.
///
/// Source: Ruuvi's data-format documentation (docs.ruuvi.com, "RAWv1" and "RAWv2"), whose
/// examples are among ruuvi.endpoints.c's tests in our vectors.
public struct RuuviDecoder: SensorDecoder {
    public var id: StaticString { "ruuvi" }
    public let selectors: [DecoderSelector] = [.manufacturer(0x0499)]

    public init() {}

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        guard let range = ad.manufacturerPayloadRange(company: 0x0499), !range.isEmpty else { return .notMine }
        let data = ad.bytes.extracting(range)
        switch data.u8(0) {
        case 0x03:
            guard data.count == 14 else { return .malformed("format 3 frame of \(data.count) bytes, expected 14") }
            let humidity = Double(data.u8(1)) / 2
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            let fraction = data.u8(3)
            guard fraction <= 99 else { return .malformed("temperature fraction \(fraction) out of range") }
            let whole = data.u8(2)
            let magnitude = Double(whole & 0x7F) + Double(fraction) / 100
            readings.begin(ad, decoderID: id, model: "RuuviTag", frameKind: "rawv1")
            readings.add(.temperatureC, whole & 0x80 != 0 ? -magnitude : magnitude)
            readings.add(.humidityPercent, humidity)
            readings.add(.pressureHPa, (Double(data.be16(4)) + 50000) / 100)
            readings.add(.accelerationXG, Double(data.be16s(6)) / 1000)
            readings.add(.accelerationYG, Double(data.be16s(8)) / 1000)
            readings.add(.accelerationZG, Double(data.be16s(10)) / 1000)
            readings.add(.voltageV, Double(data.be16(12)) / 1000)
        case 0x05:
            guard data.count == 24 else { return .malformed("format 5 frame of \(data.count) bytes, expected 24") }
            guard !data.allFF(from: 1) else { return .malformed("all-0xFF frame") }
            // Begun before the fields are read: a humidity out of range returns `.malformed` half
            // way, and the registry drops the reading.
            readings.begin(ad, decoderID: id, model: "RuuviTag", frameKind: "rawv2")
            if data.be16(1) != 0x8000 {
                readings.add(.temperatureC, Double(data.be16s(1)) * 0.005)
            }
            if data.be16(3) != 0xFFFF {
                let humidity = Double(data.be16(3)) * 0.0025
                guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
                readings.add(.humidityPercent, humidity)
            }
            if data.be16(5) != 0xFFFF {
                readings.add(.pressureHPa, (Double(data.be16(5)) + 50000) / 100)
            }
            // One test per axis: a list of (quantity, offset) pairs was an array made per frame.
            if data.be16(7) != 0x8000 {
                readings.add(.accelerationXG, Double(data.be16s(7)) / 1000)
            }
            if data.be16(9) != 0x8000 {
                readings.add(.accelerationYG, Double(data.be16s(9)) / 1000)
            }
            if data.be16(11) != 0x8000 {
                readings.add(.accelerationZG, Double(data.be16s(11)) / 1000)
            }
            let power = data.be16(13)
            if power >> 5 != 0x7FF {
                readings.add(.voltageV, Double(Int(power >> 5) + 1600) / 1000)
            }
            if power & 0x1F != 0x1F {
                readings.add(.txPowerDBm, Double(Int(power & 0x1F) * 2 - 40))
            }
            if data.u8(15) != 0xFF { readings.add(.movementCount, Double(data.u8(15))) }
            if data.be16(16) != 0xFFFF { readings.add(.packetCount, Double(data.be16(16))) }
            guard readings.currentMeasurementCount > 0 else { return .malformed("every field is \"not available\"") }
            // All 0xFF: the firmware does not send its MAC.
            if !data.allFF(from: 18) { readings.checkPayloadAddress(data.macBE(18)) }
        default:
            return .notMine  // formats 2, 4 (Eddystone URL), 6, 0xE1 …: not decoded here
        }
        return .decoded
    }
}
