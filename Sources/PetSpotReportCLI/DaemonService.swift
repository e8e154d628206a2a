import PetSpotLocation
import PetSpotLocationClient

/// The `LocationService` backed by `petspot-locationd` at `socketPath`:
/// the one place the executable creates the daemon client.
func makeDaemonService(socketPath: String) -> any LocationService {
    LocationClient(socketPath: socketPath)
}
