import SensorDecode
import TestSupport
import Testing

/// The frame readers decoders use: each number must be the bytes at its offset in the stated
/// order, at every offset of a span that does not start at its buffer's start, and a read that
/// runs past the span's end must trap (decoders check lengths first; a slip must not read on).
@Suite struct ByteReaderTests {
    /// The bytes from `i`, `n` of them, as one number: least significant first, or most.
    static func number(_ b: [UInt8], _ i: Int, _ n: Int, bigEndian: Bool) -> UInt64 {
        let bytes = b[i..<(i + n)]
        return (bigEndian ? Array(bytes) : bytes.reversed()).reduce(0) { $0 << 8 | UInt64($1) }
    }

    @Test func numbersAreTheirBytesInOrderAtEveryOffset() {
        var rng = SplitMix64(state: 0xB17E)
        let buffer = (0..<40).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let b = Array(buffer[3..<37])  // what the span below shows, counted from 0
        let span = buffer.span.extracting(3..<37)
        for i in 0..<b.count {
            #expect(span.u8(i) == b[i])
            if i + 2 <= b.count {
                #expect(UInt64(span.le16(i)) == Self.number(b, i, 2, bigEndian: false))
                #expect(UInt64(span.be16(i)) == Self.number(b, i, 2, bigEndian: true))
                #expect(span.le16s(i) == Int16(bitPattern: span.le16(i)))
            }
            if i + 3 <= b.count {
                #expect(UInt64(span.le24(i)) == Self.number(b, i, 3, bigEndian: false))
                #expect(UInt64(span.be24(i)) == Self.number(b, i, 3, bigEndian: true))
            }
            if i + 4 <= b.count {
                #expect(UInt64(span.le32(i)) == Self.number(b, i, 4, bigEndian: false))
                #expect(UInt64(span.be32(i)) == Self.number(b, i, 4, bigEndian: true))
            }
            if i + 6 <= b.count {
                #expect(span.macLE(i).rawValue == Self.number(b, i, 6, bigEndian: false))
                #expect(span.macBE(i).rawValue == Self.number(b, i, 6, bigEndian: true))
            }
        }
    }

    @Test func aReadPastTheEndTraps() async {
        await #expect(processExitsWith: .failure) {
            let buffer: [UInt8] = [1, 2, 3, 4, 5, 6]
            _ = buffer.span.extracting(0..<5).le16(4)  // byte 5 is in the buffer, not the span
        }
        await #expect(processExitsWith: .failure) {
            let buffer: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
            _ = buffer.span.extracting(0..<7).le32(4)
        }
        await #expect(processExitsWith: .failure) {
            let buffer: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
            _ = buffer.span.extracting(1..<7).macLE(1)
        }
    }
}
