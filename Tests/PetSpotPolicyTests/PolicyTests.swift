import PetSpotLocation
import PetSpotPolicy
import Testing

private let kiosk = ClientIdentity(
    uid: 1001, gid: 1001, pid: 42, user: "kiosk", groups: ["kiosk", "video", "petspot"],
    unit: "petspot-report.service", executable: "/usr/bin/petspot-report", groupIDs: [1001, 44, 990])
private let anonymous = ClientIdentity(uid: 1002, gid: 1002, pid: 43)

@Suite struct RuleMatchingTests {
    @Test(arguments: [
        (PolicyRule(user: "kiosk", status: .authorized), true),
        (PolicyRule(user: "other", status: .authorized), false),
        (PolicyRule(uid: 1001, status: .authorized), true),
        (PolicyRule(uid: 0, status: .authorized), false),
        (PolicyRule(group: "kiosk", status: .authorized), true),  // primary
        (PolicyRule(group: "video", status: .authorized), true),  // supplementary
        (PolicyRule(group: "wheel", status: .authorized), false),
        (PolicyRule(gid: 1001, status: .authorized), true),  // primary
        (PolicyRule(gid: 990, status: .authorized), true),  // supplementary
        (PolicyRule(gid: 27, status: .authorized), false),
        (PolicyRule(unit: "petspot-report.service", status: .authorized), true),
        (PolicyRule(unit: "ssh.service", status: .authorized), false),
        (PolicyRule(executable: "/usr/bin/petspot-report", status: .authorized), true),
        (PolicyRule(executable: "/usr/bin/other", status: .authorized), false),
        (PolicyRule(user: "kiosk", uid: 1001, group: "video", gid: 44, status: .authorized), true),
        (PolicyRule(user: "kiosk", uid: 1002, status: .authorized), false),
        (PolicyRule(user: "kiosk", unit: "ssh.service", status: .authorized), false),
        (PolicyRule(group: "video", executable: "/usr/bin/other", status: .authorized), false),
        (PolicyRule(status: .authorized), true),  // no matcher: matches everyone
    ])
    func matchesKiosk(rule: PolicyRule, expected: Bool) {
        #expect(rule.matches(kiosk) == expected)
    }

    @Test(arguments: [
        PolicyRule(user: "kiosk", status: .authorized),
        PolicyRule(group: "kiosk", status: .authorized),
        PolicyRule(gid: 990, status: .authorized),
        PolicyRule(unit: "petspot-report.service", status: .authorized),
    ])
    func unknownAttributesNeverMatch(rule: PolicyRule) {
        #expect(!rule.matches(anonymous))
    }

    /// Hardening item 15, then issue 29 item 8: a rule naming an executable
    /// applies when the executable is unknown, whatever its status (it only
    /// takes away, so applying it fails closed).
    @Test(arguments: AuthorizationStatus.allCases)
    func item15_unknownExecutableFailsClosed(status: AuthorizationStatus) {
        #expect(PolicyRule(executable: "/usr/bin/tracker", status: status).matches(anonymous))
        // Other matchers still have to match.
        #expect(!PolicyRule(uid: 7, executable: "/usr/bin/tracker", status: status).matches(anonymous))
        // A known, different executable is not matched by it.
        #expect(!PolicyRule(executable: "/usr/bin/tracker", status: status).matches(kiosk))
    }

    @Test func gidMatchesPrimaryWithoutGroupList() {
        #expect(PolicyRule(gid: 1002, status: .denied).matches(anonymous))
    }
}

@Suite struct ResolutionTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var policy: Policy
        var identity: ClientIdentity
        var remembered: RememberedDecision?
        var status: AuthorizationStatus
        var accuracy: AccuracyAuthorization?
        var origin: DecisionOrigin
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "first match wins",
            policy: Policy(rules: [
                PolicyRule(group: "video", status: .restricted),
                PolicyRule(user: "kiosk", status: .authorized),
            ]), identity: kiosk, status: .restricted, origin: .rule),
        Case(
            name: "later rule when first does not match",
            policy: Policy(rules: [
                PolicyRule(user: "other", status: .restricted),
                PolicyRule(user: "kiosk", status: .authorized, accuracy: .reduced),
            ]), identity: kiosk, status: .authorized, accuracy: .reduced, origin: .rule),
        Case(
            name: "authorized rule without accuracy is full",
            policy: Policy(rules: [PolicyRule(uid: 1001, status: .authorized)]), identity: kiosk,
            status: .authorized, accuracy: .full, origin: .rule),
        Case(
            name: "notDetermined rule uses remembered",
            policy: Policy(defaultStatus: .denied, rules: [PolicyRule(uid: 1001, status: .notDetermined)]),
            identity: kiosk, remembered: RememberedDecision(status: .authorized, accuracy: .reduced),
            status: .authorized, accuracy: .reduced, origin: .decision),
        Case(
            name: "notDetermined rule without remembered",
            policy: Policy(defaultStatus: .denied, rules: [PolicyRule(uid: 1001, status: .notDetermined)]),
            identity: kiosk, status: .notDetermined, origin: .rule),
        Case(
            name: "default notDetermined uses remembered", policy: Policy(), identity: anonymous,
            remembered: RememberedDecision(status: .denied), status: .denied, origin: .decision),
        Case(
            name: "default notDetermined without remembered", policy: Policy(), identity: anonymous,
            status: .notDetermined, origin: .default),
        Case(
            name: "remembered notDetermined counts as none", policy: Policy(), identity: anonymous,
            remembered: RememberedDecision(status: .notDetermined), status: .notDetermined, origin: .default),
        Case(
            name: "authorized rule ignores remembered denial",
            policy: Policy(rules: [PolicyRule(user: "kiosk", status: .authorized)]), identity: kiosk,
            remembered: RememberedDecision(status: .denied), status: .authorized, accuracy: .full, origin: .rule),
        Case(
            name: "denied rule ignores remembered authorization",
            policy: Policy(rules: [PolicyRule(user: "kiosk", status: .denied)]), identity: kiosk,
            remembered: RememberedDecision(status: .authorized), status: .denied, origin: .rule),
        Case(
            name: "restricted rule ignores remembered authorization",
            policy: Policy(rules: [PolicyRule(user: "kiosk", status: .restricted)]), identity: kiosk,
            remembered: RememberedDecision(status: .authorized), status: .restricted, origin: .rule),
        Case(
            name: "authorized default ignores remembered", policy: Policy(defaultStatus: .authorized),
            identity: anonymous, remembered: RememberedDecision(status: .denied), status: .authorized,
            accuracy: .full, origin: .default),
        Case(
            name: "denied default ignores remembered", policy: Policy(defaultStatus: .denied), identity: anonymous,
            remembered: RememberedDecision(status: .authorized), status: .denied, origin: .default),
        Case(
            name: "restricted default", policy: Policy(defaultStatus: .restricted), identity: anonymous,
            status: .restricted, origin: .default),
        Case(
            name: "an executable rule that refuses applies to an unreadable executable",
            policy: Policy(defaultStatus: .authorized, rules: [PolicyRule(executable: "/usr/bin/x", status: .denied)]),
            identity: anonymous, status: .denied, origin: .rule),
        Case(
            name: "an authorizing executable rule grants nothing to an unreadable executable",
            policy: Policy(defaultStatus: .denied, rules: [PolicyRule(executable: "/usr/bin/x", status: .authorized)]),
            identity: anonymous, status: .denied, origin: .default),
        // Issue 29 item 8: a rule naming an executable only takes away.
        Case(
            name: "an authorizing executable rule grants nothing the default refuses",
            policy: Policy(
                defaultStatus: .denied, rules: [PolicyRule(executable: "/usr/bin/petspot-report", status: .authorized)]),
            identity: kiosk, status: .denied, origin: .default),
        Case(
            name: "an authorizing executable rule gives no more than the rule after it",
            policy: Policy(
                defaultStatus: .denied,
                rules: [
                    PolicyRule(executable: "/usr/bin/petspot-report", status: .authorized),
                    PolicyRule(user: "kiosk", status: .authorized, accuracy: .reduced),
                ]), identity: kiosk, status: .authorized, accuracy: .reduced, origin: .rule),
        Case(
            name: "an authorizing executable rule does not override a remembered denial",
            policy: Policy(rules: [PolicyRule(executable: "/usr/bin/petspot-report", status: .authorized)]),
            identity: kiosk, remembered: RememberedDecision(status: .denied), status: .denied, origin: .decision),
        Case(
            name: "an executable rule with reduced accuracy caps a full grant after it",
            policy: Policy(
                defaultStatus: .denied,
                rules: [
                    PolicyRule(executable: "/usr/bin/petspot-report", status: .authorized, accuracy: .reduced),
                    PolicyRule(user: "kiosk", status: .authorized),
                ]), identity: kiosk, status: .authorized, accuracy: .reduced, origin: .rule),
        Case(
            name: "an executable rule with reduced accuracy caps an unreadable executable",
            policy: Policy(
                defaultStatus: .authorized,
                rules: [PolicyRule(executable: "/usr/bin/x", status: .authorized, accuracy: .reduced)]),
            identity: anonymous, status: .authorized, accuracy: .reduced, origin: .rule),
        Case(
            name: "a notDetermined executable rule holds a client to its remembered decision",
            policy: Policy(
                defaultStatus: .authorized,
                rules: [PolicyRule(executable: "/usr/bin/petspot-report", status: .notDetermined)]),
            identity: kiosk, remembered: RememberedDecision(status: .authorized, accuracy: .reduced),
            status: .authorized, accuracy: .reduced, origin: .decision),
        Case(
            name: "a notDetermined executable rule without a decision leaves the client to ask",
            policy: Policy(
                defaultStatus: .authorized,
                rules: [PolicyRule(executable: "/usr/bin/petspot-report", status: .notDetermined)]),
            identity: kiosk, status: .notDetermined, origin: .rule),
        Case(
            name: "of two executable rules the lesser caps",
            policy: Policy(
                defaultStatus: .authorized,
                rules: [
                    PolicyRule(executable: "/usr/bin/petspot-report", status: .authorized, accuracy: .reduced),
                    PolicyRule(group: "video", executable: "/usr/bin/petspot-report", status: .restricted),
                ]), identity: kiosk, status: .restricted, origin: .rule),
        Case(
            name: "group via supplementary",
            policy: Policy(defaultStatus: .denied, rules: [PolicyRule(group: "petspot", status: .authorized)]),
            identity: kiosk, status: .authorized, accuracy: .full, origin: .rule),
        Case(
            name: "gid via primary",
            policy: Policy(defaultStatus: .denied, rules: [PolicyRule(gid: 1001, status: .authorized)]),
            identity: ClientIdentity(uid: 5, gid: 1001, pid: 1), status: .authorized, accuracy: .full, origin: .rule),
    ]

    @Test(arguments: cases)
    func resolves(_ testCase: Case) {
        let state = testCase.policy.resolve(for: testCase.identity, remembered: testCase.remembered)
        #expect(state.status == testCase.status)
        #expect(state.accuracy == testCase.accuracy)
        #expect(state.decidedBy == testCase.origin)
        #expect(state.client == testCase.identity)
    }
}

@Suite struct PrincipalSetTests {
    @Test(arguments: [
        (PrincipalSet(users: ["kiosk"]), true),
        (PrincipalSet(users: ["root"]), false),
        (PrincipalSet(groups: ["video"]), true),
        (PrincipalSet(groups: ["kiosk"]), true),
        (PrincipalSet(users: ["root"], groups: ["wheel"]), false),
        (PrincipalSet(), false),
    ])
    func contains(set: PrincipalSet, expected: Bool) {
        #expect(set.contains(kiosk) == expected)
    }

    @Test func unknownNamesAreNotMembers() {
        #expect(!PrincipalSet(users: ["root"], groups: ["root"]).contains(ClientIdentity(uid: 0, gid: 0, pid: 1)))
    }
}
