import PetSpotPhotoCleaning
import PetSpotReport
import PhotoTestSupport
import Testing

@Suite struct JPEGCleaningTests {
    typealias S = PhotoSamples

    /// A camera-like JPEG: EXIF (GPS, make, maker note, an embedded thumbnail), XMP, IPTC, a comment.
    static func cameraJPEG(width: Int = 48, height: Int = 32, orientation: Int? = 1) -> [UInt8] {
        let thumbnail = S.jpeg(width: 16, height: 8)
        return S.splice(
            [
                S.exifSegment(orientation: orientation, thumbnail: thumbnail), S.xmpSegment, S.iptcSegment,
                S.commentSegment,
            ], into: S.jpeg(width: width, height: height))
    }

    @Test func metadataIsGoneAndTheImageStillDecodes() throws {
        let input = Self.cameraJPEG()
        #expect(S.contains(input, "Exif") && S.contains(input, "http://ns.adobe.com/xap"))
        let cleaned = try PhotoCleaner.clean(input, format: .jpeg, width: 48, height: 32)
        let markers = S.markers(cleaned.bytes)
        #expect(!markers.contains(0xE1) && !markers.contains(0xED) && !markers.contains(0xFE), "\(markers)")
        #expect(markers.allSatisfy { !(0xE1...0xEF).contains($0) })
        for text in ["Exif", "http://ns.adobe.com/xap", "Photoshop", "PetCam", "MAKERNOTE", "Kowalski", "Kwiatowa"] {
            #expect(!S.contains(cleaned.bytes, text), "\(text) survived")
        }
        // The embedded thumbnail was a whole JPEG: only one SOI remains.
        #expect(zip(cleaned.bytes, cleaned.bytes.dropFirst()).filter { $0 == (0xFF, 0xD8) }.count == 1)
        #expect((cleaned.format, cleaned.width, cleaned.height) == (.jpeg, 48, 32))
        let size = try #require(S.jpegSize(cleaned.bytes))
        #expect(size == (48, 32))
        let pixels = try #require(S.decodeJPEG(cleaned.bytes))
        #expect(pixels[4, 4].isRed && !pixels[40, 24].isRed)
    }

    @Test func orientation6TurnsThePixelsAndSwapsTheSides() throws {
        let input = Self.cameraJPEG(width: 48, height: 32, orientation: 6)
        let cleaned = try PhotoCleaner.clean(input, format: .jpeg, width: 48, height: 32)
        #expect((cleaned.format, cleaned.width, cleaned.height) == (.jpeg, 32, 48))
        let pixels = try #require(S.decodeJPEG(cleaned.bytes))
        #expect(pixels.width == 32 && pixels.height == 48)
        // Turned 90° clockwise: the stored top-left corner is now top-right.
        #expect(pixels[28, 4].isRed)
        #expect(!pixels[4, 4].isRed && !pixels[4, 44].isRed && !pixels[28, 44].isRed)
        #expect(!S.contains(cleaned.bytes, "Exif"))
    }

    /// Where the stored top-left red corner lands for each orientation (48×32 stored).
    @Test(arguments: [
        (1, 48, 32, (4, 4)), (2, 48, 32, (44, 4)), (3, 48, 32, (44, 28)), (4, 48, 32, (4, 28)),
        (5, 32, 48, (4, 4)), (6, 32, 48, (28, 4)), (7, 32, 48, (28, 44)), (8, 32, 48, (4, 44)),
    ])
    func everyOrientation(orientation: Int, width: Int, height: Int, red: (Int, Int)) throws {
        let input = Self.cameraJPEG(orientation: orientation)
        let cleaned = try PhotoCleaner.clean(input, format: .jpeg, width: 48, height: 32)
        #expect(cleaned.width == width && cleaned.height == height)
        let pixels = try #require(S.decodeJPEG(cleaned.bytes))
        #expect(pixels[red.0, red.1].isRed, "orientation \(orientation)")
        let redCount = [(4, 4), (width - 4, 4), (4, height - 4), (width - 4, height - 4)].filter {
            pixels[$0.0, $0.1].isRed
        }
        #expect(redCount.count == 1)
    }

    /// A size that is not a whole number of MCUs: the partial blocks that
    /// cannot move are trimmed (here 30 rows → 16 with 4:2:0's 16-pixel MCU).
    @Test func oddSizesAreTrimmedToWholeBlocks() throws {
        let input = S.splice(
            [S.exifSegment(orientation: 6)], into: S.jpeg(width: 50, height: 30, subsampling420: true))
        let cleaned = try PhotoCleaner.clean(input, format: .jpeg, width: 50, height: 30)
        #expect((cleaned.format, cleaned.width, cleaned.height) == (.jpeg, 16, 50))
        let pixels = try #require(S.decodeJPEG(cleaned.bytes))
        #expect(pixels.width == 16 && pixels.height == 50 && pixels[12, 4].isRed)
        // Upright without turning: nothing is trimmed.
        let upright = try PhotoCleaner.clean(
            S.jpeg(width: 50, height: 30, subsampling420: true), format: .jpeg, width: 50, height: 30)
        #expect((upright.format, upright.width, upright.height) == (.jpeg, 50, 30))
    }

    @Test func theICCProfileIsKept() throws {
        let profile = Array("fake ICC profile bytes".utf8)
        let icc = S.segment(0xE2, Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile)
        let input = S.splice([S.exifSegment(orientation: 1), icc], into: S.jpeg(width: 16, height: 16))
        let cleaned = try PhotoCleaner.clean(input, format: .jpeg, width: 16, height: 16)
        #expect(S.contains(cleaned.bytes, "ICC_PROFILE") && S.contains(cleaned.bytes, "fake ICC profile bytes"))
        #expect(S.markers(cleaned.bytes).prefix(2) == [0xE0, 0xE2])
        #expect(S.jpegSize(cleaned.bytes) != nil)
        // An incomplete profile (chunk 1 of 2) is dropped rather than kept broken.
        let partial = S.segment(0xE2, Array("ICC_PROFILE".utf8) + [0, 1, 2] + profile)
        let dropped = try PhotoCleaner.clean(
            S.splice([partial], into: S.jpeg(width: 16, height: 16)), format: .jpeg, width: 16, height: 16)
        #expect(!S.contains(dropped.bytes, "ICC_PROFILE"))
    }

    @Test func dataAfterTheImageIsDropped() throws {
        let input = S.jpeg(width: 16, height: 16) + S.jpeg(width: 8, height: 8) + Array("trailer GPS 52.2".utf8)
        let cleaned = try PhotoCleaner.clean(input, format: .jpeg, width: 16, height: 16)
        #expect(!S.contains(cleaned.bytes, "trailer"))
        #expect(cleaned.bytes.suffix(2) == [0xFF, 0xD9])
    }

    @Test func tooManyPixelsIsRefusedBeforeTransforming() throws {
        let input = S.jpeg(width: 64, height: 64)
        #expect(throws: PhotoCleaningError.tooManyPixels(width: 64, height: 64, limit: 4000)) {
            try PhotoCleaner.clean(input, format: .jpeg, width: 64, height: 64, maximumPixels: 4000)
        }
        // The frame header counts, not only what the caller says.
        #expect(throws: PhotoCleaningError.tooManyPixels(width: 64, height: 64, limit: 4000)) {
            try PhotoCleaner.clean(input, format: .jpeg, width: 1, height: 1, maximumPixels: 4000)
        }
    }
}
