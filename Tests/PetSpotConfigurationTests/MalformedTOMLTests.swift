import Foundation
@testable import PetSpotConfiguration
import Testing
import TestSupport

/// Inputs found by Fuzz/fuzz-config (and a C++ fuzzer run against the vendored
/// toml++) that made toml++ *assert* instead of reporting a syntax error,
/// aborting the daemon on a reload or `--check-config`: they must be ordinary
/// syntax errors, found before toml++ sees the text
/// (`TOMLNode.unparsableInput(in:)`), and valid TOML must not be refused.
@Suite("Malformed TOML from the fuzzer")
struct MalformedTOMLTests {
    @Test(arguments: [
        "[é]", "[ é ]", "[\té]", "[[é]]", "[a]\n[é]\n", "[#]", "[=]", "[\u{7F}]", "[Ω]", "[", "[]", "[\r\n",
        "[source]\nkind = \"static\"\r\n[ = ]\r\n", "[[[policy.rules]]\nuser = \"kiosk\"\n", "[ [x]]", "[{}]",
        "\u{FEFF}[ó]\nkind = \"static\"\n", "# a \"\"\" in a comment\n[.\n", "a = \"x\\\"\"\"\n[é]\n",
        "a = [1]\n[é]\n", "a = \"\"\"x\"\"\"\"\"\n[é]\n",
    ])
    func unparsableHeaderIsASyntaxError(text: String) {
        expectOneSyntaxError(text, saying: "a table name must start")
    }

    @Test func headerErrorSaysWhere() {
        let found = errors("[daemon]\nsocket = \"/tmp/x.sock\"\n  [ ü]\n")
        #expect(found.first?.line == 3)
        #expect(found.first?.column == 5)
    }

    /// toml++'s `parse_array` hands an element starting with `}`, U+0085, U+2028
    /// or U+2029 to `parse_value`, which asserts `!is_value_terminator(*cp)`.
    @Test(arguments: [
        "a = [}]", "a = [ } ]", "a = [1, }]", "a = [\n  1,\n  # a comment\n  }\n", "a = [[}]]", "a = [{}, }]",
        "a = [\u{2028}]", "a = [1,\u{2029}]", "a = [\u{85}1]", "a = [ \n\u{2028}\n]",
        "[policy.agent]\nusers = [\"root\", }\n", "latitude =[[[[}[[ 1.5\n",
    ])
    func arrayElementStartingWithATerminatorIsASyntaxError(text: String) {
        expectOneSyntaxError(text, saying: "expected a value or ']' in the array")
    }

    /// toml++ reads `YYYY-MM-DD`, a space and a digit as the start of a
    /// date-time and asserts on the terminator after a lone digit; after `T`
    /// its `parse_time` asserts on a digit.
    @Test(arguments: [
        "a = 2020-01-01 1\n", "a = 2020-01-01 1 ", "a = [2020-01-01 1]", "a = 2020-01-01 1,", "a = 2020-01-01 1#",
        "a = 2020-01-0é 1\n", "a = { b = 2020-01-01 1}", "a = 2020-01-01 1\u{2028}",
    ])
    func dateWithALoneHourDigitIsASyntaxError(text: String) {
        expectOneSyntaxError(text, saying: "expected a two-digit hour")
    }

    /// A date is never written with underscores; with 115–117 of them toml++'s
    /// look-ahead for the time outruns its 127-character history and
    /// `utf8_buffered_reader::step_back` asserts. With exactly 117 (a
    /// 127-character token) it does so before a space and any character,
    /// not only a digit (fuzz-config's crash, fifteenth session's CI).
    @Test(arguments: [
        "a = 1978-05-27" + String(repeating: "_", count: 115) + " 07:32:00.999-07:00\n",
        "a = [1978-05-2" + String(repeating: "_", count: 116) + "7 07:32:00]\n", "a = 2_020-01-01 1\n",
        "a = 2020-01-01_ 07:00:00\n",
        "[source.static]\nlatitude = 1978-05-27" + String(repeating: "_", count: 117) + " )7:32:00\n",
        "a = 1978-05-27" + String(repeating: "_", count: 117) + " x\n", "a = 1978-05-27_\n",
    ])
    func dateWithUnderscoresBeforeATimeIsASyntaxError(text: String) {
        expectOneSyntaxError(text, saying: "a date cannot contain '_'")
    }

    @Test(arguments: [
        "a = 1979-05-27T:00", "a = 1979-05-27t:00", "a = 1979-05-27T_07:00", "a = 1979-05-27TZ:",
        "a = [1979-05-27Tx:00]",
        "a = 1979-05-27T+1:", "a = 1979-05-27T \n",
    ])
    func dateTimeWithoutATimeIsASyntaxError(text: String) {
        expectOneSyntaxError(text, saying: "expected a time (HH:MM:SS) after the 'T'")
    }

    /// TOMLKit hands toml++ a C string, which would end at a NUL and load the
    /// rest of the file as if it were not there.
    @Test(arguments: ["a = 1\0[é]", "[daemon]\0\nmax_clients = \"x\"\n", "\0"])
    func nulIsASyntaxError(text: String) {
        expectOneSyntaxError(text, saying: "TOML does not allow a NUL character")
    }

    @Test(arguments: [
        ("a = [\n  1,\n  }\n]\n", 3, 3), ("a = [1, \u{2028}]", 1, 9), ("b = \"é\"\nd = 2020-01-01 1\n", 2, 16),
        ("\u{FEFF}d = 1979-05-27T:00\n", 1, 16), ("x = \"é\" # é\n\0", 2, 1),
    ])
    func errorSaysWhere(text: String, line: Int, column: Int) {
        let found = errors(text)
        #expect(found.first?.line == line)
        #expect(found.first?.column == column)
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

    /// Valid TOML that looks like the shapes above: toml++ parses it, and the
    /// scanner must let it through.
    @Test(arguments: [
        "a = [\n[[1]],\n[{ b = 1 }],\n[ [2] ],\n[\n],\n]\n",
        "a = [ # } and U+2028 \u{2028} in a comment\n  \"}\", '}', \"\u{2028}\",\n]\n",
        "a = [ {}, { b = [] } ]\nc = {}\n",
        "d = 1979-05-27\ne = 1979-05-27 07:32:00\nf = 1979-05-27T07:32:00Z\n"
            + "g = 1979-05-27 07:32:00.5-07:00\nh = [1979-05-27 # c\n]\n",
        "1979-05-27Tab = 1\n2020-01-01 = 2\nt = { 1979-05-27Tx = 3, c = 4 }\n[1979-05-27T.x]\n",
        "s = \"\"\"x\"\"\"\"\"\nt = [1]\nu = '''y''''\nv = [2]\n",
        "s = \"\"\"a \\\n   [é] b\"\"\"\n",
        "s = \"\\\"2020-01-01 1\\\"\"\nt = '1979-05-27T:'\n",
        "[[x]]\n[[x]]\n[ \"y\" . 'z' ]\n",
    ])
    func validTOMLIsLeftAlone(text: String) throws {
        #expect(TOMLNode.unparsableInput(in: text) == nil)
        _ = try TOMLNode.parse(text)
    }

    /// The shipped daemon configurations (`config/*.toml` but the kiosk's
    /// own `kiosk.toml`, which PetSpotKioskConfigurationTests load) still load.
    @Test func shippedConfigurationsLoad() throws {
        let directory = RepositoryPaths.root + "/config"
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasSuffix(".toml") && $0 != "kiosk.toml"
        }
        #expect(files.count >= 3)
        for file in files {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            #expect(TOMLNode.unparsableInput(in: text) == nil, "\(file)")
            do {
                _ = try ConfigurationLoader.parse(text: text, baseDirectory: directory)
            } catch {
                Issue.record("\(file): \(error.errors.map(\.description))")
            }
        }
    }

    private func expectOneSyntaxError(
        _ text: String, saying reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let found = errors(text)
        #expect(found.count == 1, sourceLocation: sourceLocation)
        #expect(
            found.first?.message.hasPrefix("TOML syntax error: \(reason)") == true, "\(found)",
            sourceLocation: sourceLocation)
        #expect(found.first?.line != nil && found.first?.column != nil, sourceLocation: sourceLocation)
    }
}
