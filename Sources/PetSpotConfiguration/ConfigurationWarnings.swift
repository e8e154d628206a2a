import Glibc
import PetSpotLocation
import PetSpotPolicy
import PetSpotSettings

extension DaemonConfiguration {
    /// Things that are valid but will not do what they seem to
    /// (`petspot-locationd --check-config` prints them to standard error, the
    /// daemon logs them at start and reload), each naming its key.
    ///
    /// - A rule naming an `executable` that does not refuse: such a rule only
    ///   takes away (issue 29 item 8, ``Policy/resolve(for:remembered:)``).
    ///   With `authorized` and full accuracy it has no effect at all; with
    ///   reduced accuracy or `notDetermined` it caps the clients it matches
    ///   and serves none that the rest of the policy would not.
    /// - A rule naming an executable, when the daemon does not run as root:
    ///   it reads `/proc/PID/exe` only of its own user's processes (the
    ///   shipped unit's `petspot`), so for every other user the executable is
    ///   unknown and the rule applies to all their clients (it fails closed).
    /// - A rule naming an executable that does not exist on this machine.
    public func warnings(daemonRunsAsRoot: Bool = false) -> [String] {
        var warnings: [String] = []
        for (index, rule) in policy.rules.enumerated() {
            guard let executable = rule.executable else { continue }
            let key = "policy.rules[\(index)].executable"
            if access(executable, F_OK) != 0 {
                warnings.append("\(key): \(executable) does not exist on this machine")
            }
            if let effect = Self.grantingEffect(of: rule) {
                warnings.append(
                    "\(key): a rule naming an executable only takes away (the executable is not proof of who holds "
                        + "the connection: issue 29 item 8, docs/ROBUSTNESS.md); \(effect)")
            }
            if !daemonRunsAsRoot {
                warnings.append(
                    "\(key): the daemon reads /proc/PID/exe only of its own user's processes when it does not run "
                        + "as root; for clients of other users the executable is unknown and this "
                        + "\(rule.status.rawValue) rule applies to all of them")
            }
        }
        return warnings
    }

    /// What a rule naming an executable does instead of granting, or `nil` when it refuses.
    private static func grantingEffect(of rule: PolicyRule) -> String? {
        switch (rule.status, rule.accuracy) {
        case (.denied, _), (.restricted, _): nil
        case (.authorized, .reduced):
            "this rule grants nothing: it only limits the clients it matches to reduced accuracy"
        case (.authorized, _): "this authorized rule with full accuracy has no effect"
        case (.notDetermined, _):
            "this rule grants nothing: it only limits the clients it matches to their remembered decision or to asking"
        }
    }
}
