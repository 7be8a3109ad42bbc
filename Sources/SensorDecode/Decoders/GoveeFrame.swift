/// Helpers shared by the two Govee decoders (`GoveeDecoder`, `GoveeMeatDecoder`): the packed
/// 24-bit temperature/humidity number, the model from the local name or service UUID, and the
/// iBeacon that some scanners glue onto Govee's manufacturer data.
enum GoveeFrame {
    /// Apple's company id: Govee devices also send an iBeacon ("INTELLI_ROCKS"), never a measurement.
    static let appleCompany: UInt16 = 0x004C

    /// Where a manufacturer value lies without an iBeacon glued onto its end (positions in
    /// `bytes`, counted from their start, as a span cannot be returned).
    ///
    /// Why: macOS/CoreBluetooth (and captures made from it) sometimes merges the device's second
    /// manufacturer structure, a 25-byte iBeacon `4C 00 02 15 …`, into the first one (govee-ble and
    /// ble_monitor strip it the same way). A real radio never does this, but recorded data does.
    // Always inlined: called for every Govee frame.
    @inline(__always) static func unglued(_ range: Range<Int>, in bytes: Span<UInt8>) -> Range<Int> {
        guard range.count > 25 else { return range }
        let tail = range.upperBound - 25
        guard bytes.u8(tail) == 0x4C, bytes.u8(tail + 1) == 0x00, bytes.u8(tail + 2) == 0x02, bytes.u8(tail + 3) == 0x15
        else { return range }
        return range.lowerBound..<tail
    }

    /// 5075 from names such as `GVH5075_1234`, `Govee_H5074_1234`, `GV5140303A`, `B5178C545`:
    /// the first "5" followed by three digits, in a name that starts the way Govee's do.
    /// A number, not the model's text: the decoders compare it (`== 5106`), which compared
    /// strings before (callgrind).
    // Always inlined: as a call, the name it was given was retained and released once more
    // (~40 instructions a frame, callgrind).
    @inline(__always) static func modelNumber(fromName name: Span<UInt8>) -> Int? {
        // Byte tests on the name, no copies: every Govee frame asks for its model by name. The
        // prefixes are compared byte by byte, as `starts(with: "GV".utf8)` went through the
        // generic sequence compare four times per frame (callgrind).
        guard name.count >= 5 else { return nil }
        let first = name[0]
        let second = name[1]
        let startsLikeGovee =
            (first == UInt8(ascii: "G") && second == UInt8(ascii: "V"))
            || (first == UInt8(ascii: "G") && second == UInt8(ascii: "o") && name[2] == UInt8(ascii: "v")
                && name[3] == UInt8(ascii: "e") && name[4] == UInt8(ascii: "e"))
            || ((first == UInt8(ascii: "B") || first == UInt8(ascii: "H")) && second == UInt8(ascii: "5"))
        guard startsLikeGovee else { return nil }
        // A digit's value, or 10 or more for any other byte.
        func digit(_ i: Int) -> Int { Int(name[unchecked: i] &- UInt8(ascii: "0")) }
        // Unchecked reads: the loop keeps `i + 3 < name.count`.
        var i = 0
        while i + 4 <= name.count {
            if name[unchecked: i] == UInt8(ascii: "5") {
                let (a, b, c) = (digit(i + 1), digit(i + 2), digit(i + 3))
                if a < 10, b < 10, c < 10 { return 5000 + a * 100 + b * 10 + c }
            }
            i += 1
        }
        return nil
    }

    static func modelNumber(fromServiceUUIDsOf ad: ADView) -> Int? {
        // An index loop on the 16-bit UUIDs: iterating `serviceUUIDs` copied the bytes and made
        // every element, 128-bit ones included (callgrind).
        for k in 0..<ad.serviceUUIDCount {
            guard let u = ad.serviceUUID16(at: k) else { continue }
            let swapped = u.byteSwapped
            // Four decimal digits as nibbles (BCD), the first a 5.
            guard swapped >> 12 == 5, (swapped >> 8) & 0xF <= 9, (swapped >> 4) & 0xF <= 9, swapped & 0xF <= 9 else {
                continue
            }
            return 5000 + Int((swapped >> 8) & 0xF) * 100 + Int((swapped >> 4) & 0xF) * 10 + Int(swapped & 0xF)
        }
        return nil
    }

    /// The model number from the name, else from the service UUIDs.
    @inline(__always) static func modelNumber(_ ad: ADView) -> Int? {
        if let name = ad.localNameRange, let number = modelNumber(fromName: ad.bytes.extracting(name)) {
            return number
        }
        return modelNumber(fromServiceUUIDsOf: ad)
    }

    /// "H5075" for 5075.
    static func model(number: Int) -> String {
        knownModel(number)?.text ?? "H\(number)"
    }

    /// The models the two Govee decoders document, as literals: writing "H5075" from the digits
    /// was a string build per frame (callgrind). `nil` for any other number.
    static func knownModel(_ number: Int) -> StaticString? {
        switch number {
        case 5051: "H5051"
        case 5052: "H5052"
        case 5055: "H5055"
        case 5071: "H5071"
        case 5072: "H5072"
        case 5074: "H5074"
        case 5075: "H5075"
        case 5100: "H5100"
        case 5101: "H5101"
        case 5102: "H5102"
        case 5103: "H5103"
        case 5104: "H5104"
        case 5105: "H5105"
        case 5106: "H5106"
        case 5108: "H5108"
        case 5110: "H5110"
        case 5112: "H5112"
        case 5140: "H5140"
        case 5174: "H5174"
        case 5177: "H5177"
        case 5178: "H5178"
        case 5179: "H5179"
        case 5181: "H5181"
        case 5182: "H5182"
        case 5183: "H5183"
        case 5184: "H5184"
        case 5185: "H5185"
        case 5191: "H5191"
        case 5198: "H5198"
        default: nil
        }
    }


    /// Decodes the packed 24-bit number `±(T·1000 + H)` where T is tenths of °C and H tenths of %RH;
    /// bit 23 is the sign of T. `nil` when T is impossible (more than 100 °C either way).
    ///
    /// Truncation is the arithmetic of the format, not a choice: the number is T·1000 + H, so T is
    /// `magnitude / 1000` in whole tenths. Reading `magnitude / 10000` as degrees (theengs) folds the
    /// humidity digits into the temperature: `0x811F09` is −7.3 °C and 48.1 %, not −7.3481 °C.
    @inline(__always) static func packed(_ raw: UInt32) -> (temperature: Double, humidity: Double)? {
        let magnitude = raw & 0x7F_FFFF
        let tenths = magnitude / 1000
        guard tenths <= 1000 else { return nil }
        let sign: Double = raw & 0x80_0000 != 0 ? -1 : 1
        return (sign * Double(tenths) / 10, Double(magnitude % 1000) / 10)
    }
}
