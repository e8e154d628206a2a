import Foundation
import PhotoTestSupport

/// Minimal valid image headers, made in code (no binary fixtures).
enum PhotoFixtures {
    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
    static func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(v >> $0 & 0xFF) } }
    static func le32(_ v: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8(v >> $0 & 0xFF) } }
    static func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }
    /// Bytes from base64 (how libFuzzer prints a crashing input).
    static func base64(_ text: String) -> [UInt8] { Array(Data(base64Encoded: text) ?? Data()) }

    /// SOI, a JFIF APP0 segment, an EXIF-like APP1 with fill bytes before it, a DHT (C4, not a frame), SOF0, EOI.
    static func jpeg(width: Int, height: Int, frameMarker: UInt8 = 0xC0) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xE0] + be16(16) + ascii("JFIF") + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes += [0xFF, 0xFF, 0xE1] + be16(8) + ascii("Exif") + [0, 0]
        bytes += [0xFF, 0xC4] + be16(3) + [0]
        bytes += [0xFF, frameMarker] + be16(17) + [8] + be16(height) + be16(width) + [3]
        bytes += [1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        bytes += [0xFF, 0xD9]
        return bytes
    }

    /// A real JPEG (TurboJPEG) with camera metadata: EXIF with GPS, a maker
    /// note and a thumbnail, XMP, a comment. What the draft cache must clean.
    static func cameraJPEG(width: Int, height: Int, orientation: Int = 1) -> [UInt8] {
        PhotoSamples.splice(
            [
                PhotoSamples.exifSegment(orientation: orientation, thumbnail: PhotoSamples.jpeg(width: 16, height: 8)),
                PhotoSamples.xmpSegment, PhotoSamples.commentSegment,
            ], into: PhotoSamples.jpeg(width: width, height: height))
    }

    /// Whether `needle` occurs in `bytes`.
    static func contains(_ bytes: [UInt8], _ needle: String) -> Bool { PhotoSamples.contains(bytes, needle) }

    static func png(width: Int, height: Int) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + ascii("IHDR") + be32(width) + be32(height)
            + [8, 2, 0, 0, 0] + [0, 0, 0, 0] + be32(0) + ascii("IEND") + [0xAE, 0x42, 0x60, 0x82]
    }

    static func gif(width: Int, height: Int, version: String = "GIF89a") -> [UInt8] {
        ascii(version) + le16(width) + le16(height) + [0, 0, 0] + [0x3B]
    }

    private static func riff(_ chunk: [UInt8]) -> [UInt8] {
        ascii("RIFF") + le32(4 + chunk.count) + ascii("WEBP") + chunk
    }

    static func webpLossy(width: Int, height: Int) -> [UInt8] {
        let data: [UInt8] = [0x10, 0x02, 0x00] + [0x9D, 0x01, 0x2A] + le16(width) + le16(height) + [0, 0]
        return riff(ascii("VP8 ") + le32(data.count) + data)
    }

    static func webpLossless(width: Int, height: Int) -> [UInt8] {
        let bits = (width - 1) | (height - 1) << 14
        let data: [UInt8] = [0x2F] + le32(bits) + [0]
        return riff(ascii("VP8L") + le32(data.count) + data)
    }

    static func webpExtended(width: Int, height: Int) -> [UInt8] {
        let data: [UInt8] = [0x10, 0, 0, 0] + le24(width - 1) + le24(height - 1)
        return riff(ascii("VP8X") + le32(data.count) + data)
    }

    private static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be32(8 + body.count) + ascii(type) + body }

    /// `ftyp` with the given brands, then `meta` (full box) → `iprp` → `ipco` → one `ispe` per size.
    static func heic(sizes: [(Int, Int)], major: String = "heic", compatible: [String] = ["mif1", "heic"]) -> [UInt8] {
        let ftyp = box("ftyp", ascii(major) + be32(0) + compatible.flatMap(ascii))
        let hdlr = box("hdlr", [0, 0, 0, 0] + be32(0) + ascii("pict") + [UInt8](repeating: 0, count: 13))
        let ispes = sizes.flatMap { box("ispe", [0, 0, 0, 0] + be32($0.0) + be32($0.1)) }
        let meta = box("meta", [0, 0, 0, 0] + hdlr + box("iprp", box("ipco", ispes)))
        return ftyp + meta + box("mdat", [1, 2, 3])
    }

    static let bmp: [UInt8] = ascii("BM") + le32(70) + [0, 0, 0, 0] + le32(54) + le32(40) + le32(2) + le32(2)

    /// A fresh empty directory for one test.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("petspot-report-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `bytes` to `name` in `directory`.
    @discardableResult
    static func write(_ bytes: [UInt8], named name: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }
}
