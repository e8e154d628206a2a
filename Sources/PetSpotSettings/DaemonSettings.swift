import PetSpotLocation

/// The `[daemon]` section.
///
/// - `socket`: string, default `"/run/petspot/locationd.sock"` (at most 107 bytes).
/// - `socket_mode`: string of octal digits, default `"0660"`.
/// - `socket_group`: string, optional (default: the daemon's group).
/// - `state_dir`: string, default `"/var/lib/petspot-locationd"`.
/// - `max_clients`: integer in 1...65536, default 256.
/// - `audit_log`: string, default `"<state_dir>/audit.jsonl"`.
/// - `audit_log_max_bytes`: integer ≥ 4096, default 10485760 (10 MiB); the
///   audit log is rotated when it would grow past this size.
/// - `audit_log_generations`: integer in 1...100, default 5: rotated audit files kept.
/// - `max_clients_per_uid`: integer in 1...max_clients, default a quarter of
///   `max_clients` (at least 1): connections one uid may hold at once.
///   Clients allowed by `[policy.agent]` are not counted against it, and
///   ``reservedSlots`` of `max_clients` are kept for them.
/// - `idle_timeout`: seconds, default 300: a connection with nothing in
///   flight, no watch and no agent role is closed after this long without a request.
///
/// Relative paths are resolved against the configuration file's directory.
public struct DaemonSettings: Sendable, Hashable {
    /// Default `socket`.
    public static let defaultSocket = DaemonSocket.defaultPath
    /// Default `socket_mode`.
    public static let defaultSocketMode: UInt32 = 0o660
    /// Default `state_dir`.
    public static let defaultStateDirectory = "/var/lib/petspot-locationd"
    /// Default `max_clients`.
    public static let defaultMaxClients = 256
    /// Default `audit_log_max_bytes` (10 MiB).
    public static let defaultAuditLogMaxBytes = 10 * 1024 * 1024
    /// Default `audit_log_generations`.
    public static let defaultAuditLogGenerations = 5
    /// Default `idle_timeout`.
    public static let defaultIdleTimeout: Duration = .seconds(300)

    /// Path of the listening Unix socket.
    public var socket: String
    /// Permission bits of the socket file.
    public var socketMode: UInt32
    /// Group owning the socket file, when set.
    public var socketGroup: String?
    /// Where decisions are remembered.
    public var stateDirectory: String
    /// Most clients connected at once.
    public var maxClients: Int
    /// Path of the JSON-lines audit log.
    public var auditLog: String
    /// Size at which the audit log is rotated.
    public var auditLogMaxBytes: Int
    /// Rotated audit files kept.
    public var auditLogGenerations = DaemonSettings.defaultAuditLogGenerations
    /// Connections one uid may hold at once; `nil`: a quarter of ``maxClients``.
    public var maxClientsPerUidSetting: Int?
    /// How long an idle connection is kept.
    public var idleTimeout = DaemonSettings.defaultIdleTimeout

    /// Connections one uid may hold at once (`max_clients_per_uid`).
    public var maxClientsPerUid: Int { maxClientsPerUidSetting ?? max(1, maxClients / 4) }
    /// Slots of `max_clients` only prompt agents may take: so a flood of
    /// other clients can never lock the kiosk's UI out.
    public var reservedSlots: Int { maxClients >= 8 ? max(1, min(8, maxClients / 16)) : 0 }

    /// Creates settings; `auditLog` defaults to `<stateDirectory>/audit.jsonl`.
    public init(
        socket: String = DaemonSettings.defaultSocket,
        socketMode: UInt32 = DaemonSettings.defaultSocketMode,
        socketGroup: String? = nil,
        stateDirectory: String = DaemonSettings.defaultStateDirectory,
        maxClients: Int = DaemonSettings.defaultMaxClients,
        auditLog: String? = nil,
        auditLogMaxBytes: Int = DaemonSettings.defaultAuditLogMaxBytes
    ) {
        self.socket = socket
        self.socketMode = socketMode
        self.socketGroup = socketGroup
        self.stateDirectory = stateDirectory
        self.maxClients = maxClients
        self.auditLog = auditLog ?? DaemonSettings.defaultAuditLog(stateDirectory: stateDirectory)
        self.auditLogMaxBytes = auditLogMaxBytes
    }

    /// The default `audit_log`, in the default `state_dir`.
    public static let defaultAuditLogPath = defaultAuditLog(stateDirectory: defaultStateDirectory)

    /// `<stateDirectory>/audit.jsonl`.
    public static func defaultAuditLog(stateDirectory: String) -> String {
        stateDirectory.hasSuffix("/") ? stateDirectory + "audit.jsonl" : stateDirectory + "/audit.jsonl"
    }

    /// ``socketMode`` as four octal digits (`"0660"`).
    public var socketModeString: String { Self.octal(socketMode) }

    /// A permission mode as four octal digits (`"0660"`).
    public static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
