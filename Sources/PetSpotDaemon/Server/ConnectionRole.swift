import Logging
import NIOCore
import PetSpotLocation

/// What the connections of one socket do once ``SocketServer`` has accepted,
/// identified and admitted them: speak JSON-RPC (``RPCConnections``) or
/// read NMEA sentences (``NMEAConsumers``).
///
/// Everything before that is the server's and the same for every socket:
/// binding (mode, group, backlog), the child channel's options, the peer's
/// kernel credentials and pin, admission (`max_clients`, each uid's share),
/// the executor preference of the connection's task, and shutdown. A new
/// protocol is a new role, not a second server.
protocol ConnectionRole: Sendable {
    /// The connection's last handler: its only writer, where the fan-out
    /// writes its updates (``UpdateOutlet``).
    associatedtype Handler: ChannelHandler & UpdateOutlet

    /// What the logs call one of these connections ("client", "NMEA consumer").
    var noun: String { get }

    /// This socket's own bound on connections served at once, checked at
    /// accept before any identity lookup (so a flood past it costs none),
    /// and the configuration key that sets it; `nil`: only the registry's
    /// bounds, which every connection of every socket counts against.
    var ownBound: (limit: Int, key: String)? { get }

    /// Adds the role's handlers to an accepted channel's pipeline, on its
    /// event loop, and returns the last one. Nothing may be written to the
    /// client until ``start(_:handler:channel:logger:)``.
    func addHandlers(to channel: any Channel) throws -> Handler

    /// Whether `identity` may take the slots kept for the prompt agent (and
    /// is not held to its uid's share).
    func mayBePromptAgent(_ identity: ClientIdentity) async -> Bool

    /// What a client the registry refused is told before its connection
    /// closes; `nil`: nothing.
    func refusalLine(_ refusal: ClientRegistry.Refusal) -> ByteBuffer?

    /// The admitted connection's session.
    func session(
        id: ConnectionID, identity: ClientIdentity, handler: NIOLoopBound<Handler>, outlet: LoopBoundOutlet,
        channel: any Channel
    ) -> ClientSession

    /// Starts serving an admitted connection; the server then waits until
    /// it closes, and releases what it held.
    func start(_ session: ClientSession, handler: NIOLoopBound<Handler>, channel: any Channel, logger: Logger) async
}
