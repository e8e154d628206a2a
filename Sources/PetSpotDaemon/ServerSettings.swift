import PetSpotLocation

/// What the socket server needs: the `[daemon]` part of the configuration
/// after validation.
public struct ServerSettings: Sendable, Equatable {
    /// Path of the Unix socket (`daemon.socket`).
    public var socketPath: String
    /// Permission bits of the socket file (`daemon.socket_mode`, default 0o660).
    public var socketMode: UInt32
    /// Group owning the socket file (`daemon.socket_group`), when set.
    public var socketGroup: String?
    /// Most simultaneous clients (`daemon.max_clients`, default 256).
    public var maxClients: Int
    /// Most requests one connection may have in flight at once.
    public var maxRequestsInFlight: Int
    /// Most subscriptions one connection may hold.
    public var maxSubscriptionsPerClient: Int
    /// Most connections one uid may hold at once (`daemon.max_clients_per_uid`).
    public var maxClientsPerUid: Int
    /// Slots of ``maxClients`` kept for clients that may be the prompt agent.
    public var reservedSlots: Int
    /// How long a connection with nothing in flight, no watch and no agent role is kept.
    public var idleTimeout: Duration

    public init(
        socketPath: String,
        socketMode: UInt32 = 0o660,
        socketGroup: String? = nil,
        maxClients: Int = 256,
        maxRequestsInFlight: Int = 64,
        maxSubscriptionsPerClient: Int = 32,
        maxClientsPerUid: Int? = nil,
        reservedSlots: Int = 0,
        idleTimeout: Duration = .seconds(300)
    ) {
        self.maxClientsPerUid = maxClientsPerUid ?? maxClients
        self.reservedSlots = reservedSlots
        self.idleTimeout = idleTimeout
        self.socketPath = socketPath
        self.socketMode = socketMode
        self.socketGroup = socketGroup
        self.maxClients = maxClients
        self.maxRequestsInFlight = maxRequestsInFlight
        self.maxSubscriptionsPerClient = maxSubscriptionsPerClient
    }
}
