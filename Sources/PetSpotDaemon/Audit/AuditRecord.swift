import Glibc
import FoundationEssentials
import PetSpotJSON
import PetSpotLocation

/// One line of the audit log (SPEC §6): who asked what, and what was granted.
///
/// Never holds coordinates. Fields, as JSON (absent when unknown):
/// - `time`: ISO 8601 UTC.
/// - `method`: `location.get`, `location.watch`, `location.watchEnded`,
///   `authorization.request`, `authorization.reset`.
/// - `client`: `uid`, `gid`, `pid`, `user`, `groups`, `unit`, `executable`.
/// - `status`, `accuracy`: the authorization granted (or found).
/// - `decidedBy`: `rule`, `decision`, `default`, `agent`, `allowOnce`, `prompt`.
/// - `source`, `fixAge`: where the answered fix came from and its age (s).
/// - `reason`: the error reason when the call failed.
/// - `targetUid`: the uid an `authorization.reset` cleared.
/// - `repeated`: on a summary of identical refusals, how many more there
///   were since the one recorded before (``AuditLog`` rate-limits them).
public struct AuditRecord: Sendable, Hashable, Codable {
    public var time: String
    public var method: String
    public var client: ClientIdentity
    public var status: AuthorizationStatus?
    public var accuracy: AccuracyAuthorization?
    public var decidedBy: String?
    public var source: FixSourceKind?
    public var fixAge: Double?
    public var reason: String?
    public var targetUid: UInt32?
    public var repeated: Int?

    /// Creates a record stamped now.
    public init(
        method: String, client: ClientIdentity, status: AuthorizationStatus? = nil,
        accuracy: AccuracyAuthorization? = nil, decidedBy: String? = nil, source: FixSourceKind? = nil,
        fixAge: Double? = nil, reason: String? = nil, targetUid: UInt32? = nil, repeated: Int? = nil,
        time: UTCTimestamp = UTCTimestamp(secondsSince1970: Date().timeIntervalSince1970)
    ) {
        self.repeated = repeated
        self.time = time.iso8601
        self.method = method
        self.client = client
        self.status = status
        self.accuracy = status == .authorized ? accuracy : nil
        self.decidedBy = decidedBy
        self.source = source
        self.fixAge = fixAge.map { ($0 * 1000).rounded() / 1000 }
        self.reason = reason
        self.targetUid = targetUid
    }

    /// A record of `state` for `method`.
    public init(method: String, state: AuthorizationState, client: ClientIdentity, reason: String? = nil) {
        self.init(
            method: method, client: client, status: state.status, accuracy: state.accuracy,
            decidedBy: state.decidedBy.rawValue, reason: reason)
    }
}

extension AuditRecord {
    /// The record as one JSON line (newline included): sorted keys, absent
    /// values omitted, the same bytes `JSONEncoder` with `.sortedKeys` and
    /// `.withoutEscapingSlashes` writes, so readers decode it as
    /// ``AuditRecord``. Written with the daemon's byte serializer: every
    /// location answer is recorded, and Foundation's encoder cost more than
    /// the answer (docs/PERFORMANCE.md).
    public var jsonLine: [UInt8] { jsonLine(client: Self.clientObject(client)) }

    /// ``jsonLine`` with the `client` member already serialized
    /// (``clientObject(_:)``): a connection's identity never changes, so
    /// its session serializes it once for all its records
    /// (``ClientSession/auditClient``).
    public func jsonLine(client: [UInt8]) -> [UInt8] {
        // Members in ascending key order (JSONObjectWriter).
        var line = JSONObjectWriter(capacity: 200 + client.count)
        line.add("accuracy", string: accuracy?.rawValue)
        line.add("client", serialized: client)
        line.add("decidedBy", string: decidedBy)
        line.add("fixAge", number: fixAge.flatMap { $0.isFinite ? $0 : nil })
        line.add("method", string: method)
        line.add("reason", string: reason)
        line.add("repeated", number: repeated.map(Double.init))
        line.add("source", string: source?.rawValue)
        line.add("status", string: status?.rawValue)
        line.add("targetUid", number: targetUid.map(Double.init))
        line.add("time", string: time)
        line.finish()
        var bytes = line.bytes
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// The `client` member's value for `client`, serialized.
    public static func clientObject(_ client: ClientIdentity) -> [UInt8] {
        var object = JSONObjectWriter(capacity: 160)
        object.add("executable", string: client.executable)
        object.add("gid", number: Double(client.gid))
        object.add("groups", client.groups.map { .array($0.map(JSONValue.string)) })
        object.add("pid", number: Double(client.pid))
        object.add("uid", number: Double(client.uid))
        object.add("unit", string: client.unit)
        object.add("user", string: client.user)
        object.finish()
        return object.bytes
    }
}

extension ClientIdentity {
    /// The daemon itself, as the actor of the records it makes on its own
    /// (a reload, a quarantine, a rotation, a station's move).
    public static var daemonProcess: ClientIdentity { ClientIdentity(uid: getuid(), gid: getgid(), pid: getpid()) }
}
