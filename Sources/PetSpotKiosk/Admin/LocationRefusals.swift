import FoundationEssentials
import PetSpotLocation
import PetSpotReport
import Synchronization

/// A refusal of the GPS button (the daemon said `denied` or `restricted`),
/// in the administrator's terms: which account the daemon saw, what decided
/// it, and what to do about it. A visitor's page says none of this (it says
/// "type the coordinates or ask staff"); it goes to the log and to
/// `/admin/status`.
public struct LocationRefusal: Sendable, Hashable {
    /// When the button was refused.
    public var at: Date
    /// `denied` or `restricted`.
    public var status: AuthorizationStatus
    /// What decided it, when the daemon said.
    public var decidedBy: DecisionOrigin?
    /// The account: as the daemon saw it, or else this process's own (`seenByDaemon` false).
    public var user: String
    public var uid: UInt32
    /// Whether ``user`` and ``uid`` are the daemon's view (else the kiosk's own).
    public var seenByDaemon: Bool

    /// What to do to allow it: ``PermissionAlert/remedy``, the one text of the administrator's hint.
    public var remedy: String

    public init(_ permission: PermissionAlert, at: Date = Date()) {
        self.at = at
        status = permission.status
        decidedBy = permission.decidedBy
        uid = permission.uid
        user = permission.user
        seenByDaemon = permission.client != nil
        remedy = permission.remedy
    }

    /// What happened, one line: "location denied for user petspot-kiosk (uid 998), by a remembered decision".
    public var summary: String {
        let who = "user \(user) (uid \(uid))" + (seenByDaemon ? "" : " (this kiosk process; the daemon did not say)")
        let why: String
        switch decidedBy {
        case .rule?: why = "by a [[policy.rules]] entry"
        case .decision?: why = "by a remembered decision"
        case .default?: why = "by policy.default"
        case nil: why = "the daemon did not say why"
        }
        return "location \(status.rawValue) for \(who), \(why)"
    }
}

/// The GPS button's refusals since the kiosk started: how many, and the last one.
public final class LocationRefusals: Sendable {
    private let state = Mutex<(count: Int, last: LocationRefusal?)>((0, nil))

    public init() {}

    /// Notes `refusal`.
    public func record(_ refusal: LocationRefusal) {
        state.withLock {
            $0.count += 1
            $0.last = refusal
        }
    }

    /// The number of refusals and the last one.
    public var snapshot: (count: Int, last: LocationRefusal?) { state.withLock { $0 } }
}
