import PetSpotConfiguration
import PetSpotLinux
import PetSpotPOSIX
import Testing

/// TOMLKit never frees what it parses (about 5 KB for a daemon
/// configuration, for good): a reload of an unchanged file must not parse it
/// again (issue 41's station-week soak found the daemon growing by each
/// SIGHUP). Run in a child process of its own (an exit test), so that no
/// other test's allocations move the count.
@Suite struct TOMLParseMemoryTests {
    @Test func parsingTheSameTextAgainKeepsNothing() async {
        await #expect(processExitsWith: .success) {
            let text = """
                [daemon]
                socket = "/run/petspot/locationd.sock"
                state_dir = "/var/lib/petspot-locationd"
                [source]
                kind = "static"
                [source.static]
                latitude = 52.2297
                longitude = 21.0122
                [policy]
                default = "notDetermined"
                [[policy.rules]]
                user = "kiosk"
                status = "authorized"
                """
            let first = try? TOMLNode.parse(text)
            precondition(first != nil, "the text does not parse")
            guard let before = HeapUsage.bytesInUse else { return }
            for _ in 0..<500 { _ = try? TOMLNode.parse(text) }
            let after = HeapUsage.bytesInUse ?? before
            // Parsed each time, 500 parses kept about 2.5 MB.
            precondition(after - before < 100_000, "500 parses of the same text kept \(after - before) bytes")
        }
    }

    /// A changed text is parsed, not answered from the last one.
    @Test func aChangedTextIsParsedAgain() throws {
        let a = try TOMLNode.parse("[policy]\ndefault = \"denied\"\n")
        let b = try TOMLNode.parse("[policy]\ndefault = \"authorized\"\n")
        guard case .table(let policyA)? = a["policy"], case .table(let policyB)? = b["policy"],
            case .string(let defaultA)? = policyA["default"], case .string(let defaultB)? = policyB["default"]
        else {
            Issue.record("unexpected shape: \(a), \(b)")
            return
        }
        #expect(defaultA == "denied" && defaultB == "authorized")
    }
}
