import FoundationEssentials
import PetSpotPOSIX
import PetSpotLocation

/// The "Use GPS" button of the description step, over any ``LocationService``
/// (the daemon client in production, the mock in tests).
///
/// One tap is one `location.get`: the daemon checks the authorization when
/// it answers, and answers `notDetermined`, `denied` or `restricted` itself,
/// so the status is not asked first. Only a `notDetermined` answer leads to
/// `authorization.request` (the iOS behaviour: ask when never decided) and,
/// when that grants, a second `location.get`. A fix is validated and both
/// coordinates formatted with ``decimals`` decimals; denied or restricted
/// gives a ``PermissionAlert``; any other failure a message, the fields
/// left alone.
///
/// ```swift
/// let outcome = await GPSFillAction(service: service).perform()
/// form.apply(outcome)
/// ```
public struct GPSFillAction: Sendable {
    /// Decimals written into the fields (6 ≈ 0.1 m).
    public static let defaultDecimals = 6

    /// Where positions come from.
    public var service: any LocationService
    /// The one-shot request made when authorized.
    public var request: LocationRequest
    /// The accuracy asked for when prompting.
    public var accuracy: AccuracyAuthorization
    /// Decimals in the filled texts.
    public var decimals: Int

    /// Creates the action.
    /// - Parameters:
    ///   - service: the location service.
    ///   - request: the fix request (default: `location.get` defaults).
    ///   - accuracy: the accuracy to ask for on a prompt (default full).
    ///   - decimals: decimals in the filled fields (default 6).
    public init(
        service: any LocationService, request: LocationRequest = LocationRequest(),
        accuracy: AccuracyAuthorization = .full, decimals: Int = GPSFillAction.defaultDecimals
    ) {
        self.service = service
        self.request = request
        self.accuracy = accuracy
        self.decimals = decimals
    }

    /// Runs the action once. Never throws: every ending is a ``GPSFillOutcome``.
    public func perform() async -> GPSFillOutcome {
        do throws(LocationError) {
            let fix: LocationFix
            do throws(LocationError) {
                fix = try await service.location(request)
            } catch {
                guard error == .notDetermined else { throw error }
                let state = try await service.requestAuthorization(accuracy: accuracy)
                switch state.status {
                case .authorized:
                    fix = try await service.location(request)
                case .denied, .restricted:
                    return .permissionAlert(
                        PermissionAlert(status: state.status, client: state.client, decidedBy: state.decidedBy))
                case .notDetermined:
                    return .failed(GPSFailure(.notDetermined))
                }
            }
            return Self.outcome(for: fix, decimals: decimals)
        } catch {
            switch error {
            case .denied: return .permissionAlert(PermissionAlert(status: .denied, client: nil))
            case .restricted: return .permissionAlert(PermissionAlert(status: .restricted, client: nil))
            default: return .failed(GPSFailure(error))
            }
        }
    }

    /// The outcome for a fix: filled after range validation, or a failure.
    public static func outcome(for fix: LocationFix, decimals: Int = defaultDecimals) -> GPSFillOutcome {
        let coordinate = fix.coordinate
        guard coordinate.isValid else { return .failed(.invalidCoordinate) }
        return .filled(
            latitude: format(coordinate.latitude, decimals: decimals),
            longitude: format(coordinate.longitude, decimals: decimals),
            coordinate: coordinate, accuracy: fix.accuracy, horizontalAccuracy: fix.horizontalAccuracy)
    }

    /// `value` with exactly `decimals` decimals and `.` as the separator, never `-0.000000`.
    public static func format(_ value: Double, decimals: Int = defaultDecimals) -> String {
        let places = max(0, min(decimals, 12))
        let text = String(cFormat: "%.\(places)f", value)
        if text.hasPrefix("-"), text.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) {
            return String(text.dropFirst())
        }
        return text
    }
}

extension DescriptionForm {
    /// Puts a filled outcome's texts into latitude and longitude; any other outcome changes nothing.
    public mutating func apply(_ outcome: GPSFillOutcome) {
        guard case .filled(let latitude, let longitude, _, _, _) = outcome else { return }
        latitudeText = latitude
        longitudeText = longitude
    }
}
