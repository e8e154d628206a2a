import PetSpotConfiguration
import PetSpotPolicy
import PetSpotSettings
import Testing

/// Hardening item 15: executable rules are compared by real path and warned about
/// when they cannot do what they say (issue 29 item 8: they only take away); item 12: `unit` rules name system units only.
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
        let granting = try Self.rules("executable = \"/usr/bin/petspot-nowhere\"\nstatus = \"denied\"")
        let warnings = granting.warnings()
        #expect(
            warnings.contains {
                $0.hasPrefix("policy.rules[0].executable:") && $0.contains("applies to all of them")
            })
        #expect(warnings.contains { $0.contains("does not exist") })
        let refusing = try Self.rules("executable = \"/bin/sh\"\nstatus = \"denied\"")
        #expect(refusing.warnings(daemonRunsAsRoot: true).isEmpty)
    }

    /// Issue 29 item 8: a rule naming an executable only takes away;
    /// `--check-config` says so for each one that looks like a grant.
    @Test(arguments: [
        ("status = \"authorized\"", "has no effect"),
        ("status = \"authorized\"\naccuracy = \"full\"", "has no effect"),
        ("status = \"authorized\"\naccuracy = \"reduced\"", "only limits the clients it matches to reduced"),
        ("status = \"notDetermined\"", "only limits the clients it matches to their remembered decision"),
    ])
    func issue29item08_checkConfigSaysAnExecutableRuleOnlyTakesAway(status: String, effect: String) throws {
        let configuration = try Self.rules("executable = \"/bin/sh\"\n\(status)")
        let warnings = configuration.warnings(daemonRunsAsRoot: true)
        #expect(warnings.count == 1, "\(warnings)")
        #expect(
            warnings.contains {
                $0.hasPrefix("policy.rules[0].executable: a rule naming an executable only takes away")
                    && $0.contains(effect)
            }, "\(warnings)")
    }

    @Test func item12_unitRulesNameSystemUnitsOnly() {
        #expect(throws: ConfigurationErrors.self) {
            try Self.rules("unit = \"user@1000.service/kiosk.service\"\nstatus = \"authorized\"")
        }
    }
}
