/// Helpers shared by the two Govee decoders (`GoveeDecoder`, `GoveeMeatDecoder`): the packed
/// 24-bit temperature/humidity number, the model from the local name or service UUID, and the
/// iBeacon that some scanners glue onto Govee's manufacturer data.
enum GoveeFrame {
    /// Apple's company id: Govee devices also send an iBeacon ("INTELLI_ROCKS"), never a measurement.
    static let appleCompany: UInt16 = 0x004C

    /// A manufacturer value without an iBeacon glued onto its end.
    ///
    /// Why: macOS/CoreBluetooth (and captures made from it) sometimes merges the device's second
    /// manufacturer structure, a 25-byte iBeacon `4C 00 02 15 …`, into the first one (govee-ble and
    /// ble_monitor strip it the same way). A real radio never does this, but recorded data does.
    static func unglued(_ value: Frame) -> Frame {
        let tail = value.count - 25
        guard tail > 0, value.u8(tail) == 0x4C, value.u8(tail + 1) == 0x00, value.u8(tail + 2) == 0x02,
            value.u8(tail + 3) == 0x15
        else { return value }
        return value.prefix(tail)
    }

    /// 5075 from names such as `GVH5075_1234`, `Govee_H5074_1234`, `GV5140303A`, `B5178C545`:
    /// the first "5" followed by three digits, in a name that starts the way Govee's do.
    static func modelNumber(fromName name: Frame) -> Int? {
        guard name.count >= 5, Self.namePrefixes.contains(where: { name.bytes.starts(with: $0) }) else { return nil }
        /// The digit at offset `i`, if it is one.
        func digit(_ i: Int) -> Int? { name.u8(i).flatMap { $0 >= 0x30 && $0 <= 0x39 ? Int($0 - 0x30) : nil } }
        for i in 0..<(name.count - 3) where name.u8(i) == UInt8(ascii: "5") {
            if let a = digit(i + 1), let b = digit(i + 2), let c = digit(i + 3) { return 5000 + a * 100 + b * 10 + c }
        }
        return nil
    }

    /// How Govee's names start.
    static let namePrefixes: [[UInt8]] = ["GV", "Govee", "B5", "H5"].map { Array($0.utf8) }

    /// 5075 from a 16-bit service UUID 0x7550 (four decimal digits as nibbles, byte-swapped, the
    /// first a 5), the first such UUID listed.
    static func modelNumber(fromServiceUUIDs uuids: [UInt16]) -> Int? {
        for u in uuids {
            let swapped = Int(u.byteSwapped)
            let (first, a, b, c) = (swapped >> 12, (swapped >> 8) & 0xF, (swapped >> 4) & 0xF, swapped & 0xF)
            if first == 5, a <= 9, b <= 9, c <= 9 { return 5000 + a * 100 + b * 10 + c }
        }
        return nil
    }

    /// The model number from the name, else from the service UUIDs.
    static func modelNumber(_ ad: Advertisement) -> Int? {
        if let name = ad.localName, let number = modelNumber(fromName: name) { return number }
        return modelNumber(fromServiceUUIDs: ad.serviceUUID16s)
    }

    /// "H5075" for 5075.
    static func model(number: Int) -> String { "H" + String(number) }

    /// Decodes the packed 24-bit number `±(T·1000 + H)` where T is tenths of °C and H tenths of %RH;
    /// bit 23 is the sign of T. `nil` when T is impossible (more than 100 °C either way).
    ///
    /// Truncation is the arithmetic of the format, not a choice: the number is T·1000 + H, so T is
    /// `magnitude / 1000` in whole tenths. Reading `magnitude / 10000` as degrees (theengs) folds the
    /// humidity digits into the temperature: `0x811F09` is −7.3 °C and 48.1 %, not −7.3481 °C.
    static func packed(_ raw: UInt32) -> (temperature: Double, humidity: Double)? {
        let magnitude = raw & 0x7F_FFFF
        let tenths = magnitude / 1000
        guard tenths <= 1000 else { return nil }
        let sign: Double = raw & 0x80_0000 != 0 ? -1 : 1
        return (sign * Double(tenths) / 10, Double(magnitude % 1000) / 10)
    }
}
