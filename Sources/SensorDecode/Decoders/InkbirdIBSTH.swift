/// Inkbird IBS-TH1, IBS-TH1 Plus, IBS-TH2 and IBS-P01B thermometers (local name `sps` with
/// humidity, `tps` without; some units broadcast a corrupt name such as `N0BYD`).
/// Models: IBS-TH1, IBS-TH1 Plus, IBS-TH2, IBS-P01B (names `sps`, `tps`)
///
/// Where: manufacturer-specific data of exactly 9 bytes whose "company id" is not one: the first
/// two bytes are the temperature. All numbers little-endian; offsets count from the first byte of
/// the value (where the company id would be).
///
/// | offset | size | field                                                                  |
/// |--------|------|------------------------------------------------------------------------|
/// | 0      | 2    | temperature, s16 LE / 100 °C                                           |
/// | 2      | 2    | humidity, u16 LE / 100 % (`tps`: 0 or 0xFFFF, no sensor)               |
/// | 4      | 1    | probe: 0 internal sensor, 1 (or 3) external probe                      |
/// | 5      | 2    | CRC-16/MODBUS of bytes 0–4, little-endian                              |
/// | 7      | 1    | battery %                                                              |
/// | 8      | 1    | device type                                                            |
///
/// Integrity check: the CRC. A frame from a device named `sps`/`tps` whose CRC fails is
/// `malformed`; a nameless 9-byte value is only claimed when its CRC holds (about 1 in 65536 for
/// random data). Sanity: humidity > 100 % or battery > 100 % is `malformed`.
///
/// Sample: `04 09 73 70 73 0a ff 3b 09 d0 13 00 ce 90 64 06` (name `sps`) → temperature 23.63 °C,
/// humidity 50.72 %, battery 100 %.
///
/// Source: Bluetooth-Devices inkbird-ble and custom-components/ble_monitor (`inkbird.py`: layout,
/// names, probe byte); the CRC algorithm was identified here against the peers' real captures
/// (every one of them checks; theengs' hand-edited test frames do not).
public struct InkbirdIBSTHDecoder: SensorDecoder {
    public let id = "inkbird_ibs_th"
    public let selectors: [Selector] = [.manufacturerLength(9)]

    public init() {}

    /// CRC-16/MODBUS: reflected polynomial 0xA001, initial value 0xFFFF, no final XOR.
    public static func crc16Modbus<C: Collection>(_ bytes: C) -> UInt16 where C.Element == UInt8 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let v = ad.manufacturerData.first(where: { $0.value.count == 9 })?.frame,
            let t = v.le16s(0), let rawHumidity = v.le16(2), let probe = v.u8(4), let crc = v.le16(5),
            let battery = v.u8(7)
        else { return .notMine }
        let hasHumidity: Bool?  // nil: no name, decide from the value
        if ad.localNameIs("sps", ignoringCase: true) || ad.localNameIs("n0byd", ignoringCase: true) {
            hasHumidity = true
        } else if ad.localNameIs("tps", ignoringCase: true) {
            hasHumidity = false
        } else {
            hasHumidity = nil
        }
        // Without a name, a phone's 9-byte value that fails the CRC is not ours.
        guard Self.crc16Modbus(v.bytes.prefix(5)) == crc else {
            return hasHumidity == nil ? .notMine : .malformed("CRC 0x\(Hex.number(crc, digits: 1)) does not match its frame")
        }
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        let temperature = Double(t) / 100
        var r = ad.reading(decoder: id, model: hasHumidity == false ? "IBS-TH2/P01B" : "IBS-TH")
        switch probe {
        case 0: r.add(.temperatureC, temperature)
        case 1, 3: r.add(.temperatureProbeC(1), temperature)
        default: return .malformed("probe byte \(probe) unknown")
        }
        if hasHumidity ?? (rawHumidity != 0 && rawHumidity != 0xFFFF) {
            let humidity = Double(rawHumidity) / 100
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            r.add(.humidityPercent, humidity)
        }
        r.add(.batteryPercent, Double(battery))
        return .reading(consume r)
    }
}
