import SensorDecode
import Testing

/// An example thermometer: the README's "Adding a decoder" followed to the letter, in the test
/// target so that it ships nothing. Made-up format:
///
/// Where: service data, 16-bit UUID 0xFFF9 (a test value, not assigned); 7 bytes.
///
/// | offset | size | field                                  |
/// |--------|------|----------------------------------------|
/// | 0      | 1    | frame type 0x01                        |
/// | 1      | 2    | temperature, signed LE, hundredths °C  |
/// | 3      | 2    | humidity, unsigned LE, hundredths %    |
/// | 5      | 1    | battery %                              |
/// | 6      | 1    | XOR of bytes 0–5                       |
///
/// Integrity check: the XOR byte. Sample: `01 2a 09 88 13 64 dd` → 23.46 °C, 50.0 %, 100 %.
struct ExampleThermometerDecoder: SensorDecoder {
    let id = "example_thermometer"
    let selectors: [Selector] = [.serviceData(uuid16: 0xFFF9)]

    func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let frame = ad.serviceData(uuid16: 0xFFF9), frame.u8(0) == 0x01 else { return .notMine }
        guard frame.count == 7, let t = frame.le16s(1), let h = frame.le16(3), let battery = frame.u8(5),
            let check = frame.u8(6)
        else { return .malformed("frame of \(frame.count) bytes, expected 7") }
        guard frame.bytes.prefix(6).reduce(0, ^) == check else { return .malformed("XOR check fails") }
        let humidity = Double(h) / 100
        guard humidity <= 100, battery <= 100 else { return .malformed("humidity or battery out of range") }
        var r = ad.reading(decoder: id, model: "Example thermometer")
        r.add(.temperatureC, Double(t) / 100)
        r.add(.humidityPercent, humidity)
        r.add(.batteryPercent, Double(battery))
        return .reading(r)
    }
}

@Suite struct ExampleThermometerTests {
    let decoder = ExampleThermometerDecoder()
    let sample = Kit.bytes("012a09881364dd")

    @Test func headerSampleDecodes() {
        #expect(Kit.values(Kit.decode(decoder, Kit.serviceData(0xFFF9, sample)))
            == ["temperature_c": 23.46, "humidity_pct": 50.0, "battery_pct": 100])
    }

    @Test func wrongSelectorIsNotMine() {
        #expect(Kit.decode(decoder, Kit.serviceData(0xFFF8, sample)) == .notMine)
        #expect(Kit.decode(decoder, Kit.serviceData(0xFFF9, [0x02] + sample.dropFirst())) == .notMine)
    }

    @Test func corruptCheckIsMalformed() {
        var corrupt = sample
        corrupt[2] ^= 0x01
        #expect(Kit.isMalformed(Kit.decode(decoder, Kit.serviceData(0xFFF9, corrupt))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: sample) { Kit.serviceData(0xFFF9, $0) }
    }

    @Test func theRegistryLineReachesIt() {
        let registry = Registry(Registry.standard().decoders + [decoder])
        let result = registry.decode(Kit.advertisement(Kit.serviceData(0xFFF9, sample)))
        #expect(result.readings.map(\.decoderID) == ["example_thermometer"])
    }
}
