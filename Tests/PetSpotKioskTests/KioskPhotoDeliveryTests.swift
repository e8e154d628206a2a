import DeliveryTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Metrics
import PetSpotDelivery
import PetSpotKiosk
import PetSpotOutbox
import PhotoTestSupport
import Testing
import TestSupport

/// SPEC §7 "Photos leave without metadata", end to end: a camera JPEG taken
/// at the finder's home (EXIF GPS, XMP GPS, a maker note, an embedded
/// thumbnail, IPTC, a comment; turned by EXIF orientation 6) goes through the
/// kiosk's upload, the report outbox and the sender to a real HTTP receiver
/// on loopback. What the backend receives holds none of it, and is upright.
@Suite("Kiosk photo delivery without metadata")
struct KioskPhotoDeliveryTests {
    static let token = "photo-test-token"

    @Test func aPhotoWithEXIFGPSReachesTheBackendWithoutIt() async throws {
        let scratch = try TemporaryDirectory(prefix: "kiosk-photo-delivery")
        defer { scratch.remove() }
        let receiver = try HTTPReceiver(token: Self.token)
        defer { receiver.remove() }
        try (Self.token + "\n").write(toFile: scratch.file("token"), atomically: true, encoding: .utf8)
        let outbox = try Outbox.open(directory: scratch.file("outbox"))

        let thumbnail = PhotoSamples.jpeg(width: 16, height: 16)
        let original = PhotoSamples.splice(
            [
                PhotoSamples.exifSegment(orientation: 6, thumbnail: thumbnail), PhotoSamples.xmpSegment,
                PhotoSamples.iptcSegment, PhotoSamples.commentSegment,
            ], into: PhotoSamples.jpeg(width: 64, height: 48))
        let leaks = ["Exif", "http://ns.adobe.com/xap", "Photoshop 3.0", "Kwiatowa", "Jan Kowalski"]
        for leak in leaks { #expect(PhotoSamples.contains(original, leak), "the sample carries \(leak)") }

        let harness = try await KioskHarness(reports: outbox)
        try await harness.run { client in
            let browser = Browser(client)
            try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            let upload = try await browser.upload("/report/photo", fileName: "IMG_0001.jpg", data: Data(original))
            #expect(upload.status == .seeOther)
            let card = try await browser.get("/report/photo")
            #expect(card.html.contains("48 × 64 px"), "the card shows the photo upright")
            try await browser.post("/report/photo/continue")
            try await browser.post("/report/details", [("action", "continue")] + KioskFlowTests.validDetails)
            let submitted = try await browser.post(
                "/report/contact",
                [("action", "submit"), ("phone", "+48 600 123 456"), ("email", "anna@example.com")])
            #expect(submitted.headers[.location] == "/report/thanks")
        }

        var settings = DeliverySettings(endpoint: receiver.endpoint, tokenFile: scratch.file("token"))
        settings.pollInterval = .milliseconds(50)
        var logger = Logger(label: "test.delivery")
        logger.logLevel = .critical
        let sender = DeliverySender(
            outbox: outbox, settings: settings, logger: logger, clock: SystemDeliveryClock(),
            metrics: NOOPMetricsHandler.instance)
        #expect(try await sender.drain(within: 120).undelivered == 0)

        let key = try #require(receiver.storedKeys().first)
        let delivered = [UInt8](try #require(receiver.stored(key)).photo)
        for leak in leaks { #expect(!PhotoSamples.contains(delivered, leak), "the delivered photo holds \(leak)") }
        let markers = PhotoSamples.markers(delivered)
        #expect(!markers.contains(0xE1) && !markers.contains(0xED) && !markers.contains(0xFE), "markers \(markers)")
        let size = try #require(PhotoSamples.jpegSize(delivered))
        #expect(size.width == 48 && size.height == 64, "orientation applied to the pixels: \(size)")
    }
}
