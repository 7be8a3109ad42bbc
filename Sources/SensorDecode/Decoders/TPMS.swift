/// Generic Bluetooth tyre-pressure sensors (TPMS caps sold under many names, app "TPMS"), one
/// sensor per wheel.
/// Models: TPMS
///
/// Where: manufacturer-specific data, company 0x0100, 16 bytes after the id. Numbers
/// little-endian; offsets after the company id.
///
/// | offset | size | field                                                            |
/// |--------|------|------------------------------------------------------------------|
/// | 0      | 6    | the sensor's MAC, most significant byte first (byte 0 low nibble: wheel 0–3) |
/// | 6      | 4    | pressure, u32 Pa (gauge)                                         |
/// | 10     | 4    | temperature, s32 / 100 °C                                        |
/// | 14     | 1    | battery %                                                        |
/// | 15     | 1    | bit 0: alarm (pressure lost)                                     |
///
/// The frame is accepted when its MAC is the advertiser's address or the local name starts with
/// `TPMS`: company 0x0100 is used by other devices too. The pressure is stored as `pressure_kpa`.
///
/// Integrity check: none. Sanity: battery > 100 % is `malformed`.
///
/// Sample: `13 ff 00 01 80 ea ca dd ee ff f4 65 03 00 7c 0c 00 00 33 00` from 80:EA:CA:DD:EE:FF →
/// wheel 1, pressure 222.708 kPa, temperature 31.96 °C, battery 51 %, no alarm.
///
/// Source: theengs decoder `TPMS` (MAC condition, offsets, scaling; its tests are among our
/// vectors).
public struct TPMSDecoder: SensorDecoder {
    public let id = "tpms"
    public let selectors: [Selector] = [.manufacturer(company: 0x0100)]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.manufacturerData(company: 0x0100), d.count == 16, let mac = d.macBE(0),
            mac == ad.address || ad.localNameHasPrefix("TPMS"), let wheel = d.u8(0), let pascal = d.le32(6),
            let t = d.le32(10), let battery = d.u8(14), let alarm = d.u8(15)
        else { return .notMine }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        var r = ad.reading(decoder: id, model: "TPMS", frameKind: "wheel-\(wheel & 0x0F + 1)")
        r.add(.pressureKPa, Double(pascal) / 1000)
        r.add(.temperatureC, Double(Int32(bitPattern: t)) / 100)
        r.add(.batteryPercent, Double(battery))
        r.add(.problem, Double(alarm & 0x01))
        return .reading(consume r)
    }
}
