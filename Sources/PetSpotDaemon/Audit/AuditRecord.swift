#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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

    /// Creates a record stamped now.
    public init(
        method: String, client: ClientIdentity, status: AuthorizationStatus? = nil,
        accuracy: AccuracyAuthorization? = nil, decidedBy: String? = nil, source: FixSourceKind? = nil,
        fixAge: Double? = nil, reason: String? = nil, targetUid: UInt32? = nil,
        time: UTCTimestamp = UTCTimestamp(secondsSince1970: Date().timeIntervalSince1970)
    ) {
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
