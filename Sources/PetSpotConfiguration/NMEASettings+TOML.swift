import PetSpotPOSIX
import PetSpotSettings

extension TableReader {
    /// Reads an `[nmea]` table (see ``NMEASettings``); `nil` when it has no valid socket.
    package mutating func nmeaSettings(
        relativeTo baseDirectory: String?, errors: inout [ConfigurationError]
    ) -> NMEASettings? {
        if !has("socket") { fail("socket", "is required in [nmea] (the NMEA socket's path)", into: &errors) }
        let socket = socketPath("socket", relativeTo: baseDirectory, errors: &errors)
        var settings = NMEASettings(socket: socket ?? "")
        if let mode = permissionMode("socket_mode", errors: &errors) { settings.socketMode = mode }
        settings.socketGroup = nonEmptyString("socket_group", errors: &errors)
        if let maxClients = integer("max_clients", in: 1...64, errors: &errors) { settings.maxClients = maxClients }
        reportUnknownKeys(errors: &errors)
        return socket == nil ? nil : settings
    }
}
