public import PetSpotLocation

/// One `[[policy.rules]]` entry: matchers and the status they grant.
///
/// A rule matches a client when every matcher it gives matches (a rule with
/// no matcher matches everyone; the configuration loader refuses such rules).
///
/// - `user`: the peer's user name (from its uid).
/// - `uid`: the peer's uid.
/// - `group`: the name of its primary or any supplementary group.
/// - `gid`: the id of its primary or any supplementary group.
/// - `unit`: its systemd unit, as the system manager placed it
///   (``SystemdUnit/parse(cgroup:)``; a user manager's units never match).
/// - `executable`: its `/proc/PID/exe`, read and pinned at accept. Such a
///   rule only takes away (``Policy/resolve(for:remembered:)``: a client it
///   matches never gets more than it would without it), because the
///   executable can be faked: a process may connect, hand the connection to
///   a child, and exec the named binary before the daemon accepts (issue 29
///   item 8). So an unknown executable (unreadable, or the process could not
///   be pinned) matches every rule naming one: taking away is what fails
///   closed (SPEC §3).
public struct PolicyRule: Sendable, Hashable {
    /// User name to match.
    public var user: String?
    /// User id to match.
    public var uid: UInt32?
    /// Group name to match (primary or supplementary).
    public var group: String?
    /// Group id to match (primary or supplementary).
    public var gid: UInt32?
    /// systemd unit to match.
    public var unit: String?
    /// Executable path to match.
    public var executable: String?
    /// The status granted to matching clients.
    public var status: AuthorizationStatus
    /// The accuracy granted with `authorized` (always set then; `nil` for other statuses).
    public var accuracy: AccuracyAuthorization?

    /// Creates a rule; `accuracy` is kept only with `authorized`, where it defaults to `full`.
    public init(
        user: String? = nil, uid: UInt32? = nil, group: String? = nil, gid: UInt32? = nil, unit: String? = nil,
        executable: String? = nil, status: AuthorizationStatus, accuracy: AccuracyAuthorization? = nil
    ) {
        self.user = user
        self.uid = uid
        self.group = group
        self.gid = gid
        self.unit = unit
        self.executable = executable
        self.status = status
        self.accuracy = status == .authorized ? (accuracy ?? .full) : nil
    }

    /// Whether the rule takes authorization away (`denied`, `restricted`).
    public var refuses: Bool { status == .denied || status == .restricted }

    /// Whether the rule gives at least one matcher.
    public var hasMatcher: Bool {
        user != nil || uid != nil || group != nil || gid != nil || unit != nil || executable != nil
    }

    /// Whether every matcher the rule gives matches `identity`.
    public func matches(_ identity: ClientIdentity) -> Bool {
        if let user, identity.user != user { return false }
        if let uid, identity.uid != uid { return false }
        if let group, !(identity.groups ?? []).contains(group) { return false }
        if let gid, identity.gid != gid, !(identity.groupIDs ?? []).contains(gid) { return false }
        if let unit, identity.unit != unit { return false }
        if let executable {
            guard let actual = identity.executable else { return true }
            guard actual == executable else { return false }
        }
        return true
    }
}
