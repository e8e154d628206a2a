import PetSpotPOSIX

/// The `[nmea]` section: the optional NMEA 0183 socket for desktop
/// software (GeoClue's `nmea-socket` source, gpsd through a pty).
///
/// - `socket`: string, optional: the socket's path (at most 107 bytes);
///   unset: no NMEA socket.
/// - `socket_mode`: octal string, default `"0660"`.
/// - `socket_group`: string, optional (default: the daemon's group).
/// - `max_clients`: integer in 1...64, default 4: consumers served at once
///   (each also counts against `daemon.max_clients`).
///
/// Every consumer is judged by `[policy]` like any client.
public struct NMEASettings: Sendable, Hashable {
    /// Default `max_clients`.
    public static let defaultMaxClients = 4

    public var socket: String
    public var socketMode: UInt32
    public var socketGroup: String?
    public var maxClients: Int

    public init(
        socket: String, socketMode: UInt32 = 0o660, socketGroup: String? = nil,
        maxClients: Int = NMEASettings.defaultMaxClients
    ) {
        self.socket = socket
        self.socketMode = socketMode
        self.socketGroup = socketGroup
        self.maxClients = maxClients
    }
}

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
