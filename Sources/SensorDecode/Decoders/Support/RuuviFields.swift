/// Fields that Ruuvi's data formats share, at the same scales and with the same "not available"
/// values (docs.ruuvi.com): the climate of formats 5, 6 and E1 and the air-quality indices of 6
/// and E1, read once here.
enum RuuviFields {
    /// Adds temperature (s16 × 0.005 °C, 0x8000 unavailable), humidity (u16 × 0.0025 %, 0xFFFF)
    /// and pressure (u16 + 50000 Pa, 0xFFFF) to `r`. Returns why the frame is malformed (a
    /// humidity above 100 %), or nil.
    static func addClimate(temperature t: UInt16, humidity h: UInt16, pressure p: UInt16, to r: inout Reading)
        -> String?
    {
        if t != 0x8000 { r.add(.temperatureC, Double(Int16(bitPattern: t)) * 0.005) }
        if h != 0xFFFF {
            let humidity = Double(h) * 0.0025
            guard humidity <= 100 else { return "humidity \(humidity) % out of range" }
            r.add(.humidityPercent, humidity)
        }
        if p != 0xFFFF { r.add(.pressureHPa, (Double(p) + 50000) / 100) }
        return nil
    }

    /// Adds the VOC and NOx indices: 9 bits each, bits 8–1 in their own bytes and bit 0 in the
    /// flags byte (bit 6 VOC, bit 7 NOx); 0x1FF is unavailable.
    static func addIndices(vocHigh: UInt8, noxHigh: UInt8, flags: UInt8, to r: inout Reading) {
        let voc = UInt16(vocHigh) << 1 | UInt16(flags >> 6 & 1)
        if voc != 0x1FF { r.add(.vocIndex, Double(voc)) }
        let nox = UInt16(noxHigh) << 1 | UInt16(flags >> 7 & 1)
        if nox != 0x1FF { r.add(.noxIndex, Double(nox)) }
    }
}
