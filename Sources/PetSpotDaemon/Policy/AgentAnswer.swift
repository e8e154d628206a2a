import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol

/// What a prompt agent answers to `agent.prompt`:
/// `{"decision": "allow"/"allowOnce"/"deny", "accuracy"?: "full"/"reduced"}`.
struct AgentAnswer: Sendable, Equatable {
    /// The agent's decision.
    enum Decision: String, Sendable, CaseIterable {
        /// Authorize, remembered for the uid.
        case allow
        /// Authorize this connection only, not remembered.
        case allowOnce
        /// Deny, remembered for the uid.
        case deny
    }

    var decision: Decision
    var accuracy: AccuracyAuthorization?

    /// Reads an answer; `nil` when it is malformed (the prompt then counts as unanswered).
    init?(_ result: JSONValue) {
        guard case .object(let members) = result, members.keys.allSatisfy({ ["decision", "accuracy"].contains($0) }),
            case .string(let decisionText)? = members["decision"], let decision = Decision(rawValue: decisionText)
        else { return nil }
        self.decision = decision
        switch members["accuracy"] {
        case nil: accuracy = nil
        case .string(let text)?:
            guard let accuracy = AccuracyAuthorization(rawValue: text) else { return nil }
            self.accuracy = accuracy
        default: return nil
        }
    }

    init(decision: Decision, accuracy: AccuracyAuthorization? = nil) {
        self.decision = decision
        self.accuracy = accuracy
    }

    /// The accuracy granted for a request that asked for `requested`: never more than asked.
    func granted(requested: AccuracyAuthorization) -> AccuracyAuthorization {
        (accuracy == .reduced || requested == .reduced) ? .reduced : .full
    }

    /// The `agent.prompt` params for `client` asking for `accuracy`.
    static func promptParams(client: ClientIdentity, accuracy: AccuracyAuthorization) -> JSONValue {
        ["client": WireCoding.encode(client), "accuracy": .string(accuracy.rawValue)]
    }
}
