public import PetSpotLocation

/// How `authorization.request` resolves a `notDetermined` client (`policy.prompt`).
public enum PromptMode: String, Sendable, Hashable, CaseIterable {
    /// Ask the registered prompt agent and wait up to `policy.prompt_timeout`.
    case agent
    /// Authorize at once.
    case allow
    /// Deny at once.
    case deny
}

/// Users and groups allowed a privileged role (`[policy.agent]`, `[policy.admin]`).
///
/// - `users`: `[String]`, user names.
/// - `groups`: `[String]`, group names (primary or supplementary).
public struct PrincipalSet: Sendable, Hashable {
    /// User names.
    public var users: [String]
    /// Group names.
    public var groups: [String]

    /// Creates a set.
    public init(users: [String] = [], groups: [String] = []) {
        self.users = users
        self.groups = groups
    }

    /// Whether the client's user name is listed, or any of its group names is.
    public func contains(_ identity: ClientIdentity) -> Bool {
        if let user = identity.user, users.contains(user) { return true }
        return (identity.groups ?? []).contains { groups.contains($0) }
    }
}

/// A decision remembered for a uid (from the agent, or `prompt = allow/deny`).
public struct RememberedDecision: Sendable, Hashable {
    /// The remembered status.
    public var status: AuthorizationStatus
    /// The accuracy granted with `authorized`.
    public var accuracy: AccuracyAuthorization?

    /// Creates a decision; `accuracy` is kept only for `authorized` (default `full`).
    public init(status: AuthorizationStatus, accuracy: AccuracyAuthorization? = nil) {
        self.status = status
        self.accuracy = status == .authorized ? (accuracy ?? .full) : nil
    }
}

/// The `[policy]` section: who may learn the location, and how undecided clients are asked.
///
/// - `default`: ``AuthorizationStatus``, default `notDetermined` (`authorized` means full accuracy).
/// - `prompt`: ``PromptMode``, default `agent`.
/// - `prompt_timeout`: seconds, default 30.
/// - `reduced_accuracy_m`: metres, default 3000.
/// - `reduced_update_interval`: seconds, default 60: the least time between two
///   updates of a reduced-accuracy watch.
/// - `agent`: ``PrincipalSet``, default users `["root"]`.
/// - `admin`: ``PrincipalSet``, default users `["root"]`.
/// - `rules`: ``PolicyRule`` list, default empty; the first match wins.
public struct Policy: Sendable, Hashable {
    /// Default `prompt_timeout`.
    public static let defaultPromptTimeout: Duration = .seconds(30)
    /// Default `reduced_accuracy_m`.
    public static let defaultReducedAccuracyMeters = 3000.0
    /// Default `reduced_update_interval`.
    public static let defaultReducedUpdateInterval: Duration = .seconds(60)

    /// Status of clients no rule matches.
    public var defaultStatus: AuthorizationStatus
    /// How `notDetermined` clients are asked.
    public var prompt: PromptMode
    /// How long to wait for the agent's answer.
    public var promptTimeout: Duration
    /// Grid cell size for reduced accuracy.
    public var reducedAccuracyMeters: Double
    /// Least time between two updates of a reduced-accuracy watch.
    public var reducedUpdateInterval: Duration
    /// Who may register as prompt agent.
    public var agent: PrincipalSet
    /// Who may reset decisions.
    public var admin: PrincipalSet
    /// Rules, in order.
    public var rules: [PolicyRule]

    /// Creates a policy.
    public init(
        defaultStatus: AuthorizationStatus = .notDetermined,
        prompt: PromptMode = .agent,
        promptTimeout: Duration = Policy.defaultPromptTimeout,
        reducedAccuracyMeters: Double = Policy.defaultReducedAccuracyMeters,
        reducedUpdateInterval: Duration = Policy.defaultReducedUpdateInterval,
        agent: PrincipalSet = PrincipalSet(users: ["root"]),
        admin: PrincipalSet = PrincipalSet(users: ["root"]),
        rules: [PolicyRule] = []
    ) {
        self.defaultStatus = defaultStatus
        self.prompt = prompt
        self.promptTimeout = promptTimeout
        self.reducedAccuracyMeters = reducedAccuracyMeters
        self.reducedUpdateInterval = reducedUpdateInterval
        self.agent = agent
        self.admin = admin
        self.rules = rules
    }

    /// The first rule matching `identity`, with its index.
    public func firstMatchingRule(for identity: ClientIdentity) -> (index: Int, rule: PolicyRule)? {
        guard let index = rules.firstIndex(where: { $0.matches(identity) }) else { return nil }
        return (index, rules[index])
    }

    /// Resolves a client's authorization (SPEC §3).
    ///
    /// The first matching rule decides (`decidedBy: .rule`). When that rule
    /// says `notDetermined`, or no rule matches and ``defaultStatus`` is
    /// `notDetermined`, a remembered decision applies (`decidedBy: .decision`);
    /// without one the client stays `notDetermined`, attributed to the rule or
    /// the default. Otherwise ``defaultStatus`` decides (`decidedBy: .default`;
    /// `authorized` means full accuracy). A remembered decision never
    /// overrides a rule or default that says `authorized`, `denied` or `restricted`.
    ///
    /// A rule naming an `executable` only takes away (issue 29 item 8,
    /// docs/ROBUSTNESS.md): a client it matches gets its status or what the
    /// client would get without it (the rules after it, a remembered
    /// decision, the default), whichever lets it learn less (a tie goes
    /// to the rule). The executable is read from a process that
    /// may have exec'd it after connecting, or that shares its connection
    /// with others: it can never be the reason a client is served.
    ///
    /// - Parameters:
    ///   - identity: the client, as derived from its peer credentials.
    ///   - remembered: the decision remembered for its uid (or an allow-once
    ///     decision for this connection), if any. One whose status is
    ///     `notDetermined` counts as none.
    public func resolve(for identity: ClientIdentity, remembered: RememberedDecision?) -> AuthorizationState {
        let remembered = remembered.flatMap { $0.status == .notDetermined ? nil : $0 }
        // The matching rules that name an executable, in order, up to the
        // first matching rule that names none (or the default).
        var caps: [AuthorizationState] = []
        var state: AuthorizationState?
        for rule in rules where rule.matches(identity) {
            let decided = Self.settle(
                rule.status, accuracy: rule.accuracy, origin: .rule, identity: identity, remembered: remembered)
            guard rule.executable != nil else {
                state = decided
                break
            }
            caps.append(decided)
        }
        var result =
            state
            ?? Self.settle(defaultStatus, accuracy: nil, origin: .default, identity: identity, remembered: remembered)
        // The earliest rule is applied last, so it takes a tie.
        for cap in caps.reversed() where !result.grantsLess(than: cap) { result = cap }
        return result
    }

    /// The state `status` gives, with a remembered decision in place of `notDetermined`.
    private static func settle(
        _ status: AuthorizationStatus, accuracy: AccuracyAuthorization?, origin: DecisionOrigin,
        identity: ClientIdentity, remembered: RememberedDecision?
    ) -> AuthorizationState {
        if status == .notDetermined, let remembered {
            return AuthorizationState(
                status: remembered.status, accuracy: remembered.accuracy, decidedBy: .decision, client: identity)
        }
        return AuthorizationState(status: status, accuracy: accuracy, decidedBy: origin, client: identity)
    }
}

extension AuthorizationState {
    /// How much the state lets a client learn: `denied` and `restricted`
    /// nothing, `notDetermined` nothing yet (it may ask), then reduced, then
    /// full accuracy.
    var reach: Int {
        switch status {
        case .denied, .restricted: 0
        case .notDetermined: 1
        case .authorized: accuracy == .reduced ? 2 : 3
        }
    }

    /// Whether this state lets a client learn strictly less than `other`.
    func grantsLess(than other: AuthorizationState) -> Bool { reach < other.reach }
}
