import Synchronization

/// How many of each connection's objects are alive in the process: a
/// handler and a session per admitted client, created at accept and freed
/// when the connection is gone. Counted from their initializers and
/// deinitializers, so a connection whose objects outlive it (a reference
/// cycle, a registry that forgets to let go) shows as a count that does not
/// come back to the number of open connections. `daemon.status` reports it
/// (`memory`); the per-connection memory tests wait on it.
enum ConnectionCensus {
    /// Live ``ConnectionHandler``s.
    static let handlers = Atomic<Int>(0)
    /// Live ``ClientSession``s.
    static let sessions = Atomic<Int>(0)
}
