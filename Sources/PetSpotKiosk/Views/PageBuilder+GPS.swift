import PetSpotLocation
import PetSpotReport

/// What the page shows of a GPS tap's answer: the helper under the filled coordinates, the message of a
/// failure, or the permission alert. The details page and the script's JSON answer (``GPSAnswer``) both
/// render it from the visit's ``GPSFillOutcome``, so an outcome has one set of words per language.
public struct GPSView: Sendable {
    /// The coordinates to put in the fields (filled only).
    public var latitude: String?
    public var longitude: String?
    /// "GPS capture successful (accuracy ±15 m)".
    public var helper: String?
    /// Why there is no position.
    public var error: String?
    public var alert = AlertView(open: false, settings: false, title: "", message: "")
}

extension PageBuilder {
    /// The page's words for `outcome` (`nil`: nothing to show); `settings` when "Go Settings" was tapped.
    public static func gps(_ outcome: GPSFillOutcome?, settings: Bool = false, _ t: KioskStrings) -> GPSView {
        var view = GPSView()
        switch outcome {
        case .filled(let latitude, let longitude, _, let accuracy, let horizontalAccuracy):
            view.latitude = latitude
            view.longitude = longitude
            view.helper = gpsHelper(t, accuracy: accuracy, horizontalAccuracy: horizontalAccuracy)
        case .permissionAlert(let permission):
            view.alert = alert(t, permission, settings: settings)
        case .failed(let failure):
            view.error = gpsMessage(t, failure)
        case nil:
            break
        }
        return view
    }

    /// "GPS capture successful (accuracy ±15 m)", "approximate" for reduced accuracy.
    public static func gpsHelper(
        _ t: KioskStrings, accuracy: AccuracyAuthorization, horizontalAccuracy: Double?
    ) -> String {
        var details: [String] = []
        if let horizontalAccuracy {
            details.append(t.gpsAccuracyFormat.filling(["n": String(Int(horizontalAccuracy.rounded()))]))
        }
        if accuracy == .reduced { details.append(t.gpsApproximate) }
        return details.isEmpty ? t.gpsSuccess : "\(t.gpsSuccess) (\(details.joined(separator: ", ")))"
    }

    /// The message for a failed GPS fill: ``GPSFailure/message`` in the page's language, or a plain one
    /// where that message names the protocol's reason (no use to the public).
    public static func gpsMessage(_ t: KioskStrings, _ failure: GPSFailure) -> String {
        switch failure.error {
        case nil, .locationUnknown?, .sourceUnavailable?, .daemonUnreachable?, .promptUnavailable?,
            .tooManyClients?:
            t.translate(failure.message)
        default:
            t.gpsOther
        }
    }

    /// The permission alert, in words for the public: the station cannot share its location; type the
    /// coordinates or ask staff. The account, uid and the administrator's command never reach a visitor's
    /// page (``LocationRefusal`` takes them to the log and `/admin/status`).
    public static func alert(_ t: KioskStrings, _ permission: PermissionAlert, settings: Bool) -> AlertView {
        AlertView(
            open: true, settings: settings, title: t.translate(permission.title),
            message: permission.status == .restricted ? t.restrictedMessage : t.deniedMessage)
    }
}
