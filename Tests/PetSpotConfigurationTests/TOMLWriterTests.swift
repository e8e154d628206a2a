import PetSpotConfiguration
import PetSpotSettings
import Testing

/// The one TOML quoter: whatever a string holds reads back as itself.
@Suite("TOMLWriter: one quoter for both renderers")
struct TOMLWriterTests {
    static let hostile = [
        "plain", "a \"quoted\" word", #"back\slash"#, #"\""#, "line\nbreak", "tab\there", "cr\rlf",
        "bell\u{7}", "del\u{7F}", "esc\u{1B}[31m", "unicode: żółw 🐢", "\u{2028}separator",
        "''' triple", "\"\"\" triple", "# not a comment", "key = \"value\"\n[section]",
        String(repeating: "\\", count: 9),
    ]

    @Test("a quoted string parses back to itself", arguments: hostile)
    func quotedStringRoundTrips(value: String) throws {
        let text = "[daemon]\nsocket_group = \(TOMLWriter.quote(value))\n"
        let configuration = try ConfigurationLoader.parse(text: text)
        #expect(configuration.daemon.socketGroup == value, "\(text)")
    }

    @Test("a NUL is written escaped, and a configuration holding one is refused at its line, never cut short")
    func escapedNULIsRefused() {
        let quoted = TOMLWriter.quote("nul\u{0}inside")
        #expect(quoted == #""nul\u0000inside""#)
        for text in ["[daemon]\nsocket_group = \(quoted)\n", "[daemon]\nsocket_group = \"x\\U00000000\"\n"] {
            #expect {
                _ = try ConfigurationLoader.parse(text: text)
            } throws: { error in
                "\(error)".contains("NUL") && "\(error)".contains("line 2")
            }
        }
    }

    @Test("a quoted string is one line, with no raw control character")
    func quotedStringIsOneCleanLine() {
        for value in Self.hostile {
            let quoted = TOMLWriter.quote(value)
            #expect(!quoted.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(quoted)")
            #expect(quoted.hasPrefix("\"") && quoted.hasSuffix("\""))
        }
    }
}
