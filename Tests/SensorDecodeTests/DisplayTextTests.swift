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

    /// What `escape` would change (a backslash aside) is what `isPrintable` refuses.
    @Test func printableTextIsTextWithNothingToEscape() {
        #expect(DisplayText.isPrintable("MM-BLEBC7 é ° 温度 \\x1b"))
        for bad in ["a\u{1B}[31m", "a\n", "a\u{0}", "a\u{7F}", "a\u{85}", "a\u{202E}b", "a\u{2066}b", "a\u{200F}"] {
            #expect(!DisplayText.isPrintable(bad), "\(Array(bad.unicodeScalars))")
        }
    }
}
