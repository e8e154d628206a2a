import PetSpotLocation

/// A finished command with the exit code of SPEC §6 and what to print on stderr.
struct CLIExit: Error {
    var code: Int32
    var message: String

    static let success: Int32 = 0
    static let usage: Int32 = 1
    static let notAuthorized: Int32 = 3
    static let noLocation: Int32 = 4
    static let unreachable: Int32 = 5

    /// The exit for a failed call.
    init(_ error: LocationError) {
        message = "petspot-location: \(error.description) (\(error.reason))"
        switch error {
        case .notDetermined, .denied, .restricted, .promptUnavailable, .forbidden:
            code = Self.notAuthorized
        case .locationUnknown, .sourceUnavailable:
            code = Self.noLocation
        case .daemonUnreachable, .tooManyClients:
            code = Self.unreachable
        case .invalidRequest:
            code = Self.usage
        case .internalError:
            code = Self.unreachable
        }
    }

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }
}
