/// RadioLand RDL52832 temperature/humidity/accelerometer beacon (nRF52832 board), which also
/// sends a plain iBeacon frame (named by the iBeacon decoder).
/// Models: RDL52832
///
/// Where: service data, 16-bit UUID 0x1803, 16 bytes. Numbers big-endian.
/// | offset | size | field                                              |
/// |--------|------|----------------------------------------------------|
/// | 0      | 2    | temperature, s8.8 (signed / 256) °C                |
/// | 2      | 2    | humidity, u8.8 (/ 256) %                           |
/// | 4      | 4    | acceleration x: sign (0 +, 1 −), then whole g, tenths, hundredths, one decimal digit each |
/// | 8      | 4    | acceleration y, as x                               |
/// | 12     | 4    | acceleration z, as x                               |
///
/// The axes are decimal digits (theengs adds them as 1 g, 0.1 g and 0.01 g steps and negates on
/// the sign byte); on the three captures a tag at rest reads 0.97–0.99 g.
/// 0x1803 is the Link Loss service, which no other known device puts in service data; another
/// length is `notMine`.
///
/// Integrity check: none. Sanity: humidity > 100 %, a sign byte other than 0/1 or a digit above 9
/// is `malformed`.
///
/// Sample: `13 16 03 18 18 3a 2f 33 01 00 00 02 00 00 00 01 00 00 09 07` → temperature
/// 24.23 °C, humidity 47.20 %, acceleration x −0.02 g, y 0.01 g, z 0.97 g.
///
/// Source: theengs decoder `RDL52832` (UUID, offsets and scaling; its tests are among our vectors;
/// its third axis is misnamed a second `accy` there).
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
        var axes: [Double] = []
        for start in [4, 8, 12] {
            // Inside the 16 bytes checked above.
            guard let sign = d.u8(start), let whole = d.u8(start + 1), let tenths = d.u8(start + 2),
                let hundredths = d.u8(start + 3)
            else { return .notMine }
            guard sign <= 1, whole <= 9, tenths <= 9, hundredths <= 9 else {
                return .malformed("acceleration bytes at \(start) are not a sign and three decimal digits")
            }
            let magnitude = Double(whole) + Double(tenths) / 10 + Double(hundredths) / 100
            axes.append(sign == 1 ? -magnitude : magnitude)
        }
        var r = ad.reading(decoder: id, model: "RDL52832")
        r.add(.temperatureC, Double(t) / 256)
        r.add(.humidityPercent, humidity)
        r.add(.accelerationXG, axes[0])
        r.add(.accelerationYG, axes[1])
        r.add(.accelerationZG, axes[2])
        return .reading(consume r)
    }
}
