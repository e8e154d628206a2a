#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PetSpotLocation
import PetSpotPolicy

extension DaemonConfiguration {
    /// Things that are valid but will not do what they seem to
    /// (`petspot-locationd --check-config` prints them to standard error), each
    /// naming its key.
    ///
    /// - A rule that grants by `executable` matches only clients whose
    ///   `/proc/PID/exe` the daemon can read: as an unprivileged user (the
    ///   shipped unit's `petspot`), that is only its own user's processes, so
    ///   for every other user such a rule never matches. (A rule that refuses
    ///   by executable applies to them all: it fails closed.)
    /// - A rule naming an executable that does not exist on this machine.
    public func warnings(daemonRunsAsRoot: Bool = false) -> [String] {
        var warnings: [String] = []
        for (index, rule) in policy.rules.enumerated() {
            guard let executable = rule.executable else { continue }
            let key = "policy.rules[\(index)].executable"
            if access(executable, F_OK) != 0 {
                warnings.append("\(key): \(executable) does not exist on this machine")
            }
            if !rule.refuses, !daemonRunsAsRoot {
                warnings.append(
                    "\(key): the daemon reads /proc/PID/exe only of its own user's processes when it does not run "
                        + "as root; for clients of other users this \(rule.status.rawValue) rule never matches")
            }
        }
        return warnings
    }
}
