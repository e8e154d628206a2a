import PetSpotLocation
import Testing

/// Issue 13 item 19: text from clients, units and gpsd never reaches a terminal raw.
@Suite struct TerminalTextTests {
    @Test func item19_controlCharactersAreShownNotObeyed() {
        let hostile = "/tmp/x\u{1B}]0;owned\u{07}\u{1B}[2J\r\u{9B}31m\u{7F}\u{202E}gnp.exe"
        let shown = TerminalText.escaped(hostile)
        #expect(shown == "/tmp/x\\e]0;owned\\x07\\e[2J\\r\\u{009b}31m\\x7f\\u{202e}gnp.exe")
        #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) })
    }

    @Test func item19_aBackslashCannotForgeAnEscape() {
        #expect(TerminalText.escaped("a\\e b") == "a\\\\e b")
        #expect(TerminalText.escaped("plain /usr/bin/kiosk ąę") == "plain /usr/bin/kiosk ąę")
    }

    @Test func item19_jsonLinesStayJSONWithoutRawControls() {
        let line = "{\"unit\":\"a\u{9B}b\u{1B}c\",\"n\":1}"
        let shown = TerminalText.escapedJSONLine(line)
        #expect(shown == "{\"unit\":\"a\\u009bb\\u001bc\",\"n\":1}")
    }
}
