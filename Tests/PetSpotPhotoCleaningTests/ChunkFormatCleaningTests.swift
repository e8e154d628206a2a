import PetSpotPhotoCleaning
import PetSpotReport
import PhotoTestSupport
import Testing

/// PNG, WEBP and GIF: metadata chunks and blocks removed, the rest byte for byte.
@Suite struct ChunkFormatCleaningTests {
    typealias S = PhotoSamples

    /// The chunk types of a PNG, each checked against its CRC.
    static func pngChunks(_ png: [UInt8]) -> [(type: String, crcOK: Bool)] {
        var result: [(String, Bool)] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard offset + 12 + length <= png.count else { break }
            let body = png[(offset + 4)..<(offset + 8 + length)]
            let crc = png[(offset + 8 + length)..<(offset + 12 + length)].reduce(0) { $0 << 8 | UInt32($1) }
            result.append((String(decoding: body.prefix(4), as: UTF8.self), S.crc32(body) == crc))
            offset += 12 + length
        }
        return result
    }

    @Test func pngKeepsOnlyRenderingChunks() throws {
        let xmp = Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + S.xmpPacket
        let extra = [
            S.pngChunk("gAMA", S.be32(45455)), S.pngChunk("eXIf", S.tiff(orientation: 1)),
            S.pngChunk("tEXt", Array("Author".utf8) + [0] + Array("Jan Kowalski".utf8)), S.pngChunk("iTXt", xmp),
            S.pngChunk("zTXt", Array("Comment".utf8) + [0, 0, 0x78, 0x01]),
            S.pngChunk("tIME", [7, 234, 11, 26, 12, 0, 0]),
            S.pngChunk("pHYs", S.be32(2835) + S.be32(2835) + [1]), S.pngChunk("prVt", Array("secret".utf8)),
        ]
        let input = S.png(extra: extra) + Array("after IEND: Kowalski".utf8)
        let cleaned = try PhotoCleaner.clean(input, format: .png, width: 4, height: 2)
        let chunks = Self.pngChunks(cleaned.bytes)
        #expect(chunks.map(\.type) == ["IHDR", "gAMA", "pHYs", "IDAT", "IEND"])
        #expect(chunks.allSatisfy { $0.crcOK })
        #expect(cleaned.bytes == S.png(extra: [extra[0], extra[6]]))
        #expect((cleaned.format, cleaned.width, cleaned.height) == (.png, 4, 2))
        for text in ["Kowalski", "PetCam", "adobe", "secret"] { #expect(!S.contains(cleaned.bytes, text)) }
    }

    @Test func aRotatedPNGIsRefusedHonestly() {
        let input = S.png(extra: [S.pngChunk("eXIf", S.tiff(orientation: 6))])
        #expect(throws: PhotoCleaningError.orientationNotApplicable(.png)) {
            try PhotoCleaner.clean(input, format: .png, width: 4, height: 2)
        }
    }

    static func riff(_ chunks: [[UInt8]]) -> [UInt8] {
        let body = chunks.joined()
        return Array("RIFF".utf8) + S.le32(4 + body.count) + Array("WEBP".utf8) + body
    }

    static func webpChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        Array(type.utf8) + S.le32(data.count) + data + (data.count % 2 == 1 ? [0] : [])
    }

    @Test func webpLosesExifAndXMPAndSaysSo() throws {
        // VP8X flags: ICC 0x20, alpha 0x10, EXIF 0x08, XMP 0x04.
        let vp8x = webpChunkVP8X(flags: 0x20 | 0x10 | 0x08 | 0x04)
        let iccp = Self.webpChunk("ICCP", Array("profile".utf8))
        let image = Self.webpChunk("VP8L", [0x2F, 0x03, 0x40, 0x00, 0x00, 0x07])  // odd size: padded
        let input =
            Self.riff([
                vp8x, iccp, image, Self.webpChunk("EXIF", S.tiff(orientation: 1)), Self.webpChunk("XMP ", S.xmpPacket),
                Self.webpChunk("ZZZZ", Array("unknown Kowalski".utf8)),
            ]) + Array("after the RIFF".utf8)
        let cleaned = try PhotoCleaner.clean(input, format: .webp, width: 4, height: 2)
        #expect(cleaned.bytes == Self.riff([webpChunkVP8X(flags: 0x20 | 0x10), iccp, image]))
        #expect(Array(cleaned.bytes[4..<8]) == S.le32(cleaned.bytes.count - 8))
        for text in ["PetCam", "adobe", "Kowalski", "EXIF", "XMP", "after"] {
            #expect(!S.contains(cleaned.bytes, text))
        }
    }

    private func webpChunkVP8X(flags: UInt8) -> [UInt8] {
        Self.webpChunk("VP8X", [flags, 0, 0, 0] + [3, 0, 0] + [1, 0, 0])
    }

    @Test func aRotatedWEBPIsRefusedHonestly() {
        let exif = Array("Exif".utf8) + [0, 0] + S.tiff(orientation: 8)
        let input = Self.riff([
            webpChunkVP8X(flags: 0x08), Self.webpChunk("VP8L", [0x2F, 0, 0, 0, 0]), Self.webpChunk("EXIF", exif),
        ])
        #expect(throws: PhotoCleaningError.orientationNotApplicable(.webp)) {
            try PhotoCleaner.clean(input, format: .webp, width: 4, height: 2)
        }
    }

    /// A 1×1 GIF: header, screen, global colour table, graphic control, image, trailer.
    static let gifHead: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 0xFF, 0xFF, 0xFF, 0, 0, 0]
    static let graphicControl: [UInt8] = [0x21, 0xF9, 4, 1, 0, 0, 0, 0]
    static let gifImage: [UInt8] = [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]
    static let loop: [UInt8] = [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]

    @Test func gifLosesCommentsAndXMP() throws {
        let comment: [UInt8] = [0x21, 0xFE, 12] + Array("Jan Kowalski".utf8) + [0]
        let xmpBody = Array(S.xmpPacket)
        var xmp: [UInt8] = [0x21, 0xFF, 11] + Array("XMP DataXMP".utf8)
        for start in stride(from: 0, to: xmpBody.count, by: 255) {
            let block = xmpBody[start..<min(start + 255, xmpBody.count)]
            xmp += [UInt8(block.count)] + block
        }
        xmp += [0]
        let input =
            Self.gifHead + Self.loop + comment + xmp + Self.graphicControl + Self.gifImage + [0x3B]
            + Array("trailing Kowalski".utf8)
        let cleaned = try PhotoCleaner.clean(input, format: .gif, width: 1, height: 1)
        #expect(cleaned.bytes == Self.gifHead + Self.loop + Self.graphicControl + Self.gifImage + [0x3B])
        for text in ["Kowalski", "XMP", "adobe"] { #expect(!S.contains(cleaned.bytes, text)) }
    }
}
