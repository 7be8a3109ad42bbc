import SensorDecode
import TestSupport
import Testing

/// The frame reader decoders use: each number must be the bytes at its offset in the stated
/// order, at every offset of a frame that does not start at its buffer's start, and a read that
/// runs past the frame's end (or starts before it) must give `nil`, never a byte of the buffer.
@Suite struct FrameTests {
    /// The bytes from `i`, `n` of them, as one number: least significant first, or most.
    static func number(_ b: [UInt8], _ i: Int, _ n: Int, bigEndian: Bool) -> UInt64? {
        guard i >= 0, i + n <= b.count else { return nil }
        let bytes = b[i..<(i + n)]
        return (bigEndian ? Array(bytes) : bytes.reversed()).reduce(0) { $0 << 8 | UInt64($1) }
    }

    @Test func numbersAreTheirBytesInOrderAtEveryOffsetAndNilPastTheEnd() {
        var rng = SplitMix64(state: 0xB17E)
        let buffer = (0..<40).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let b = Array(buffer[3..<37])  // what the frame below shows, counted from 0
        let frame = Frame(buffer[3..<37])
        #expect(frame.count == b.count)
        for i in -2..<(b.count + 2) {
            #expect(frame.u8(i).map(UInt64.init) == Self.number(b, i, 1, bigEndian: false), "u8 at \(i)")
            #expect(frame.le16(i).map(UInt64.init) == Self.number(b, i, 2, bigEndian: false), "le16 at \(i)")
            #expect(frame.be16(i).map(UInt64.init) == Self.number(b, i, 2, bigEndian: true), "be16 at \(i)")
            #expect(frame.le16s(i) == frame.le16(i).map { Int16(bitPattern: $0) })
            #expect(frame.be16s(i) == frame.be16(i).map { Int16(bitPattern: $0) })
            #expect(frame.le24(i).map(UInt64.init) == Self.number(b, i, 3, bigEndian: false), "le24 at \(i)")
            #expect(frame.be24(i).map(UInt64.init) == Self.number(b, i, 3, bigEndian: true), "be24 at \(i)")
            #expect(frame.le32(i).map(UInt64.init) == Self.number(b, i, 4, bigEndian: false), "le32 at \(i)")
            #expect(frame.be32(i).map(UInt64.init) == Self.number(b, i, 4, bigEndian: true), "be32 at \(i)")
            #expect(frame.macLE(i)?.rawValue == Self.number(b, i, 6, bigEndian: false), "macLE at \(i)")
            #expect(frame.macBE(i)?.rawValue == Self.number(b, i, 6, bigEndian: true), "macBE at \(i)")
        }
    }

    @Test func aReadThatRunsPastTheFrameIsNilThoughTheBufferGoesOn() {
        let buffer: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let frame = Frame(buffer[1..<5])  // 2 3 4 5
        #expect(frame.le16(2) == 0x0504)
        #expect(frame.le16(3) == nil)  // byte 6 is in the buffer, not the frame
        #expect(frame.le32(1) == nil)
        #expect(frame.u8(-1) == nil)  // byte 1 is before the frame
        #expect(frame.macLE(0) == nil)
        #expect(frame.float32LE(1) == nil)
    }

    @Test func subframesCountFromTheirOwnStart() {
        let frame = Frame([0xA1, 0x01, 0x64, 0xFF, 0x80])
        #expect(frame.dropFirst(3).be16s(0) == -128)
        #expect(frame.dropFirst(9).isEmpty)
        #expect(frame.prefix(2).array == [0xA1, 0x01])
        #expect(frame.bytes(1..<3)?.array == [0x01, 0x64])
        #expect(frame.bytes(3..<6) == nil)
        #expect(frame.bytes(-1..<2) == nil)
        #expect(frame.description == "a10164ff80")
    }

    @Test func allFFNeedsAtLeastOneByteAndEveryOneFF() {
        #expect(Frame([0x00, 0xFF, 0xFF]).isAllFF(from: 1))
        #expect(!Frame([0x00, 0xFF, 0xFF]).isAllFF())
        #expect(!Frame([0xFF, 0xFF]).isAllFF(from: 2))
        #expect(!Frame([]).isAllFF())
    }
}
