import NIOCore

/// The `multipart/form-data` body of `POST /announcements` (SPEC §8): the
/// `announcement` part (application/json), then the `photo` part (the
/// image bytes with its MIME type and file name).
///
/// The photo is not held here: ``head`` and ``tail`` go around its bytes,
/// which the uploader streams from the file.
package struct MultipartForm: Sendable, Hashable {
    /// The boundary (40 random hex digits after a fixed prefix).
    package let boundary: String
    /// Everything before the photo's bytes.
    package let head: [UInt8]
    /// Everything after them.
    package let tail: [UInt8]

    /// The `Content-Type` header value.
    package var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// - Parameters:
    ///   - announcement: the JSON bytes.
    ///   - photoFileName: sent as the part's `filename` (quotes and line breaks removed).
    ///   - photoMimeType: the part's `Content-Type`.
    ///   - boundary: fixed in tests; random by default.
    package init(announcement: [UInt8], photoFileName: String, photoMimeType: String, boundary: String? = nil) {
        let boundary =
            boundary ?? "petspot-"
            + (0..<20).map { _ in String(UInt8.random(in: 0...255), radix: 16) }
            .map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        self.boundary = boundary
        let name = Self.headerSafe(photoFileName)
        let mime = Self.headerSafe(photoMimeType)
        var head = Array("--\(boundary)\r\n".utf8)
        head += Array("Content-Disposition: form-data; name=\"announcement\"\r\n".utf8)
        head += Array("Content-Type: application/json\r\n\r\n".utf8)
        head += announcement
        head += Array("\r\n--\(boundary)\r\n".utf8)
        head += Array("Content-Disposition: form-data; name=\"photo\"; filename=\"\(name)\"\r\n".utf8)
        head += Array("Content-Type: \(mime)\r\n\r\n".utf8)
        self.head = head
        self.tail = Array("\r\n--\(boundary)--\r\n".utf8)
    }

    /// The whole body's length for a photo of `photoBytes` bytes.
    package func length(photoBytes: Int) -> Int { head.count + photoBytes + tail.count }

    private static func headerSafe(_ text: String) -> String {
        String(
            text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "\\" }.map(
                Character.init))
    }
}
