import FoundationEssentials
import Hummingbird
import PetSpotReport

/// The GPS button's answer to the enhancement script (`Accept: application/json`): the page's
/// ``GPSView`` of the visit's ``GPSFillOutcome`` as JSON (what to put in the fields, or the alert or
/// message to show), so the script shows the words the page would.
struct GPSAnswer: Codable, Sendable {
    /// `filled`, `alert` or `failed`.
    var outcome: String
    var latitude: String?
    var longitude: String?
    var helper: String?
    var message: String?
    var title: String?

    init(_ view: GPSView) {
        if view.alert.open {
            outcome = "alert"
            title = view.alert.title
            message = view.alert.message
        } else if let latitude = view.latitude, let longitude = view.longitude {
            outcome = "filled"
            self.latitude = latitude
            self.longitude = longitude
            helper = view.helper
        } else {
            outcome = "failed"
            message = view.error
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
