import PetSpotPhotoCleaning
import PetSpotReport
import PhotoTestSupport
import Testing

@Suite struct HEICConversionTests {
    typealias S = PhotoSamples

    @Test func heicBecomesAnUprightJPEGWithoutMetadata() throws {
        // Stored 64×48 with a red top-left corner, marked to be shown turned 90° clockwise, with EXIF GPS.
        let heic = try S.heic(
            width: 64, height: 48, orientation: 6, exif: Array("Exif".utf8) + [0, 0] + S.tiff(orientation: 6))
        #expect(S.contains(heic, "PetCam"))
        let cleaned = try PhotoCleaner.clean(heic, format: .heic, width: 64, height: 48)
        #expect((cleaned.format, cleaned.width, cleaned.height) == (.jpeg, 48, 64))
        #expect(cleaned.bytes.starts(with: [0xFF, 0xD8, 0xFF]))
        for text in ["Exif", "PetCam", "MAKERNOTE", "ftyp"] { #expect(!S.contains(cleaned.bytes, text), "\(text)") }
        let pixels = try #require(S.decodeJPEG(cleaned.bytes))
        #expect(pixels.width == 48 && pixels.height == 64)
        #expect(pixels[40, 6].isRed)
        #expect(!pixels[6, 6].isRed && !pixels[6, 58].isRed && !pixels[40, 58].isRed)
    }

    /// 10 bits per channel (HDR phone photos): libheif reduces it to 8 for the JPEG.
    @Test func tenBitHEICBecomesAnEightBitJPEG() throws {
        let heic = try S.heic(width: 64, height: 48, tenBit: true)
        let cleaned = try PhotoCleaner.clean(heic, format: .heic, width: 64, height: 48)
        #expect((cleaned.format, cleaned.width, cleaned.height) == (.jpeg, 64, 48))
        let pixels = try #require(S.decodeJPEG(cleaned.bytes))
        #expect(pixels[6, 6].isRed && !pixels[40, 40].isRed)
    }

    /// Kiosk visits upload at the same time: each cleaning has its own
    /// libheif context and TurboJPEG instance.
    @Test func cleaningsRunConcurrently() async throws {
        let heic = try S.heic(width: 64, height: 48, orientation: 6)
        let jpeg = S.splice([S.exifSegment(orientation: 8)], into: S.jpeg(width: 48, height: 32))
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<12 {
                group.addTask {
                    let cleaned =
                        index % 2 == 0
                        ? try PhotoCleaner.clean(heic, format: .heic, width: 64, height: 48)
                        : try PhotoCleaner.clean(jpeg, format: .jpeg, width: 48, height: 32)
                    return (cleaned.width, cleaned.height)
                }
            }
            for try await size in group { #expect(size == (48, 64) || size == (32, 48)) }
        }
    }

    @Test func theHEICPixelBoundHoldsBeforeDecoding() throws {
        let heic = try S.heic(width: 64, height: 48)
        // The caller's size says little; the file's own size is checked too.
        #expect(throws: PhotoCleaningError.tooManyPixels(width: 64, height: 48, limit: 3000)) {
            try PhotoCleaner.clean(heic, format: .heic, width: 1, height: 1, maximumPixels: 3000)
        }
    }

    @Test func damagedHEICIsRefused() throws {
        let heic = try S.heic(width: 64, height: 48)
        for broken in [Array(heic.prefix(heic.count / 2)), Array(heic.prefix(40)), heic.map { $0 ^ 0x5A }] {
            #expect(throws: PhotoCleaningError.self) {
                try PhotoCleaner.clean(broken, format: .heic, width: 64, height: 48)
            }
        }
    }
}
