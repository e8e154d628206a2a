import PetSpotLocation

/// The `LocationService` backed by `petspot-locationd` at `socketPath`.
///
/// The one place the executable creates the daemon client. Until the
/// client library is wired in, it returns ``UnwiredDaemonService``, which
/// answers every call with `daemonUnreachable`.
func makeDaemonService(socketPath: String) -> any LocationService {
    UnwiredDaemonService(socketPath: socketPath)
}

/// Stand-in for the daemon client: every call fails with `daemonUnreachable`.
struct UnwiredDaemonService: LocationService {
    var socketPath: String

    private var error: LocationError { .daemonUnreachable("client library not wired yet") }

    func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix { throw error }

    func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> {
        AsyncThrowingStream { $0.finish(throwing: error) }
    }

    func authorizationStatus() async throws(LocationError) -> AuthorizationState { throw error }

    func requestAuthorization(accuracy: AccuracyAuthorization) async throws(LocationError) -> AuthorizationState {
        throw error
    }
}
