import PetSpotPhotoCleaning
import PetSpotReport
import PhotoTestSupport
import Testing

/// Damaged and hostile photos: a precise error or a clean result, never a
/// trap, an out-of-bounds read or a hang.
@Suite struct HostileInputTests {
    typealias S = PhotoSamples

    /// Every prefix of `bytes` (and garbage after it) cleans or throws.
    private func survivesCuts(_ bytes: [UInt8], as format: PhotoFormat, step: Int = 1) {
        for length in stride(from: 1, through: bytes.count, by: step) {
            for tail in [[], [UInt8](repeating: 0xFF, count: 9), Array("garbage".utf8)] as [[UInt8]] {
                let input = Array(bytes.prefix(length)) + tail
                do {
                    let cleaned = try PhotoCleaner.clean(input, format: format, width: 4, height: 2)
                    #expect(!S.contains(cleaned.bytes, "PetCam") && !S.contains(cleaned.bytes, "Kowalski"))
                } catch {
                    #expect(!error.description.isEmpty)
                }
            }
        }
    }

    @Test func truncatedAndPaddedJPEG() {
        let jpeg = JPEGCleaningTests.cameraJPEG(width: 16, height: 16)
        survivesCuts(jpeg, as: .jpeg, step: 7)
    }

    @Test func truncatedAndPaddedPNGWEBPGIF() {
        survivesCuts(S.png(extra: [S.pngChunk("tEXt", Array("a\0Kowalski".utf8))]), as: .png)
        survivesCuts(
            ChunkFormatCleaningTests.riff([
                ChunkFormatCleaningTests.webpChunk("VP8L", [0x2F, 0, 0, 0, 0]),
                ChunkFormatCleaningTests.webpChunk("XMP ", Array("Kowalski".utf8)),
            ]), as: .webp)
        survivesCuts(
            ChunkFormatCleaningTests.gifHead + [0x21, 0xFE, 8] + Array("Kowalski".utf8) + [0]
                + ChunkFormatCleaningTests.gifImage + [0x3B], as: .gif)
    }

    @Test func lyingLengths() {
        // A JPEG APP1 whose length runs past the end.
        let jpeg = S.splice(
            [[0xFF, 0xE1, 0xFF, 0xF0] + Array("Exif".utf8) + [0, 0]], into: S.jpeg(width: 8, height: 8))
        #expect(throws: PhotoCleaningError.self) {
            try PhotoCleaner.clean(Array(jpeg.prefix(40)), format: .jpeg, width: 8, height: 8)
        }
        // A PNG chunk claiming 2 GiB.
        let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + S.be32(0x7FFF_FFFF) + Array("IHDR".utf8) + [0, 0]
        #expect(throws: PhotoCleaningError.self) { try PhotoCleaner.clean(png, format: .png, width: 4, height: 2) }
        // A PNG chunk length with the top bit set (beyond PNG's 2^31 - 1).
        let huge = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + S.be32(0xFFFF_FFFF) + Array("IHDR".utf8)
        #expect(throws: PhotoCleaningError.self) { try PhotoCleaner.clean(huge, format: .png, width: 4, height: 2) }
        // A RIFF size larger than the file, and a chunk larger than the RIFF.
        let webp = Array("RIFF".utf8) + S.le32(1 << 30) + Array("WEBPVP8L".utf8) + S.le32(5) + [0x2F, 0, 0, 0, 0]
        #expect(throws: PhotoCleaningError.self) { try PhotoCleaner.clean(webp, format: .webp, width: 4, height: 2) }
        let chunk = ChunkFormatCleaningTests.riff([Array("VP8L".utf8) + S.le32(0xFFFF_FFF0) + [0x2F]])
        #expect(throws: PhotoCleaningError.self) { try PhotoCleaner.clean(chunk, format: .webp, width: 4, height: 2) }
        // A GIF colour table announced larger than the file.
        let gif = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x87, 0, 0, 1, 2, 3]
        #expect(throws: PhotoCleaningError.self) { try PhotoCleaner.clean(gif, format: .gif, width: 1, height: 1) }
    }

    /// EXIF whose IFD0 points at itself, whose entry count runs far past the
    /// block, or whose offsets point outside it: read as upright (the only
    /// thing read), never followed in a loop.
    @Test(arguments: [
        Array("II".utf8) + S.le16(42) + S.le32(8) + S.le16(1) + S.le16(0x8769) + S.le16(4) + S.le32(1) + S.le32(8)
            + S.le32(8),
        Array("II".utf8) + S.le16(42) + S.le32(8) + S.le16(0xFFFF),
        Array("MM".utf8) + S.be16(42) + S.be32(0xFFFF_FFF0),
        Array("MM".utf8) + S.be16(42) + S.be32(8) + S.be16(1) + S.be16(0x0112) + S.be16(3) + S.be32(0x7FFF_FFFF) + [
            0, 6,
        ],
        Array("II".utf8) + S.le16(42) + S.le32(4),
        Array("II".utf8),
    ])
    func hostileExif(tiff: [UInt8]) throws {
        let jpeg = S.splice([S.segment(0xE1, Array("Exif".utf8) + [0, 0] + tiff)], into: S.jpeg(width: 16, height: 8))
        let cleaned = try PhotoCleaner.clean(jpeg, format: .jpeg, width: 16, height: 8)
        #expect((cleaned.format, cleaned.width, cleaned.height) == (.jpeg, 16, 8))
        #expect(!S.contains(cleaned.bytes, "Exif"))
        let png = S.png(extra: [S.pngChunk("eXIf", tiff)])
        #expect(try PhotoCleaner.clean(png, format: .png, width: 4, height: 2).bytes == S.png())
    }

    /// Stray bytes between segments, which libjpeg skips with a warning: the
    /// orientation behind them is still found and the photo cleaned.
    @Test func strayBytesBetweenSegments() throws {
        let jpeg = S.splice([[0, 0, 0x2A], S.exifSegment(orientation: 6)], into: S.jpeg(width: 48, height: 32))
        let cleaned = try PhotoCleaner.clean(jpeg, format: .jpeg, width: 48, height: 32)
        #expect((cleaned.width, cleaned.height) == (32, 48))
        #expect(!S.contains(cleaned.bytes, "Exif") && !S.contains(cleaned.bytes, "PetCam"))
    }

    @Test func nonsenseIsDamaged() {
        for format in PhotoFormat.allCases {
            #expect(throws: PhotoCleaningError.self) {
                try PhotoCleaner.clean(Array("not an image at all".utf8), format: format, width: 4, height: 2)
            }
        }
        #expect(throws: PhotoCleaningError.damaged("the image has no pixels (0×2)")) {
            try PhotoCleaner.clean(S.png(), format: .png, width: 0, height: 2)
        }
    }
}
