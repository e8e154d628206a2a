import FoundationEssentials
import Hummingbird
import PetSpotKioskConfiguration
import PetSpotReport

/// The GPS button's answer to the enhancement script (`Accept: application/json`):
/// what to put in the fields, or the alert or message to show.
struct GPSAnswer: Codable, Sendable {
    /// `filled`, `alert` or `failed`.
    var outcome: String
    var latitude: String?
    var longitude: String?
    var helper: String?
    var message: String?
    var title: String?

    init(_ outcome: GPSFillOutcome, language: KioskSettings.Language) {
        let t = KioskStrings.of(language)
        switch outcome {
        case .filled(let latitude, let longitude, _, let accuracy, let horizontalAccuracy):
            self.outcome = "filled"
            self.latitude = latitude
            self.longitude = longitude
            helper = PageBuilder.gpsHelper(t, accuracy: accuracy, horizontalAccuracy: horizontalAccuracy)
        case .permissionAlert(let permission):
            let alert = PageBuilder.alert(t, permission, settings: false)
            self.outcome = "alert"
            title = alert.title
            message = alert.message
        case .failed(let failure):
            self.outcome = "failed"
            message = PageBuilder.gpsMessage(t, failure)
        }
    }

    /// Over the visit's GPS budget: the message to show, nothing filled.
    init(busy message: String) {
        outcome = "failed"
        self.message = message
    }

    func response() -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
