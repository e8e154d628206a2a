import DeliveryTestSupport
import Foundation
@testable import PetSpotDelivery
import PetSpotReport
import Testing

@Suite("Delivery rules: verdicts, Retry-After, backoff, the multipart body, the announcement")
struct DeliveryRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static let verdicts: [(Int, String?, String, DeliveryVerdict)] = [
        (201, nil, #"{"id": "srv-7"}"#, .delivered(reference: "srv-7", note: nil)),
        (200, nil, #"{"id": 42}"#, .delivered(reference: "42", note: nil)),
        (202, nil, "", .delivered(reference: nil, note: nil)),
        (204, nil, "not json", .delivered(reference: nil, note: "HTTP 204; the answer had no JSON id")),
        (409, nil, #"{"id": "srv-1", "error": "duplicate"}"#, .delivered(reference: "srv-1", note: nil)),
        (201, nil, #"{"id": true}"#, .delivered(reference: nil, note: "HTTP 201; the answer had no JSON id")),
        (408, nil, "", .retry(after: nil, reason: "HTTP 408")),
        (429, "7", #"{"error": "slow down"}"#, .retry(after: 7, reason: "HTTP 429: slow down")),
        (429, "Fri, 15 Jan 2027 08:00:30 GMT", "", .retry(after: 30, reason: "HTTP 429")),
        (429, "-3", "", .retry(after: nil, reason: "HTTP 429")),
        (429, "999999999", "", .retry(after: 86_400, reason: "HTTP 429")),
        (500, nil, "Internal\u{0}Error\n", .retry(after: nil, reason: "HTTP 500: Internal Error")),
        (503, "120", "", .retry(after: 120, reason: "HTTP 503")),
        (599, nil, "", .retry(after: nil, reason: "HTTP 599")),
        (400, nil, #"{"message": "latitude missing"}"#, .rejected(reason: "HTTP 400: latitude missing")),
        (401, nil, #"{"error": {"code": 1}}"#, .rejected(reason: "HTTP 401")),
        (413, nil, "", .rejected(reason: "HTTP 413")),
        (422, nil, #"{"detail": "bad species"}"#, .rejected(reason: "HTTP 422: bad species")),
        (100, nil, "", .retry(after: nil, reason: "unexpected answer HTTP 100")),
    ]

    @Test(arguments: 0..<verdicts.count)
    func verdict(index: Int) {
        let (status, retryAfter, body, expected) = Self.verdicts[index]
        let verdict = DeliveryVerdict.classify(
            status: status, retryAfter: retryAfter, body: Array(body.utf8), now: Self.now)
        #expect(verdict == expected)
    }

    @Test func aTruncatedBodyStillDelivers() {
        let verdict = DeliveryVerdict.classify(
            status: 201, reason: "Created", retryAfter: nil, body: [],
            bodyProblem: "the answer's body was larger than 65536 bytes and was not read",
            now: Self.now)
        #expect(
            verdict
                == .delivered(
                    reference: nil,
                    note: "HTTP 201 Created; the answer's body was larger than 65536 bytes and was not read"))
    }

    @Test func backoffDoublesUpToTheCapWithJitter() {
        let backoff = RetryBackoff(initial: 2, cap: 300)
        #expect((1...10).map { backoff.ceiling(attempt: $0) } == [2, 4, 8, 16, 32, 64, 128, 256, 300, 300])
        #expect(backoff.ceiling(attempt: 10_000) == 300)
        var generator = SystemRandomNumberGenerator()
        for attempt in 1...12 {
            for _ in 0..<50 {
                let delay = backoff.delay(attempt: attempt, using: &generator)
                #expect(delay >= backoff.ceiling(attempt: attempt) / 2 && delay <= backoff.ceiling(attempt: attempt))
            }
        }
        let delays = Set((0..<20).map { _ in backoff.delay(attempt: 5) })
        #expect(delays.count > 1, "no jitter")
    }

    @Test func multipartBody() {
        let form = MultipartForm(
            announcement: Array(#"{"kind":"found"}"#.utf8), photoFileName: "a\"b\r\n.png", photoMimeType: "image/png",
            boundary: "B")
        let body = String(decoding: form.head + Array("PHOTO".utf8) + form.tail, as: UTF8.self)
        #expect(
            body
                == "--B\r\nContent-Disposition: form-data; name=\"announcement\"\r\nContent-Type: application/json\r\n\r\n"
                + "{\"kind\":\"found\"}\r\n--B\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"ab.png\"\r\n"
                + "Content-Type: image/png\r\n\r\nPHOTO\r\n--B--\r\n")
        #expect(form.contentType == "multipart/form-data; boundary=B")
        #expect(form.length(photoBytes: 5) == body.utf8.count)
        let random = MultipartForm(announcement: [], photoFileName: "x", photoMimeType: "image/png")
        #expect(random.boundary.count == 48 && random.boundary.hasPrefix("petspot-"))
    }

    /// SPEC §8 names exactly these keys; the caregiver phone and address never appear (FR-016).
    @Test func announcementHasExactlyTheSpecKeys() throws {
        let report = ReportFixtures.report(
            id: UUID(uuidString: "6F1C1A8E-0D0B-4C55-9F43-2A8D2C9A7B10")!, createdAt: Self.now, photoBytes: 10)
        let data = try FoundPetAnnouncement(report).jsonData()
        let text = String(decoding: data, as: UTF8.self)
        #expect(
            text
                == #"{"age":3,"chipNumber":"123456789012345","contact":{"email":"finder@example.com","phone":"600123456","reward":"50 PLN"},"#
                + #""createdAt":"2027-01-15T08:00:00Z","date":"2026-01-30","description":"Brown collar, \"friendly\" / shy","#
                + #""gender":"female","id":"6f1c1a8e-0d0b-4c55-9f43-2a8d2c9a7b10","kind":"found","latitude":52.2297,"#
                + #""longitude":21.0122,"petName":"Rex","race":"Beagle","species":"dog"}"#)
        #expect(!text.contains(ReportFixtures.caregiverPhone) && !text.contains("Kwiatowa"))
        let minimal = ReportFixtures.report(createdAt: Self.now, photoBytes: 1, petName: nil)
        var details = minimal.details
        details.race = nil
        details.age = nil
        details.chipNumber = nil
        details.description = nil
        var bare = minimal
        bare.details = details
        bare.contact.reward = nil
        let object = try #require(
            try JSONSerialization.jsonObject(with: FoundPetAnnouncement(bare).jsonData()) as? [String: Any])
        #expect(
            Set(object.keys) == [
                "kind", "id", "createdAt", "date", "species", "gender", "latitude", "longitude", "contact",
            ])
        #expect(Set((object["contact"] as? [String: Any] ?? [:]).keys) == ["phone", "email"])
    }

    @Test func sameOriginRedirectsOnly() {
        let base = "https://api.example/v1/announcements"
        #expect(
            AnnouncementUploader.sameOrigin("/v2/announcements", as: base) == "https://api.example/v2/announcements")
        #expect(AnnouncementUploader.sameOrigin("https://API.example:443/x", as: base) != nil)
        #expect(AnnouncementUploader.sameOrigin("https://evil.example/v1/announcements", as: base) == nil)
        #expect(AnnouncementUploader.sameOrigin("http://api.example/v1/announcements", as: base) == nil)
        #expect(AnnouncementUploader.sameOrigin("https://api.example:8443/v1", as: base) == nil)
    }

    @Test func bearerTokenFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/token"
        try "  abc.DEF-123_~+/=\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try BearerToken.load(from: path) == "abc.DEF-123_~+/=")
        for bad in ["", "\n", "two words", "line1\nline2"] {
            try bad.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: DeliveryError.self) { try BearerToken.load(from: path) }
        }
        #expect(throws: DeliveryError.self) { try BearerToken.load(from: directory + "/missing") }
    }
}
