import Foundation
import SensorDecode
import TestSupport
import Testing

@testable import blesensor_log

/// The JSON writer writes bytes in place; its text must be what the `String`-building writer it
/// replaced gave (the definitions below, kept here as the oracle), for every string and number.
@Suite struct JSONWriterTests {
    /// The escaping rule, scalar by scalar.
    static func oracleString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let h = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func oracleNumber(_ value: Double, integer: Bool) -> String {
        guard value.isFinite else { return "null" }
        if integer, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return NumberText.significant(value).description
    }

    @Test func stringsAreEscapedAsTheRuleSays() {
        var rng = SplitMix64(state: 7)
        var samples = ["", "plain", "a\"b\\c", "\n\r\t\u{0}\u{1F}\u{7F}", "é€😀", "x\u{2028}y\u{2029}z", "\u{E2}\u{80}",
            "\u{2027}\u{202A}", String(repeating: "\u{1}", count: 300)]
        let alphabet: [Unicode.Scalar] = ["a", "\"", "\\", "\n", "\u{0}", "\u{1B}", "\u{7F}", "\u{80}", "é", "\u{2028}", "\u{2029}", "\u{2030}", "😀"]
        for _ in 0..<2000 {
            var s = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...12, using: &rng) { s.append(alphabet.randomElement(using: &rng)!) }
            samples.append(String(s))
        }
        for s in samples { #expect(JSON.string(s) == Self.oracleString(s), "\(Array(s.utf8))") }
    }

    @Test func numbersAreWrittenAsTheRuleSays() {
        var rng = SplitMix64(state: 11)
        var values: [Double] = [0, -0.0, 1, -1, 50, -5, 0.5, -0.5, 21.35, 0.1 + 0.2, 45.67000000000001, 1e15 - 1, 1e15, 1e16,
            1.2e20, 1e-5, 0.0001, 1 / 3, 55.9964599609375, .nan, .infinity, -.infinity, 9.007199254740993e15,
            .greatestFiniteMagnitude, .leastNonzeroMagnitude]
        for _ in 0..<20000 {
            switch Int.random(in: 0..<5, using: &rng) {
            case 4:
                // Exact binary fractions (decoders scale by powers of two): up to 15 decimals.
                values.append(Double(Int.random(in: -(1 << 30)...(1 << 30), using: &rng)) / Double(1 << Int.random(in: 1...24, using: &rng)))
            case 0: values.append(Double(Int.random(in: -100_000...100_000, using: &rng)) / 100)
            case 1: values.append(Double(Int.random(in: -1_000_000...1_000_000, using: &rng)))
            case 2: values.append(Double.random(in: -1e6...1e6, using: &rng))
            default: values.append(Double(bitPattern: rng.next()))
            }
        }
        for v in values {
            for integer in [false, true] {
                #expect(JSON.number(v, integer: integer) == Self.oracleNumber(v, integer: integer), "\(v) integer \(integer)")
            }
        }
    }

    /// Written into the output buffer or as a `String`: the same bytes.
    @Test func aReadingReadsTheSameIntoTheOutputAndAsText() throws {
        var r = Reading(
            address: BDAddress(rawValue: 0xA4C1_38BC_0701), addressType: .randomDevice, decoderID: "pvvx", model: "m\"1",
            frameKind: "f\n", measurements: [Measurement(.temperatureC, 21.5), Measurement(.batteryPercent, 87)],
            timeMicros: 1_780_272_000_123_456, rssi: -71, name: "n\u{2028}")
        r.warn("w\u{1}")
        let text = JSON.reading(r, includeTime: true)
        #expect(text.hasPrefix("{\"address\":\"A4:C1:38:BC:07:01\",\"model\":\"m\\\"1\",\"temperature_c\":21.5,\"battery_pct\":87,"))
        #expect(text.contains(",\"frame\":\"f\\n\",\"address_type\":\"random\",\"rssi_dbm\":-71,\"name\":\"n\\u2028\",\"time\":\""))
        #expect(text.hasSuffix(",\"warnings\":[\"w\\u0001\"]}"))
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("out.json")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let out = OutputWriter(fd: fd, capacity: 16)
        var w = JSONWriter(out)
        w.reading(r, includeTime: true)
        try out.finish()
        close(fd)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }
}

/// The output buffer: whatever the sizes of the writes, the file gets their bytes whole and in
/// order.
@Suite struct OutputWriterTests {
    @Test func writesLongerThanTheBufferAreWrittenWhole() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("out.bin")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let out = OutputWriter(fd: fd, capacity: 16)
        var expected: [UInt8] = []
        out.write("abc")
        expected += Array("abc".utf8)
        // A built record of 100 bytes, then one that writes less than its bound.
        let record = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        out.write(atMost: record.count) { span in
            for b in record { span.append(b) }
        }
        expected += record
        out.write(atMost: 40) { span in span.append(UInt8(ascii: "x")) }
        expected.append(UInt8(ascii: "x"))
        // Copied bytes and text, each longer than the buffer.
        let bytes = [UInt8](repeating: 0xAB, count: 40)
        out.write(bytes: bytes)
        expected += bytes
        let text = String(repeating: "é", count: 30)
        out.write(text)
        expected += Array(text.utf8)
        try out.finish()
        close(fd)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == expected)
    }
}
