import Foundation
import PetSpotJSON
import Testing

/// The hand-written parser against Foundation's `JSONDecoder` (what
/// `JSONValue.parse` used before): same value for every valid document,
/// a failure for every invalid one (and, unlike Foundation, for duplicate
/// member names).
@Suite("JSONValue.parse")
struct JSONParserTests {
    static let valid: [String] = [
        #"{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"maxAge":5}}"#,
        #"  {"a" : [1, -2, 3.5, -0.25e2, 1E3, 0, -0, 1e-7, 123456789012345678901234]} "#,
        #"[true,false,null,"x",{},[]]"#,
        #""plain""#,
        #""esc \" \\ \/ \b \f \n \r \t \u00e9 \u20AC \ud83d\ude00""#,
        "\"raw UTF-8: zażółć 🐕\"",
        "42", "-1.5", "0.1", "1.7976931348623157e308", "5e-324",
        "\n\t\r {\"k\":\"v\"}\n",
    ]

    static let invalid: [String] = [
        "", " ", "{", "}", "[1,]", "{\"a\":1,}", "[01]", "[1.]", "[.5]", "[-]", "[1e]", "[+1]",
        "NaN", "Infinity", "[1e400]", "tru", "nul", "{'a':1}", "{a:1}", "[\"unterminated]",
        "\"tab\tinside\"", "\"bad \\x escape\"", "\"\\u12\"", "\"\\ud83d\"", "\"\\ude00\"",
        "{\"a\" 1}", "[1 2]", "{} {}", "// comment\n{}", "[1]x",
        #"{"dup":1,"dup":2}"#,
    ]

    @Test(arguments: valid)
    func acceptsLikeFoundation(_ text: String) throws {
        let expected = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(try JSONValue.parse(bytes: Array(text.utf8)) == expected)
        #expect(try JSONValue.parse(Data(text.utf8)) == expected)
    }

    @Test(arguments: invalid)
    func rejects(_ text: String) {
        #expect(throws: (any Error).self) { try JSONValue.parse(bytes: Array(text.utf8)) }
    }

    /// What the parser says where an array or object goes wrong, and at which byte.
    @Test(arguments: [
        ("[1 2]", "expected ',' or ']' at byte 3"),
        ("[1", "expected ',' or ']' at byte 2"),
        ("[1,]", "unexpected character at byte 3"),
        ("[", "unexpected end of input at byte 1"),
        (#"{"a":1 "b":2}"#, "expected ',' or '}' at byte 7"),
        (#"{"a":1,}"#, "expected a member name at byte 7"),
        (#"{"a" 1}"#, "expected ':' at byte 5"),
        ("{", "expected a member name at byte 1"),
    ])
    func containerFailuresSayWhere(_ text: String, _ message: String) {
        let error = #expect(throws: (any Error).self) { try JSONValue.parse(bytes: Array(text.utf8)) }
        #expect(error.map { String(describing: $0) } == message)
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: (any Error).self) { try JSONValue.parse(bytes: [0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: (any Error).self) { try JSONValue.parse(bytes: [0x22, 0xFF, 0x22]) }
    }

    @Test func limitsNesting() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: (any Error).self) { try JSONValue.parse(bytes: Array(deep.utf8)) }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        _ = try JSONValue.parse(bytes: Array(fine.utf8))
    }

    @Test func booleansAreNotNumbers() throws {
        #expect(try JSONValue.parse(bytes: Array("true".utf8)) == .bool(true))
        #expect(try JSONValue.parse(bytes: Array("1".utf8)) == .number(1))
    }
}

/// The byte serializer: exact text for the protocol's shapes, and a round
/// trip through the parser for strings that need escapes.
@Suite("JSONValue.serialized")
struct JSONSerializerTests {
    @Test func compactSortedText() {
        let value: JSONValue = ["b": [1, 2.5, nil, true], "a": "x", "c": ["z": false]]
        #expect(value.serialized() == #"{"a":"x","b":[1,2.5,null,true],"c":{"z":false}}"#)
        var text = "> "
        value.write(into: &text)
        #expect(text == #"> {"a":"x","b":[1,2.5,null,true],"c":{"z":false}}"#)
    }

    @Test(arguments: ["plain", "quote \" backslash \\ slash /", "ctl \n\r\t\u{01}\u{1F}", "zażółć 🐕", ""])
    func stringsRoundTrip(_ text: String) throws {
        let serialized = JSONValue.string(text).serialized()
        #expect(try JSONValue.parse(bytes: Array(serialized.utf8)) == .string(text))
        #expect(!serialized.utf8.dropFirst().dropLast().contains { $0 < 0x20 })
    }

    @Test func escapesControlCharactersAsJSONRequires() {
        #expect(JSONValue.string("a\u{01}b\"").serialized() == #""a\u0001b\"""#)
    }
}
