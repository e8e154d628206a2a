/// What the cleaner reads from a JPEG's markers before its first scan: the
/// EXIF orientation and the ICC profile's APP2 segments.
struct JPEGStructure {
    /// The orientation in the first `Exif\0\0` APP1 segment (`.normal` without one).
    var orientation: ExifOrientation = .normal
    /// The complete ICC_PROFILE APP2 segments (marker, length and payload),
    /// in order; empty when there is no profile or it is incomplete.
    var iccSegments: [[UInt8]] = []

    static let exifSignature: [UInt8] = Array("Exif".utf8) + [0, 0]
    static let iccSignature: [UInt8] = Array("ICC_PROFILE".utf8) + [0]
    /// Payload bytes an APP2 segment holds after its signature, sequence number and count.
    static let iccChunkCapacity = 65_535 - 2 - 14

    /// Walks the markers from SOI up to the first scan (SOS).
    /// - Throws: ``PhotoCleaningError/damaged(_:)`` when a segment's length
    ///   runs past the end or the file ends before the first scan.
    static func read(_ bytes: [UInt8]) throws(PhotoCleaningError) -> JPEGStructure {
        let r = BoundedBytes(bytes)
        guard r.matches([0xFF, 0xD8], at: 0) else { throw .damaged("JPEG without a start-of-image marker") }
        var result = JPEGStructure()
        var iccChunks: [(sequence: UInt8, count: UInt8, segment: [UInt8])] = []
        var offset = 2
        while true {
            // Stray bytes before a marker: skipped, as libjpeg does (with a warning).
            while let byte = r.byte(at: offset), byte != 0xFF { offset += 1 }
            // Fill bytes: any number of FF before the marker code.
            while r.byte(at: offset + 1) == 0xFF { offset += 1 }
            guard let marker = r.byte(at: offset + 1) else { throw .damaged("JPEG ends before its first scan") }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                offset += 2
                continue
            }
            if marker == 0xD9 { throw .damaged("JPEG ends before its first scan") }
            guard let length = r.uint16(at: offset + 2, bigEndian: true), length >= 2,
                let segment = r.slice(offset..<(offset + 2 + length))
            else { throw .damaged("JPEG segment at byte \(offset) runs past the end") }
            if marker == 0xDA { break }
            let payload = segment.dropFirst(4)
            if marker == 0xE1, result.orientation == .normal, payload.starts(with: exifSignature) {
                result.orientation = ExifOrientation.read(exif: payload)
            } else if marker == 0xE2, payload.starts(with: iccSignature), payload.count > iccSignature.count + 2 {
                let sequence = payload[payload.startIndex + iccSignature.count]
                let count = payload[payload.startIndex + iccSignature.count + 1]
                iccChunks.append((sequence, count, Array(segment)))
            }
            offset += 2 + length
        }
        // A profile counts only when complete: chunks 1...n, each once, all saying n.
        let count = iccChunks.first?.count ?? 0
        let sorted = iccChunks.sorted { $0.sequence < $1.sequence }
        if count > 0, sorted.count == Int(count),
            sorted.enumerated().allSatisfy({ $0.element.sequence == UInt8($0.offset + 1) && $0.element.count == count })
        {
            result.iccSegments = sorted.map(\.segment)
        }
        return result
    }

    /// The APP2 segments that carry `profile` (at most 255 of them; a
    /// larger profile gives none).
    static func iccSegments(profile: [UInt8]) -> [[UInt8]] {
        guard !profile.isEmpty else { return [] }
        let chunks = stride(from: 0, to: profile.count, by: iccChunkCapacity).map {
            profile[$0..<min($0 + iccChunkCapacity, profile.count)]
        }
        guard chunks.count <= 255 else { return [] }
        return chunks.enumerated().map { index, chunk in
            let length = 2 + iccSignature.count + 2 + chunk.count
            return [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + iccSignature
                + [UInt8(index + 1), UInt8(chunks.count)] + chunk
        }
    }

    /// `jpeg` with `segments` inserted after SOI and the JFIF APP0 segment
    /// that must come first, if there is one.
    static func inserting(_ segments: [[UInt8]], into jpeg: [UInt8]) -> [UInt8] {
        guard !segments.isEmpty else { return jpeg }
        let r = BoundedBytes(jpeg)
        var position = 2
        if r.matches([0xFF, 0xE0], at: 2), let length = r.uint16(at: 4, bigEndian: true), 4 + length <= jpeg.count {
            position = 4 + length
        }
        return Array(jpeg[..<position]) + segments.joined() + jpeg[position...]
    }
}
