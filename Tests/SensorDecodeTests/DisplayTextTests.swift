import SensorDecode
import Testing

@Suite struct DisplayTextTests {
    @Test func displayTextEscapesControlAndBidiCharacters() {
        #expect(DisplayText.escape(Array("ok".utf8)) == "ok")
        #expect(DisplayText.escape([0x41, 0x0A, 0x1B, 0x7F]) == "A\\x0a\\x1b\\x7f")
        #expect(DisplayText.escape(Array("a\u{202E}b".utf8)) == "a\\u{202e}b")
        #expect(DisplayText.escape([0xFF, 0x41]) == "\u{FFFD}A")
        #expect(DisplayText.escape(Array("\\x41".utf8)) == "\\\\x41")
    }
}
