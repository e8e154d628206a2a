import PetSpotReport

/// WEBP: the RIFF chunks rewritten without `EXIF`, `XMP ` and unknown
/// chunks, `VP8X`'s flags and the RIFF size corrected (see ``PhotoCleaner``).
enum WebPCleaner {
    /// Chunks that describe the image (the extended format's table).
    static let kept: Set<String> = ["VP8 ", "VP8L", "VP8X", "ALPH", "ANIM", "ANMF", "ICCP"]
    /// `VP8X` flag bits: EXIF and XMP metadata present.
    static let exifFlag: UInt8 = 0x08
    static let xmpFlag: UInt8 = 0x04

    static func clean(_ bytes: [UInt8]) throws(PhotoCleaningError) -> [UInt8] {
        let r = BoundedBytes(bytes)
        guard r.matches(Array("RIFF".utf8), at: 0), r.matches(Array("WEBP".utf8), at: 8),
            let riffSize = r.uint32(at: 4, bigEndian: false), riffSize >= 4, 8 + riffSize <= bytes.count
        else { throw .damaged("WEBP whose RIFF header is missing or longer than the file") }
        let end = 8 + riffSize  // anything after the RIFF is dropped
        var output: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)
        output.reserveCapacity(end)
        var offset = 12
        while offset < end {
            guard offset + 8 <= end, let size = r.uint32(at: offset + 4, bigEndian: false), offset + 8 + size <= end,
                let type = r.slice(offset..<(offset + 4)).map({ String(decoding: $0, as: UTF8.self) })
            else { throw .damaged("WEBP chunk at byte \(offset) runs past the end") }
            let body = bytes[(offset + 8)..<(offset + 8 + size)]
            if type == "EXIF", ExifOrientation.read(exif: body) != .normal {
                throw .orientationNotApplicable(.webp)
            }
            if kept.contains(type) {
                var chunk = Array(bytes[offset..<(offset + 8 + size)])
                if type == "VP8X", size >= 1 { chunk[8] &= ~(exifFlag | xmpFlag) }
                output += chunk
                // Chunks are padded to an even size; the last pad byte may be missing.
                if size % 2 == 1 { output.append(0) }
            }
            offset += 8 + size + size % 2
        }
        guard output.count > 12 else { throw .damaged("WEBP without image chunks") }
        let size = output.count - 8
        output.replaceSubrange(
            4..<8,
            with: [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24 & 0xFF)])
        return output
    }
}
