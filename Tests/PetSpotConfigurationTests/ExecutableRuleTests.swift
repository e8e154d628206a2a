import PetSpotConfiguration
import PetSpotPolicy
import Testing

/// Hardening item 15: executable rules are compared by real path and warned about
/// when they cannot do what they say; item 12: `unit` rules name system units only.
@Suite struct ExecutableRuleTests {
    static func rules(_ body: String) throws -> DaemonConfiguration {
        try ConfigurationLoader.parse(text: "[policy]\n[[policy.rules]]\n\(body)\n")
    }

    @Test func item15_executablePathsAreCanonicalised() throws {
        // /bin/sh on a merged-/usr Debian is /usr/bin/sh → its real target.
        let configuration = try Self.rules("executable = \"/bin/sh\"\nstatus = \"denied\"")
        let path = try #require(configuration.policy.rules.first?.executable)
        #expect(!path.hasPrefix("/bin/"), "\(path)")
        #expect(path.hasPrefix("/usr/"))
    }

    @Test func item15_checkConfigWarnsAboutRulesThatCannotMatch() throws {
        let granting = try Self.rules("executable = \"/usr/bin/petspot-nowhere\"\nstatus = \"authorized\"")
        let warnings = granting.warnings()
        #expect(warnings.contains { $0.hasPrefix("policy.rules[0].executable:") && $0.contains("never matches") })
        #expect(warnings.contains { $0.contains("does not exist") })
        let refusing = try Self.rules("executable = \"/bin/sh\"\nstatus = \"denied\"")
        #expect(refusing.warnings().isEmpty)
    }

    @Test func item12_unitRulesNameSystemUnitsOnly() {
        #expect(throws: ConfigurationErrors.self) {
            try Self.rules("unit = \"user@1000.service/kiosk.service\"\nstatus = \"authorized\"")
        }
    }
}
