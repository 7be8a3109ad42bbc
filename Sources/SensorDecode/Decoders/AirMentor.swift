/// Air Mentor Pro 2 indoor air-quality monitor.
/// Models: Air Mentor Pro 2
///
/// Where: manufacturer-specific data, 8 bytes after an id whose low byte is the message type:
/// 0x2122 (climate) or 0x2121 (particles and CO₂). Numbers big-endian; offsets after the id.
///
/// Climate (0x2122):
/// | offset | size | field                                                  |
/// |--------|------|--------------------------------------------------------|
/// | 0      | 2    | TVOC (unit not documented: not decoded)                |
/// | 2      | 2    | temperature at the sensor: (raw − 4000) / 100 °C       |
/// | 4      | 1    | self-heating correction, 0.1 °C                        |
/// | 5      | 1    | humidity at the sensor, %                              |
/// | 6      | 2    | air-quality index (not decoded)                        |
///
/// Air (0x2121): CO₂ ppm at 0, PM2.5 µg/m³ at 2, PM10 µg/m³ at 4, CO and O₃ (unused) at 6, 7.
///
/// The sensor sits next to the electronics: the room's temperature is the sensor's minus the
/// correction, and the room's humidity is the sensor's converted to that temperature (same
/// water-vapour pressure, Magnus formula 17.62 / 243.12 °C). We store the room's values;
/// bleparser stores the sensor's temperature next to the room's humidity.
///
/// Integrity check: none. Sanity: humidity > 100 % at the sensor is `malformed`.
///
/// Sample: `0b ff 22 21 00 b9 19 63 33 2d 01 45` → temperature 19.89 °C (24.99 °C at the sensor
/// − 5.1), humidity 61.3 % (45 % at the sensor).
///
/// Source: custom-components/ble_monitor and Ernst79/bleparser `airmentor.py` (ids, layout,
/// correction and humidity conversion; their test is among our vectors).
public struct AirMentorDecoder: SensorDecoder {
    public let id = "air_mentor"
    public let selectors: [Selector] = [.manufacturer(company: 0x2122), .manufacturer(company: 0x2121)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        if let d = ad.manufacturerData(company: 0x2122), d.count == 8, let raw = d.be16(2), let correction = d.u8(4),
            let sensorHumidity = d.u8(5)
        {
            guard sensorHumidity <= 100 else { return .malformed("humidity \(sensorHumidity) % out of range") }
            let sensorT = (Double(raw) - 4000) / 100
            let roomT = sensorT - Double(correction) / 10
            var r = ad.reading(decoder: id, model: "Air Mentor Pro 2", frameKind: "climate")
            r.add(.temperatureC, roomT)
            r.add(.humidityPercent, min(100, Double(sensorHumidity) * Self.vapourPressureRatio(sensorT, roomT)))
            return .reading(consume r)
        }
        if let d = ad.manufacturerData(company: 0x2121), d.count == 8, let co2 = d.be16(0), let pm25 = d.be16(2),
            let pm10 = d.be16(4)
        {
            var r = ad.reading(decoder: id, model: "Air Mentor Pro 2", frameKind: "air")
            r.add(.co2PPM, Double(co2))
            r.add(.pm25UgM3, Double(pm25))
            r.add(.pm10UgM3, Double(pm10))
            return .reading(consume r)
        }
        return .notMine
    }

    /// Saturation vapour pressure at `a` over that at `b` (°C), by the Magnus formula.
    static func vapourPressureRatio(_ a: Double, _ b: Double) -> Double {
        exp(17.62 * a / (243.12 + a) - 17.62 * b / (243.12 + b))
    }

    /// e^x: SensorDecode does without Foundation, and x here is a few units at most. The series
    /// converges fast once x is halved below 1/2; squaring undoes the halvings.
    static func exp(_ x: Double) -> Double {
        guard x.isFinite else { return x > 0 ? .infinity : 0 }
        var y = x
        var halvings = 0
        while abs(y) > 0.5 {
            y /= 2
            halvings += 1
        }
        var term = 1.0
        var sum = 1.0
        for n in 1...20 {
            term *= y / Double(n)
            sum += term
        }
        for _ in 0..<halvings { sum *= sum }
        return sum
    }
}
