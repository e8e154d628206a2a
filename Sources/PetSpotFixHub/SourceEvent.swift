import PetSpotLocation

/// What a fix producer tells the hub.
public enum SourceEvent: Sendable, Equatable {
    /// The source became reachable (e.g. gpsd accepted the connection).
    case connected(device: String?)
    /// A position report. The hub validates it: invalid coordinates and
    /// fixes below the hub's minimum mode are dropped and counted.
    case fix(LocationFix)
    /// The source is reachable but has no position (gpsd mode 0/1).
    case noFix
    /// The producer dropped a report before it became a fix
    /// (unparseable, another device's, …); counted as rejected.
    case rejected(reason: String)
    /// The source went down: a connection attempt failed, it closed, or it
    /// went silent.
    case disconnected(reason: String)
}

/// Something that feeds a ``LiveFixHub``: the gpsd reader, the scenario player.
public protocol FixProducer: Sendable {
    /// The kind of fixes it produces.
    var kind: FixSourceKind { get }

    /// Produces events into `hub` until the calling task is cancelled.
    /// Returning early means the producer has nothing more to say
    /// (a finished scenario); it must never throw or crash the daemon.
    func run(reportingTo hub: LiveFixHub) async
}

/// A position that answers at once: a ``LiveFixHub``'s `source.fallback`
/// while the primary source has nothing (the static position), or the
/// position a ``FixedPosition`` answers every request from.
public struct Fallback: Sendable {
    /// The kind the fallback's fixes are marked with.
    public var kind: FixSourceKind
    /// Makes a fix for an answer given at `now`.
    public var makeFix: @Sendable (ContinuousClock.Instant) -> LocationFix

    public init(kind: FixSourceKind, makeFix: @escaping @Sendable (ContinuousClock.Instant) -> LocationFix) {
        self.kind = kind
        self.makeFix = makeFix
    }
}
