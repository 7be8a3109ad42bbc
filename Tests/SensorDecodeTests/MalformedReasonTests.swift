import SensorDecode
import Testing

/// A `MalformedReason` keeps its pieces and makes the words when read: the words must be exactly
/// those the same interpolation makes as a `String`, whatever the values.
@Suite struct MalformedReasonTests {
    enum Kind { case some }

    @Test func readsAsTheSameInterpolationIntoAString() {
        let kind: StaticString = "h5075"
        let code = "0x1F"
        for humidity in [0, 100.5, -0.0, 1e-7, 163.835, .infinity, -.infinity, .nan, Double.greatestFiniteMagnitude] {
            for count in [0, -1, 13, Int.max, Int.min] {
                let reason: MalformedReason = "\(kind) frame of \(count) bytes, humidity \(humidity) % out of range"
                #expect(reason.description == "\(kind) frame of \(count) bytes, humidity \(humidity) % out of range")
            }
        }
        let big = UInt64.max
        let byte: UInt8 = 0xFE
        let r1: MalformedReason = "\(big) \(byte) \(code) \(Kind.some)"
        #expect(r1.description == "\(big) \(byte) \(code) \(Kind.some)")
        let r2: MalformedReason = "plain words"
        #expect(r2.description == "plain words")
        let r3: MalformedReason = "\(7)"
        #expect(r3.description == "7")
        #expect(MalformedReason("as given").description == "as given")
    }

    @Test func equalWhenTheWordsAre() {
        let n = 13
        let a: MalformedReason = "frame of \(n) bytes"
        #expect(a == "frame of 13 bytes")
        #expect(a == MalformedReason("frame of 13 bytes"))
        #expect(a != "frame of 14 bytes")
        #expect(DecodeVerdict.malformed(a) == .malformed("frame of 13 bytes"))
        #expect(DecodeVerdict.malformed(a) != .notMine)
    }

    @Test func hexPiecesReadAsTheNumberInLowercaseHexPaddedToTheirDigits() {
        for value in [0, 1, 0x0F, 0x10, 0xFE, 0xFF] as [UInt8] {
            let reason: MalformedReason = "id 0x\(hex: value) skipped"
            #expect(reason.description == "id 0x\(Hex.encode([value])) skipped")
        }
        for value in [0, 0x8010, 0xBC_0004, UInt32.max] as [UInt32] {
            let reason: MalformedReason = "0x\(hex: value, digits: 1)"
            #expect(reason.description == "0x" + String(value, radix: 16))
        }
        let word: UInt16 = 0xAB
        let padded: MalformedReason = "\(hex: word, digits: 4)"
        #expect(padded.description == "00ab")
    }

    /// A warning written as an interpolation is kept in pieces too, and reads (and compares) as
    /// the words.
    @Test func warningsFromInterpolationsReadAsTheirWords() {
        let id: UInt8 = 0xFE
        let at = 2
        let warning: DecodeWarning = "unknown object id 0x\(hex: id) at offset \(at); rest ignored"
        #expect(warning.description == "unknown object id 0xfe at offset 2; rest ignored")
        #expect(warning == .text("unknown object id 0xfe at offset 2; rest ignored"))
        #expect(warning != .text("unknown object id 0xfe at offset 3; rest ignored"))
        let literal: DecodeWarning = "device reports a sensor error"
        #expect(literal.description == "device reports a sensor error")
    }

    /// Through the registry, a decoder's reason reaches `Result.malformed` in words.
    @Test func theRegistryGivesTheReasonInWords() {
        let registry = Registry.standard()
        // A Minew a1-01 frame of battery 101 %.
        let result = registry.decode(Advertisement(address: BDAddress(rawValue: 1), data: Hex.decode("10 16 e1ff a101 65 ff80 3200 665544332211")!))
        #expect(result.malformed.map(\.decoder) == ["minew_ffe1"])
        #expect(result.malformed.map(\.reason) == ["battery 101 % out of range"])
    }
}
