import PetSpotReport

/// PNG: the chunk stream rewritten with only the chunks that say how to
/// draw the image (see ``PhotoCleaner``). Kept chunks are copied byte for
/// byte with their CRCs; a viewer's decoder checks those as it always does.
enum PNGCleaner {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Critical chunks, then the ancillary ones that only affect rendering.
    static let kept: Set<String> = [
        "IHDR", "PLTE", "IDAT", "IEND", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "sBIT", "pHYs", "acTL", "fcTL", "fdAT",
    ]

    static func clean(_ bytes: [UInt8]) throws(PhotoCleaningError) -> [UInt8] {
        let r = BoundedBytes(bytes)
        guard r.matches(signature, at: 0) else { throw .damaged("PNG without its signature") }
        var output = signature
        output.reserveCapacity(bytes.count)
        var offset = signature.count
        var first = true
        while true {
            guard let length = r.uint32(at: offset, bigEndian: true), length <= 0x7FFF_FFFF,
                let typeBytes = r.slice((offset + 4)..<(offset + 8)),
                let chunk = r.slice(offset..<(offset + 12 + length))
            else { throw .damaged("PNG chunk at byte \(offset) runs past the end") }
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw .damaged("PNG chunk at byte \(offset) has no valid type")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard !first || type == "IHDR" else { throw .damaged("PNG does not start with IHDR") }
            first = false
            if type == "eXIf", ExifOrientation.read(tiff: chunk.dropFirst(8).dropLast(4)) != .normal {
                throw .orientationNotApplicable(.png)
            }
            if kept.contains(type) { output += chunk }
            offset += 12 + length
            if type == "IEND" { return output }  // anything after it is dropped
        }
    }
}
