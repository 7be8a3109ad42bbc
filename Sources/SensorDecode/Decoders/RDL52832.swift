/// RadioLand RDL52832 temperature/humidity/accelerometer beacon (nRF52832 board), which also
/// sends a plain iBeacon frame (named by the iBeacon decoder).
/// Models: RDL52832
///
/// Where: service data, 16-bit UUID 0x1803, 16 bytes. Numbers big-endian.
/// | offset | size | field                                              |
/// |--------|------|----------------------------------------------------|
/// | 0      | 2    | temperature, s8.8 (signed / 256) °C                |
/// | 2      | 2    | humidity, u8.8 (/ 256) %                           |
/// | 4      | 12   | accelerometer x/y/z with sign and calibration bytes (not decoded) |
///
/// 0x1803 is the Link Loss service, which no other known device puts in service data; another
/// length is `notMine`.
///
/// Integrity check: none. Sanity: humidity > 100 % is `malformed`.
///
/// Sample: `13 16 03 18 18 3a 2f 33 01 00 00 02 00 00 00 01 00 00 09 07` → temperature
/// 24.23 °C, humidity 47.20 %.
///
/// Source: theengs decoder `RDL52832` (UUID, offsets and scaling; its tests are among our vectors).
public struct RDL52832Decoder: SensorDecoder {
    public let id = "rdl52832"
    public let selectors: [Selector] = [.serviceData(uuid16: 0x1803)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.serviceData(uuid16: 0x1803), d.count == 16, let t = d.be16s(0), let h = d.be16(2) else {
            return .notMine
        }
        let humidity = Double(h) / 256
        guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
        var r = ad.reading(decoder: id, model: "RDL52832")
        r.add(.temperatureC, Double(t) / 256)
        r.add(.humidityPercent, humidity)
        return .reading(consume r)
    }
}
