import Testing

@testable import blesensor_log

@Suite struct JSONValueTests {
    func parse(_ text: String) throws(JSONSyntaxError) -> JSONNode { try JSONParser.parse(Array(text.utf8)) }

    @Test func valuesAndTheirLines() throws {
        let n = try parse("{\"a\": [1, -2.5e1, true, false, null],\n \"b\": \"x\\u00e9\\ud83d\\ude00\\n\"}")
        guard case .object(let m) = n.value else {
            Issue.record("not an object")
            return
        }
        #expect(m.map(\.key) == ["a", "b"])
        #expect(m[0].value.value == .array([
            JSONNode(value: .number(1, integer: true), line: 1), JSONNode(value: .number(-25, integer: false), line: 1), JSONNode(value: .bool(true), line: 1),
            JSONNode(value: .bool(false), line: 1), JSONNode(value: .null, line: 1),
        ]))
        #expect(m[1].value == JSONNode(value: .string("xé😀\n"), line: 2))
    }

    @Test(arguments: [
        ("", 1, "the document ends where a value should be"), ("{\"a\": 1,}", 1, "expected a key in quotes"),
        ("{\"a\": 1, \"a\": 2}", 1, "key \"a\" given twice"), ("[1 2]", 1, "expected ',' or ']'"),
        ("\n\n\"ab", 3, "the document ends inside a string"), ("\"a\tb\"", 1, "a control character inside a string"),
        ("[1] x", 1, "text after the end of the document"), ("nul", 1, "unexpected text"), ("\"\\ud800\"", 1, "a lone surrogate"),
        ("\"\\q\"", 1, "unknown escape \\q"), ("1e999", 1, "unexpected text"), ("{\"a\" 1}", 1, "expected ':' after \"a\""),
        (String(repeating: "[", count: 40), 1, "nested more than 32 deep"),
    ])
    func syntaxErrorsNameTheLine(_ text: String, _ line: Int, _ reason: String) {
        #expect {
            _ = try parse(text)
        } throws: { error in
            guard let e = error as? JSONSyntaxError else { return false }
            return e.line == line && e.reason.hasPrefix(reason)
        }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }
}
