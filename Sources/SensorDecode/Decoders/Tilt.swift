/// Tilt hydrometers (Baron Brew Equipment): a float in the fermenter that reports the wort's
/// temperature and specific gravity in an iBeacon frame, one proximity UUID per colour.
/// Models: Tilt Red, Tilt Green, Tilt Black, Tilt Purple, Tilt Orange, Tilt Blue, Tilt Yellow, Tilt Pink, Tilt Pro (each colour)
///
/// Where: manufacturer-specific data, company 0x004C (Apple), iBeacon `02 15`, 23 bytes after
/// the company id; the iBeacon decoder still names the same frame as a beacon.
///
/// | offset | size | field                                                        |
/// |--------|------|--------------------------------------------------------------|
/// | 0      | 2    | `02 15` (iBeacon)                                            |
/// | 2      | 16   | UUID `a495bbN0-c5b1-4b44-b512-1370f02d74de`, N = colour 1…8  |
/// | 18     | 2    | major, s16 BE: temperature in °F (Tilt Pro: tenths of °F)    |
/// | 20     | 2    | minor, u16 BE: specific gravity × 1000 (Tilt Pro: × 10000)   |
/// | 22     | 1    | measured power, s8 dBm (some firmware: weeks since battery change) |
///
/// Colours: 1 Red, 2 Green, 3 Black, 4 Purple, 5 Orange, 6 Blue, 7 Yellow, 8 Pink. A minor of
/// 5000 or more is a Tilt Pro's finer resolution (a gravity of 5.000 is impossible).
///
/// Integrity check: none. Sanity: a gravity above 2.000 (2001–4999 for a Tilt, 20001 and up for
/// a Tilt Pro) is `malformed`.
///
/// Sample: `1a ff 4c 00 02 15 a4 95 bb 10 c5 b1 4b 44 b5 12 13 70 f0 2d 74 de 00 44 03 f8 c5` →
/// Tilt Red, temperature 20.0 °C (68 °F), specific gravity 1.016.
///
/// Source: Bluetooth-Devices tilt-ble (colour UUIDs, the Tilt Pro rule and scaling);
/// custom-components/ble_monitor `tilt.py` (its test is among our vectors).
public struct TiltDecoder: SensorDecoder {
    public let id = "tilt"
    public let selectors: [Selector] = [.manufacturer(company: 0x004C)]

    static let colours = ["Red", "Green", "Black", "Purple", "Orange", "Blue", "Yellow", "Pink"]
    /// The Tilt UUID without its colour nibble (byte 3 is `N0`).
    static let uuidPrefix: [UInt8] = [0xA4, 0x95, 0xBB]
    static let uuidSuffix: [UInt8] = [0xC5, 0xB1, 0x4B, 0x44, 0xB5, 0x12, 0x13, 0x70, 0xF0, 0x2D, 0x74, 0xDE]

    public init() {}

    public func decode(_ ad: Advertisement) -> DecodeOutcome {
        guard let d = ad.manufacturerData(company: 0x004C), d.u8(0) == 0x02, d.u8(1) == 0x15,
            let prefix = d.bytes(2..<5), prefix.bytes.elementsEqual(Self.uuidPrefix),
            let suffix = d.bytes(6..<18), suffix.bytes.elementsEqual(Self.uuidSuffix),
            let colour = d.u8(5), colour & 0x0F == 0, (1...8).contains(colour >> 4)
        else { return .notMine }
        guard d.count >= 23, let major = d.be16s(18), let minor = d.be16(20) else {
            return .malformed("Tilt frame of \(d.count) bytes, expected 23")
        }
        let pro = minor >= 5000
        let fahrenheit = Double(major) / (pro ? 10 : 1)
        let gravity = Double(minor) / (pro ? 10000 : 1000)
        guard gravity <= 2 else { return .malformed("specific gravity \(gravity) out of range") }
        let colourName = Self.colours[Int(colour >> 4) - 1]
        var r = ad.reading(decoder: id, model: (pro ? "Tilt Pro " : "Tilt ") + colourName)
        r.add(.temperatureC, (fahrenheit - 32) * 5 / 9)
        r.add(.specificGravity, gravity)
        return .reading(consume r)
    }
}
