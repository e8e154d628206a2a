import Logging
import PetSpotConfiguration

/// What SIGHUP does in the executable: re-read and validate the
/// configuration file, log the outcome, and report whether it was taken.
/// A file that fails validation leaves the running configuration in force.
struct ConfigurationReload: Sendable {
    /// The configuration file; `nil` for `--demo` (the embedded configuration).
    let path: String?
    let logger: Logger

    /// Re-reads the file.
    /// - Returns: `true` when it is valid.
    func run() async -> Bool {
        guard let path else {
            logger.notice("reload: --demo uses the embedded configuration; nothing to re-read")
            return true
        }
        do {
            let configuration = try ConfigurationLoader.load(path: path)
            logger.notice(
                // Validation only, for now: the policy swap on reload is
                // implemented separately and merged in by the integrator.
                "reload: configuration re-read and valid (the running policy is swapped once policy reload is merged)",
                metadata: ["config": "\(path)", "socket": "\(configuration.daemon.socket)"])
            return true
        } catch {
            logger.error(
                "reload: invalid configuration, keeping the running one",
                metadata: ["config": "\(path)", "errors": "\(error.description)"])
            return false
        }
    }
}
