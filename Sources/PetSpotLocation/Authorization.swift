/// Whether a client may learn the device's location, as in CoreLocation.
public enum AuthorizationStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Never decided: the client may call `authorization.request`.
    case notDetermined
    /// Allowed, with an ``AccuracyAuthorization``.
    case authorized
    /// Decided no; the client cannot re-prompt.
    case denied
    /// An administrator forbids it; nobody can change it from a client.
    case restricted
}

/// How precise the positions handed to an authorized client are.
public enum AccuracyAuthorization: String, Sendable, Hashable, Codable, CaseIterable {
    /// The true position.
    case full
    /// Snapped to the centre of a fixed grid cell (`policy.reduced_accuracy_m`).
    case reduced
}

/// What decided a client's status.
public enum DecisionOrigin: String, Sendable, Hashable, Codable {
    /// A `[[policy.rules]]` entry.
    case rule
    /// A remembered (or allow-once) decision.
    case decision
    /// `policy.default`.
    case `default`
}

/// Who a connected client is, as the kernel and the system say.
///
/// Built by the daemon from the socket's peer credentials; a client can
/// never set any of it.
public struct ClientIdentity: Sendable, Hashable, Codable {
    /// Effective user id (SO_PEERCRED).
    public var uid: UInt32
    /// Effective primary group id (SO_PEERCRED).
    public var gid: UInt32
    /// Process id (SO_PEERCRED).
    public var pid: Int32
    /// User name from the user database, when known.
    public var user: String?
    /// Names of the primary and supplementary groups, when known.
    public var groups: [String]?
    /// The systemd unit from `/proc/PID/cgroup`, when there is one.
    public var unit: String?
    /// `/proc/PID/exe`, when readable.
    public var executable: String?
    /// Ids of the primary and supplementary groups, when known.
    ///
    /// Used by policy `gid` matchers; daemon-internal, so it is not part of
    /// the wire shape (`Codable` leaves it out and decodes it as `nil`).
    public var groupIDs: [UInt32]? = nil

    private enum CodingKeys: String, CodingKey {
        case uid, gid, pid, user, groups, unit, executable
    }

    public init(
        uid: UInt32, gid: UInt32, pid: Int32, user: String? = nil, groups: [String]? = nil,
        unit: String? = nil, executable: String? = nil, groupIDs: [UInt32]? = nil
    ) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
        self.user = user
        self.groups = groups
        self.unit = unit
        self.executable = executable
        self.groupIDs = groupIDs
    }
}

/// A client's resolved authorization.
public struct AuthorizationState: Sendable, Hashable, Codable {
    /// The status.
    public var status: AuthorizationStatus
    /// The accuracy granted; present only when ``status`` is `authorized`.
    public var accuracy: AccuracyAuthorization?
    /// What decided it.
    public var decidedBy: DecisionOrigin
    /// The identity the daemon sees, when known.
    public var client: ClientIdentity?

    public init(
        status: AuthorizationStatus, accuracy: AccuracyAuthorization? = nil, decidedBy: DecisionOrigin,
        client: ClientIdentity? = nil
    ) {
        self.status = status
        self.accuracy = status == .authorized ? (accuracy ?? .full) : nil
        self.decidedBy = decidedBy
        self.client = client
    }

    /// Authorized with full accuracy by default: what an in-process source
    /// with no policy of its own reports.
    public static let alwaysAuthorized = AuthorizationState(status: .authorized, accuracy: .full, decidedBy: .default)
}
