/// Inkbird IBS-TH1, IBS-TH1 Plus, IBS-TH2 and IBS-P01B thermometers (local name `sps` with
/// humidity, `tps` without; some units broadcast a corrupt name such as `N0BYD`).
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
    public var id: StaticString { "inkbird_ibs_th" }
    public let selectors: [DecoderSelector] = [.manufacturerValueLength(9)]

    public init() {}

    /// CRC-16/MODBUS: reflected polynomial 0xA001, initial value 0xFFFF, no final XOR. Table-driven:
    /// every phone's 9-byte manufacturer value is checked here, so a byte costs a lookup, not 8 shifts.
    public static func crc16Modbus(_ bytes: Span<UInt8>) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        let table = crcTable  // read once, not once per byte
        for i in bytes.indices { crc = (crc >> 8) ^ table[Int(UInt8(truncatingIfNeeded: crc) ^ bytes[i])] }
        return crc
    }

    /// The CRC of each byte value alone, shifted through the polynomial bit by bit.
    private static let crcTable: [UInt16] = (0...255).map { (byte: Int) -> UInt16 in
        var crc = UInt16(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        return crc
    }

    public func decode(_ ad: ADView, into readings: inout ReadingList) -> DecodeVerdict {
        // By index: the field list copied the bytes and the index on every call (callgrind).
        guard let k = (0..<ad.manufacturerDataCount).first(where: { ad.manufacturerValueLength(at: $0) == 9 }) else {
            return .notMine
        }
        let v = ad.bytes.extracting(ad.manufacturerValueRange(at: k))
        // Byte-level name tests: phones' 9-byte manufacturer values reach this line all the time.
        let hasHumidity: Bool?  // nil: no name, decide from the value
        if ad.localNameEquals("sps", ignoringCase: true) || ad.localNameEquals("n0byd", ignoringCase: true) {
            hasHumidity = true
        } else if ad.localNameEquals("tps", ignoringCase: true) {
            hasHumidity = false
        } else {
            hasHumidity = nil
        }
        let crcOK = Self.crc16Modbus(v.extracting(0..<5)) == v.le16(5)
        guard crcOK else {
            return hasHumidity == nil
                ? .notMine : .malformed("CRC 0x\(hex: v.le16(5), digits: 1) does not match its frame")
        }
        let temperature = Double(v.le16s(0)) / 100
        let rawHumidity = v.le16(2)
        let battery = v.u8(7)
        guard battery <= 100 else { return .malformed("battery \(battery) % out of range") }
        let model: StaticString = hasHumidity == false ? "IBS-TH2/P01B" : "IBS-TH"
        // Begun before the probe byte and humidity are checked: either can still return
        // `.malformed`, and the registry then drops the reading.
        readings.begin(ad, decoderID: id, model: model)
        let probe = v.u8(4)
        switch probe {
        case 0: readings.add(.temperatureC, temperature)
        case 1, 3: readings.add(.temperatureProbeC(1), temperature)
        default: return .malformed("probe byte \(probe) unknown")
        }
        if hasHumidity ?? (rawHumidity != 0 && rawHumidity != 0xFFFF) {
            let humidity = Double(rawHumidity) / 100
            guard humidity <= 100 else { return .malformed("humidity \(humidity) % out of range") }
            readings.add(.humidityPercent, humidity)
        }
        readings.add(.batteryPercent, Double(battery))
        return .decoded
    }
}
