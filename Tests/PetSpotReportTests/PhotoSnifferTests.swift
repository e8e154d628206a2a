import PetSpotReport
import Testing

@Suite("Photo sniffer")
struct PhotoSnifferTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var expected: PhotoInfo?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "JPEG baseline", bytes: PhotoFixtures.jpeg(width: 640, height: 480),
            expected: PhotoInfo(format: .jpeg, width: 640, height: 480)),
        Case(
            name: "JPEG progressive", bytes: PhotoFixtures.jpeg(width: 4032, height: 3024, frameMarker: 0xC2),
            expected: PhotoInfo(format: .jpeg, width: 4032, height: 3024)),
        Case(
            name: "PNG", bytes: PhotoFixtures.png(width: 800, height: 600),
            expected: PhotoInfo(format: .png, width: 800, height: 600)),
        Case(
            name: "GIF89a", bytes: PhotoFixtures.gif(width: 320, height: 200),
            expected: PhotoInfo(format: .gif, width: 320, height: 200)),
        Case(
            name: "GIF87a", bytes: PhotoFixtures.gif(width: 1, height: 1, version: "GIF87a"),
            expected: PhotoInfo(format: .gif, width: 1, height: 1)),
        Case(
            name: "WEBP VP8", bytes: PhotoFixtures.webpLossy(width: 1024, height: 768),
            expected: PhotoInfo(format: .webp, width: 1024, height: 768)),
        Case(
            name: "WEBP VP8L", bytes: PhotoFixtures.webpLossless(width: 300, height: 16384),
            expected: PhotoInfo(format: .webp, width: 300, height: 16384)),
        Case(
            name: "WEBP VP8X", bytes: PhotoFixtures.webpExtended(width: 5000, height: 20000),
            expected: PhotoInfo(format: .webp, width: 5000, height: 20000)),
        Case(
            name: "HEIC", bytes: PhotoFixtures.heic(sizes: [(4032, 3024)]),
            expected: PhotoInfo(format: .heic, width: 4032, height: 3024)),
        Case(
            name: "HEIC grid: largest ispe", bytes: PhotoFixtures.heic(sizes: [(512, 512), (4032, 3024), (320, 240)]),
            expected: PhotoInfo(format: .heic, width: 4032, height: 3024)),
        Case(
            name: "HEIF mif1 major", bytes: PhotoFixtures.heic(sizes: [(10, 20)], major: "mif1", compatible: ["heix"]),
            expected: PhotoInfo(format: .heic, width: 10, height: 20)),
        Case(
            name: "AVIF refused",
            bytes: PhotoFixtures.heic(sizes: [(10, 20)], major: "avif", compatible: ["mif1", "avif"]), expected: nil),
        Case(name: "HEIC without ispe", bytes: PhotoFixtures.heic(sizes: []), expected: nil),
        Case(name: "BMP", bytes: PhotoFixtures.bmp, expected: nil),
        Case(name: "text", bytes: Array("this is not a photo\n".utf8), expected: nil),
        Case(name: "empty", bytes: [], expected: nil),
        Case(
            name: "JPEG truncated before SOF", bytes: Array(PhotoFixtures.jpeg(width: 1, height: 1).prefix(30)),
            expected: nil),
        Case(name: "PNG truncated", bytes: Array(PhotoFixtures.png(width: 1, height: 1).prefix(18)), expected: nil),
        Case(name: "PNG zero width", bytes: PhotoFixtures.png(width: 0, height: 1), expected: nil),
        // Found by Fuzz/fuzz-photo: a `meta` box whose body is shorter than its 4 version/flag bytes trapped.
        Case(
            name: "HEIC meta shorter than its full-box header",
            bytes: PhotoFixtures.base64("AAAAGGZ0eXBvZWljAAAAAG1pZjEKAAAAAAAAAG1ldGEAAAA="), expected: nil),
        // Found by Fuzz/fuzz-photo: comparing the areas of two 32-bit ispe sizes overflowed Int.
        Case(
            name: "HEIC huge ispe sizes",
            bytes: PhotoFixtures.heic(sizes: [(0xFFFF_FFFF, 0xFFFF_FFFF), (0xFFFF_FFFE, 0xFFFF_FFFF)]),
            expected: PhotoInfo(format: .heic, width: 0xFFFF_FFFF, height: 0xFFFF_FFFF)),
        Case(
            name: "WEBP unknown chunk", bytes: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPABCD\u{0}\u{0}\u{0}\u{0}".utf8),
            expected: nil),
    ]

    @Test(arguments: cases)
    func inspect(_ sample: Case) {
        #expect(PhotoSniffer.inspect(sample.bytes) == sample.expected)
    }

    @Test(arguments: [
        (PhotoFormat.jpeg, "jpg", "image/jpeg"), (.png, "png", "image/png"), (.heic, "heic", "image/heic"),
        (.gif, "gif", "image/gif"), (.webp, "webp", "image/webp"),
    ])
    func names(format: PhotoFormat, fileExtension: String, mimeType: String) {
        #expect(format.fileExtension == fileExtension)
        #expect(format.mimeType == mimeType)
    }
}
