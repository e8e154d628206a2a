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

    /// Path of the NMEA socket.
    public var socket: String
    /// Permission bits of the socket file.
    public var socketMode: UInt32
    /// Group owning the socket file, when set.
    public var socketGroup: String?
    /// Consumers served at once.
    public var maxClients: Int

    /// Creates settings; the defaults are those of an `[nmea]` table with only `socket`.
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
