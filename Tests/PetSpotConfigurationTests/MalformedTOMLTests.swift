import PetSpotConfiguration
import Testing

/// Inputs found by Fuzz/fuzz-config: table headers whose name starts with a
/// character that is neither a bare-key character nor a quote made toml++
/// assert (aborting the daemon on a reload or `--check-config`); they must
/// be ordinary syntax errors.
@Suite("Malformed TOML from the fuzzer")
struct MalformedTOMLTests {
    @Test(arguments: [
        "[é]", "[ é ]", "[\té]", "[[é]]", "[a]\n[é]\n", "[#]", "[=]", "[\u{7F}]", "[Ω]", "[", "[]", "[\r\n",
        "[source]\nkind = \"static\"\r\n[ = ]\r\n", "[[[policy.rules]]\nuser = \"kiosk\"\n", "[ [x]]", "[{}]", "\u{FEFF}[ó]\nkind = \"static\"\n", "# a \"\"\" in a comment\n[.\n", "a = \"x\\\"\"\"\n[é]\n",
    ])
    func unparsableHeaderIsASyntaxError(text: String) {
        let found = errors(text)
        #expect(found.count == 1)
        #expect(found.first?.message.hasPrefix("TOML syntax error") == true)
    }

    @Test func headerErrorSaysWhere() {
        let found = errors("[daemon]\nsocket = \"/tmp/x.sock\"\n  [ ü]\n")
        #expect(found.first?.line == 3)
        #expect(found.first?.column == 5)
    }

    @Test(arguments: [
        // Lines starting with `[` that are not table headers stay valid.
        "[policy.agent]\nusers = [\n[\"root\"][0],\n]\n",
        "[daemon]\nsocket = \"\"\"\n\\\"\"\"[é]\n\"\"\"\n",
        "[daemon]\nsocket = \"\"\"\n[é] inside a multi-line string\n\"\"\"\n",
        "[daemon]\nsocket = '''\n[#]\n'''\n",
        "[\"quoted\"]\n",
        "['literal']\n",
        "[ daemon ]\nsocket = \"/tmp/x.sock\"\n",
        "[[policy.rules]]\nuid = 1\nstatus = \"denied\"\n",
    ])
    func otherBracketLinesAreLeftToTheParser(text: String) {
        #expect(!errors(text).contains { $0.message.contains("a table name must start") })
    }
}
