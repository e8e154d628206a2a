import Glibc
import PetSpotLocation

/// What the "Use GPS" action ended with: the one shape a GPS tap's answer
/// has from the client's reply to the page (the kiosk keeps it in the visit
/// and renders it; the console prints it). Its English texts are here once
/// (``PermissionAlert``, ``GPSFailure/message``); the kiosk translates them.
public enum GPSFillOutcome: Sendable, Hashable {
    /// Both fields were filled: the texts to put in them, the fix's coordinate,
    /// the accuracy granted and the fix's horizontal accuracy in metres (when known).
    case filled(
        latitude: String, longitude: String, coordinate: Coordinate, accuracy: AccuracyAuthorization,
        horizontalAccuracy: Double?)
    /// Permission is denied or restricted: show ``PermissionAlert`` (Cancel, and a way to the settings).
    case permissionAlert(PermissionAlert)
    /// No position: show ``GPSFailure/message``; the fields stay as they were.
    case failed(GPSFailure)

    /// Whether the fields were filled.
    public var isFilled: Bool {
        if case .filled = self { return true }
        return false
    }
}

/// The alert shown when location permission is denied or restricted.
///
/// It has two buttons: ``cancelTitle`` and ``settingsTitle``. On a desktop
/// the second opens the system's location settings; on a kiosk, where the
/// user cannot change anything, ``whomToAsk`` says who can. The
/// administrator's part of it, ``remedy``, is the one text of that hint:
/// the kiosk's log and `/admin/status` show it too.
///
/// A refusal read from `location.get` (the one request a GPS tap makes)
/// names neither the account nor what decided it: then ``user`` and ``uid``
/// are this process's own (the account the daemon sees, since it reads the
/// socket's peer credentials) and ``decidedBy`` is `nil`.
public struct PermissionAlert: Sendable, Hashable {
    /// `denied` or `restricted`.
    public var status: AuthorizationStatus
    /// The identity the daemon sees for this program, when it said.
    public var client: ClientIdentity?
    /// The alert's title.
    public var title: String
    /// The alert's text.
    public var message: String
    /// "Cancel".
    public var cancelTitle: String
    /// "Settings".
    public var settingsTitle: String

    /// What decided the status, when the daemon said (a rule, a remembered decision, the default).
    public var decidedBy: DecisionOrigin?

    /// The account refused: the daemon's view when it said, else this process's own.
    public var uid: UInt32 { client?.uid ?? getuid() }
    /// The account's name (its uid when it has none).
    public var user: String { client?.user ?? Self.userName(uid) ?? String(uid) }

    /// The command an administrator runs to forget a remembered decision for `user`.
    public static func resetCommand(user: String) -> String {
        "sudo petspot-location authorization reset --user \(user)"
    }

    /// Builds the alert for `status` (`denied` or `restricted`) and the daemon's view of the client.
    public init(status: AuthorizationStatus, client: ClientIdentity?, decidedBy: DecisionOrigin? = nil) {
        self.status = status
        self.client = client
        self.decidedBy = decidedBy
        self.cancelTitle = "Cancel"
        self.settingsTitle = "Settings"
        switch status {
        case .restricted:
            title = "Location is restricted"
            message = "An administrator does not allow this program to use the location. Enter the coordinates by hand."
        default:
            title = "Location access denied"
            message =
                "This program is not allowed to use the location. Allow it in the settings, or enter the coordinates by hand."
        }
    }

    /// What the administrator does to allow location for ``user``: a `[[policy.rules]]` entry when a rule
    /// or the default decided (or it is restricted), the reset command for a remembered decision, and
    /// both when the daemon did not say which.
    public var remedy: String {
        let rule =
            "add a [[policy.rules]] entry for user \(user) (status = \"authorized\") to "
            + "/etc/petspot/locationd.toml, then run: sudo systemctl reload petspot-locationd"
        let reset = "run: \(Self.resetCommand(user: user)), then allow location when the station asks"
        if status == .restricted || decidedBy == .rule || decidedBy == .default { return rule }
        if decidedBy == .decision { return reset }
        return "\(reset) (a remembered decision); or, if a rule or policy.default decided it, \(rule)"
    }

    /// Who can allow location for this station, and how.
    public var whomToAsk: String {
        var parts = ["user \(user)", "uid \(uid)"]
        if let unit = client?.unit { parts.append("unit \(unit)") }
        return "Ask the station's administrator to allow location for \(parts.joined(separator: ", ")). "
            + "To allow it: \(remedy)."
    }

    private static func userName(_ uid: uid_t) -> String? {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }
}

/// Why "Use GPS" found no position.
public struct GPSFailure: Sendable, Hashable {
    /// The underlying error.
    public var error: LocationError?
    /// The message the form shows.
    public var message: String

    public init(error: LocationError?, message: String) {
        self.error = error
        self.message = message
    }

    /// The message for a location error.
    public init(_ error: LocationError) {
        let message: String
        switch error {
        case .locationUnknown:
            message = "Your location could not be determined. Try again, or enter the coordinates by hand."
        case .sourceUnavailable:
            message = "The GPS receiver is not available right now. Enter the coordinates by hand."
        case .daemonUnreachable:
            message = "The location service is not running. Enter the coordinates by hand."
        case .promptUnavailable:
            message = "Nobody answered the location permission request. Try again, or enter the coordinates by hand."
        case .tooManyClients:
            message = "The location service is busy. Try again in a moment, or enter the coordinates by hand."
        default:
            message = "Location is not available (\(error.reason)). Enter the coordinates by hand."
        }
        self.init(error: error, message: message)
    }

    /// A position outside the valid ranges arrived and was refused.
    public static let invalidCoordinate = GPSFailure(
        error: nil, message: "The position received was out of range. Enter the coordinates by hand.")
}
