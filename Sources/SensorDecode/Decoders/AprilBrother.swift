/// April Brother sensor beacons: ABTemp (temperature in an iBeacon frame) and ABSensor N03
/// (temperature, humidity, light).
/// Models: ABTemp, N03
///
/// Where, ABTemp: manufacturer-specific data, company 0x004C (Apple), iBeacon `02 15` with
/// April Brother's UUID `b5b182c7-eab1-4988-aa99-b5c1517008d9`; the minor carries the values:
/// byte 20 (after the company id) battery %, byte 21 temperature s8 °C. April Brother uses the
/// same UUID for its plain beacons, so the frame is taken as ABTemp only when the local name is
/// `ABTemp`; the iBeacon decoder still names the beacon either way.
///
/// Where, N03: service data, 16-bit UUID 0xFE59, 15 bytes. Numbers little-endian.
/// | offset | size | field                                  |
/// |--------|------|----------------------------------------|
/// | 0      | 1    | 0xAB (April Brother)                   |
/// | 1      | 1    | device type 0x03                       |
/// | 2      | 6    | device MAC, most significant byte first|
/// | 8      | 1    | battery %                              |
/// | 9      | 2    | temperature, s16 / 8 °C                |
/// | 11     | 2    | humidity, u16 / 2 %                    |
/// | 13     | 2    | illuminance, lux                       |
///
/// Integrity check: none. Sanity: battery or humidity > 100 % is `malformed`; the N03's payload
/// MAC is compared with the advertiser address (a warning).
///
/// Sample (N03): `12 16 59 fe ab 03 aa bb cc dd ee ff 64 eb ff 7f 00 5e 01` from AA:BB:CC:DD:EE:FF
/// → battery 100 %, temperature −2.625 °C, humidity 63.5 %, illuminance 350 lx.
///
/// Source: April Brother wiki `ABSensor.md` (N03 packet format, UUID 0xFE59); theengs decoder
/// `ABTemp`/`ABN03` (offsets and scaling; its tests are among our vectors).
public struct AprilBrotherDecoder: SensorDecoder {
    public let id = "april_brother"
    public let selectors: [Selector] = [.manufacturer(company: 0x004C), .serviceData(uuid16: 0xFE59)]

    static let abTempUUID: [UInt8] = [
        0xB5, 0xB1, 0x82, 0xC7, 0xEA, 0xB1, 0x49, 0x88, 0xAA, 0x99, 0xB5, 0xC1, 0x51, 0x70, 0x08, 0xD9,
    ]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        if let d = ad.serviceData(uuid16: 0xFE59), d.u8(0) == 0xAB, d.u8(1) == 0x03 { return decodeN03(d, ad) }
        guard ad.localNameIs("ABTemp"), let d = ad.manufacturerData(company: 0x004C), d.u8(0) == 0x02, d.u8(1) == 0x15,
            let uuid = d.bytes(2..<18), uuid.bytes.elementsEqual(Self.abTempUUID), d.count >= 23,
            let battery = d.u8(20), let t = d.i8(21)
        else { return .notMine }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        var r = ad.reading(decoder: id, model: "ABTemp")
        r.add(.temperatureC, Double(t))
        r.add(.batteryPercent, Double(battery))
        return .reading(consume r)
    }

    private func decodeN03(_ d: Frame, _ ad: Advertisement) -> DecodeOutcome {
        guard d.count >= 15, let mac = d.macBE(2), let battery = d.u8(8), let t = d.le16s(9), let h = d.le16(11),
            let lux = d.le16(13)
        else { return .malformed("N03 frame of \(d.count) bytes, expected 15") }
        let humidity = Double(h) / 2
        guard battery <= 100, humidity <= 100 else { return .malformed("battery or humidity out of range") }
        var r = ad.reading(decoder: id, model: "N03")
        r.add(.batteryPercent, Double(battery))
        r.add(.temperatureC, Double(t) / 8)
        r.add(.humidityPercent, humidity)
        r.add(.illuminanceLux, Double(lux))
        r.checkPayloadAddress(mac)
        return .reading(consume r)
    }
}
