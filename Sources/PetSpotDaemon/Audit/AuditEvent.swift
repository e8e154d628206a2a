/// The names of audit records that are not a wire method (records of a
/// request use the method's name, ``RPCMethod``): one place for each, so
/// readers of the log and the code agree (SPEC §6).
public enum AuditEvent: String, Sendable, CaseIterable {
    /// The remembered decisions file was unreadable or corrupt and moved aside.
    case decisionsQuarantined = "decisions.quarantined"
    /// A good decisions file ended the quarantine (at a reload).
    case decisionsRestored = "decisions.restored"
    /// A reload changed the policy (what changed in `reason`).
    case policyReloaded = "policy.reloaded"
    /// A reload moved a recently seen client's status or accuracy.
    case policyStatusChanged = "policy.statusChanged"
    /// A newer agent took over from this one.
    case agentReplaced = "agent.replaced"
    /// The agent left, or a reload no longer allows it.
    case agentRemoved = "agent.removed"
    /// The connection holding an allow-once grant closed.
    case allowOnceEnded = "authorization.allowOnceEnded"
    /// A watch ended (refused at a re-check, or closed).
    case watchEnded = "location.watchEnded"
    /// The log rotated and evicted its oldest generation.
    case auditRotated = "audit.rotated"
    /// The live source put the station beyond `moved_radius_m` for `moved_after` (``StationWatch``).
    case stationMoved = "station.moved"
    /// The live source put the station back within the radius for as long.
    case stationReturned = "station.returned"
}
