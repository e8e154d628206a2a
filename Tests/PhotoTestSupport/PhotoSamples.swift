import CHeif
import CTurboJPEG
import Foundation

/// Real photos made in code for the cleaning tests: JPEG by TurboJPEG,
/// HEIC by libheif's encoder (x265), PNG with stored-deflate pixels, and the
/// metadata blocks cameras and editors write, to be spliced in.
public enum PhotoSamples {
    /// An RGB colour.
    public struct RGB: Sendable, Equatable {
        public var r, g, b: UInt8
        public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { (self.r, self.g, self.b) = (r, g, b) }
        public static let red = RGB(230, 20, 20)
        public static let blue = RGB(20, 40, 200)
        /// Whether this pixel looks red after lossy coding.
        public var isRed: Bool { r > 150 && g < 100 && b < 100 }
    }

    /// Decoded pixels, row by row, 3 bytes per pixel.
    public struct Pixels: Sendable {
        public var width: Int
        public var height: Int
        public var rgb: [UInt8]
        /// The pixel at (`x`, `y`); black outside the picture (so a wrong size fails a check, not the run).
        public subscript(x: Int, y: Int) -> RGB {
            guard (0..<width).contains(x), (0..<height).contains(y) else { return RGB(0, 0, 0) }
            let i = (y * width + x) * 3
            return RGB(rgb[i], rgb[i + 1], rgb[i + 2])
        }
    }

    /// A `width`×`height` picture, blue with a red `corner`×`corner` square at its top-left.
    public static func pixels(width: Int, height: Int, corner: Int = 16) -> Pixels {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let c = x < corner && y < corner ? RGB.red : RGB.blue
                let i = (y * width + x) * 3
                (rgb[i], rgb[i + 1], rgb[i + 2]) = (c.r, c.g, c.b)
            }
        }
        return Pixels(width: width, height: height, rgb: rgb)
    }

    // MARK: JPEG

    /// A baseline JPEG of ``pixels(width:height:corner:)`` (SOI, JFIF APP0, …).
    /// - Parameter subsampling420: 4:2:0 (16×16 MCUs) instead of 4:4:4 (8×8).
    public static func jpeg(width: Int, height: Int, corner: Int = 16, subsampling420: Bool = false) -> [UInt8] {
        let picture = pixels(width: width, height: height, corner: corner)
        let handle = tjInitCompress()!
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let subsampling = subsampling420 ? TJSAMP_420 : TJSAMP_444
        let status = picture.rgb.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), &output, &size,
                Int32(subsampling.rawValue), 95, 0)
        }
        precondition(status == 0, String(cString: tjGetErrorStr2(handle)))
        defer { tjFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// Width and height from a JPEG's frame header, or `nil` when TurboJPEG cannot read it.
    public static func jpegSize(_ jpeg: [UInt8]) -> (width: Int, height: Int)? {
        let handle = tjInitDecompress()!
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let status = jpeg.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
        }
        return status == 0 ? (Int(width), Int(height)) : nil
    }

    /// A JPEG decoded to RGB, or `nil` when TurboJPEG cannot.
    public static func decodeJPEG(_ jpeg: [UInt8]) -> Pixels? {
        guard let (width, height) = jpegSize(jpeg) else { return nil }
        let handle = tjInitDecompress()!
        defer { tjDestroy(handle) }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        let status = jpeg.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer {
                tjDecompress2(
                    handle, source.baseAddress, UInt(source.count), $0.baseAddress, Int32(width), 0, Int32(height),
                    Int32(TJPF_RGB.rawValue), 0)
            }
        }
        return status == 0 ? Pixels(width: width, height: height, rgb: rgb) : nil
    }

    /// A JPEG marker segment: `FF marker`, length, payload.
    public static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(payload.count + 2) + payload
    }

    /// `jpeg` with `segments` inserted right after SOI.
    public static func splice(_ segments: [[UInt8]], into jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg[..<2]) + segments.joined() + jpeg[2...]
    }

    /// The marker codes before the first scan (SOS included).
    public static func markers(_ jpeg: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            result.append(marker)
            if marker == 0xDA { break }
            offset += 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
        }
        return result
    }

    /// An APP1 `Exif` segment: IFD0 with the orientation (if any), a GPS IFD
    /// (52.2297 N 21.0122 E), a camera make and maker note; IFD1 pointing at
    /// an embedded JPEG thumbnail.
    public static func exifSegment(orientation: Int?, thumbnail: [UInt8]? = nil) -> [UInt8] {
        segment(0xE1, Array("Exif".utf8) + [0, 0] + tiff(orientation: orientation, thumbnail: thumbnail))
    }

    /// An APP1 XMP packet with a GPS position and a creator.
    public static let xmpSegment: [UInt8] = segment(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + xmpPacket)

    /// The XMP packet itself.
    public static let xmpPacket: [UInt8] = Array(
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
        <rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" \
        exif:GPSLatitude="52,13.782N" exif:GPSLongitude="21,0.732E" dc:creator="Jan Kowalski"/></rdf:RDF></x:xmpmeta>
        """.utf8)

    /// An APP13 Photoshop/IPTC segment with a by-line.
    public static let iptcSegment: [UInt8] = segment(
        0xED,
        Array("Photoshop 3.0".utf8) + [0] + Array("8BIM".utf8) + [0x04, 0x04, 0, 0] + be32(16) + [0x1C, 0x02, 0x50]
            + be16(13) + Array("Jan Kowalski!".utf8))

    /// A COM segment.
    public static let commentSegment: [UInt8] = segment(0xFE, Array("Shot at ul. Kwiatowa 7 by Jan".utf8))

    /// A TIFF structure (EXIF body): little-endian, IFD0 → GPS IFD, IFD1 → thumbnail.
    public static func tiff(orientation: Int?, thumbnail: [UInt8]? = nil) -> [UInt8] {
        // Layout: header (8) | IFD0 | GPS IFD | IFD1 | data area.
        var ifd0: [(tag: Int, type: Int, count: Int, value: [UInt8])] = []
        if let orientation { ifd0.append((0x0112, 3, 1, le16(orientation) + [0, 0])) }
        let make = Array("PetCam Model X\0".utf8)
        let ifd0Size = 2 + (ifd0.count + 3) * 12 + 4
        let gpsOffset = 8 + ifd0Size
        let gpsSize = 2 + 4 * 12 + 4
        let ifd1Offset = gpsOffset + gpsSize
        let ifd1Size = 2 + 2 * 12 + 4
        let dataOffset = ifd1Offset + ifd1Size
        let latitude = [52, 1, 13, 1, 7820, 1000].flatMap { le32($0) }
        let longitude = [21, 1, 0, 1, 732, 1000].flatMap { le32($0) }
        let makeOffset = dataOffset
        let makerNoteOffset = makeOffset + make.count
        let makerNote = Array("MAKERNOTE serial 12345".utf8)
        let latitudeOffset = makerNoteOffset + makerNote.count
        let longitudeOffset = latitudeOffset + latitude.count
        let thumbnailOffset = longitudeOffset + longitude.count
        let thumbnail = thumbnail ?? []
        ifd0.append((0x010F, 2, make.count, le32(makeOffset)))
        ifd0.append((0x927C, 7, makerNote.count, le32(makerNoteOffset)))
        ifd0.append((0x8825, 4, 1, le32(gpsOffset)))
        ifd0.sort { $0.tag < $1.tag }
        func ifd(_ entries: [(tag: Int, type: Int, count: Int, value: [UInt8])], next: Int) -> [UInt8] {
            le16(entries.count) + entries.flatMap { le16($0.tag) + le16($0.type) + le32($0.count) + $0.value }
                + le32(next)
        }
        var bytes = Array("II".utf8) + le16(42) + le32(8)
        bytes += ifd(ifd0, next: thumbnail.isEmpty ? 0 : ifd1Offset)
        bytes += ifd(
            [
                (1, 2, 2, Array("N\0\0\0".utf8)), (2, 5, 3, le32(latitudeOffset)), (3, 2, 2, Array("E\0\0\0".utf8)),
                (4, 5, 3, le32(longitudeOffset)),
            ], next: 0)
        bytes += ifd([(0x0201, 4, 1, le32(thumbnailOffset)), (0x0202, 4, 1, le32(thumbnail.count))], next: 0)
        precondition(bytes.count == dataOffset)
        return bytes + make + makerNote + latitude + longitude + thumbnail
    }

    // MARK: HEIC

    /// A HEIC of ``pixels(width:height:corner:)`` encoded by libheif (x265),
    /// with `orientation` as `irot`/`imir` boxes and, if given, an EXIF item.
    /// - Parameter tenBit: 10 bits per channel (as HDR cameras write) instead of 8.
    public static func heic(
        width: Int, height: Int, orientation: Int = 1, exif: [UInt8]? = nil, tenBit: Bool = false
    ) throws -> [UInt8] {
        let picture = pixels(width: width, height: height)
        let context = heif_context_alloc()!
        defer { heif_context_free(context) }
        var image: OpaquePointer?
        let chroma = tenBit ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB
        try check(heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, chroma, &image))
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), tenBit ? 10 : 8))
        var stride: Int32 = 0
        let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride)!
        for y in 0..<height {
            for x in 0..<width * 3 {
                let value = picture.rgb[y * width * 3 + x]
                if tenBit {
                    let wide = Int(value) << 2
                    plane[y * Int(stride) + 2 * x] = UInt8(wide & 0xFF)
                    plane[y * Int(stride) + 2 * x + 1] = UInt8(wide >> 8)
                } else {
                    plane[y * Int(stride) + x] = value
                }
            }
        }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder))
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, 90))
        let options = heif_encoding_options_alloc()!
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = heif_orientation(rawValue: UInt32(orientation))
        var handle: OpaquePointer?
        try check(heif_context_encode_image(context, image, encoder, options, &handle))
        defer { heif_image_handle_release(handle) }
        if let exif {
            try check(
                exif.withUnsafeBytes {
                    heif_context_add_exif_metadata(context, handle, $0.baseAddress, Int32($0.count))
                })
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("petspot-\(UUID().uuidString).heic")
        defer { try? FileManager.default.removeItem(at: file) }
        try check(heif_context_write_to_file(context, file.path))
        return Array(try Data(contentsOf: file))
    }

    /// A libheif failure.
    public struct HeifFailure: Error, CustomStringConvertible {
        public var description: String
    }

    private static func check(_ error: heif_error) throws {
        guard error.code != heif_error_Ok else { return }
        throw HeifFailure(description: error.message.map { String(cString: $0) } ?? "libheif error")
    }

    // MARK: PNG

    /// A PNG chunk with its CRC.
    public static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc32(body)))
    }

    /// A valid 4×2 RGB PNG (pixels in a stored deflate block) with `extra`
    /// chunks between IHDR and IDAT.
    public static func png(extra: [[UInt8]] = []) -> [UInt8] {
        let width = 4
        let height = 2
        var raw: [UInt8] = []
        for _ in 0..<height { raw += [0] + [UInt8](repeating: 0x80, count: width * 3) }
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        let zlib: [UInt8] =
            [0x78, 0x01, 0x01] + le16(raw.count) + le16(~raw.count & 0xFFFF) + raw + be32(Int(b << 16 | a))
        let ihdr = be32(width) + be32(height) + [8, 2, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", ihdr) + extra.joined()
            + pngChunk("IDAT", zlib) + pngChunk("IEND", [])
    }

    /// CRC-32 as PNG computes it.
    public static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    // MARK: Byte helpers

    public static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    public static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    public static func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(v >> $0 & 0xFF) } }
    public static func le32(_ v: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8(v >> $0 & 0xFF) } }

    /// Whether `needle` occurs anywhere in `haystack`.
    public static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        guard pattern.count <= haystack.count else { return false }
        return (0...(haystack.count - pattern.count)).contains { start in
            haystack[start..<(start + pattern.count)].elementsEqual(pattern)
        }
    }
}
