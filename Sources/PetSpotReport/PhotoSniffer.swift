/// Recognises a photo's format from its first bytes and reads its pixel
/// dimensions from the headers, without decoding the image.
///
/// - JPEG: `FF D8 FF`, then the first SOF marker (`C0`–`CF` except `C4`,
///   `C8`, `CC`) gives height and width.
/// - PNG: the 8-byte signature, then the `IHDR` chunk.
/// - GIF: `GIF87a`/`GIF89a`, then the logical screen size.
/// - WEBP: `RIFF….WEBP`, then a `VP8 ` (lossy key frame), `VP8L`
///   (lossless) or `VP8X` (extended canvas) chunk.
/// - HEIC: an `ftyp` box whose major or compatible brands include `heic`,
///   `heix` or `mif1` (and not `avif`), then the `ispe` properties in
///   `meta/iprp/ipco`; the largest one is the image (tiles and thumbnails
///   are smaller).
///
/// Everything is bounds-checked: truncated or hostile headers give `nil`.
public enum PhotoSniffer {
    /// The format `bytes` start like, whether or not the dimensions can be read.
    public static func format(of bytes: [UInt8]) -> PhotoFormat? {
        let reader = ByteReader(bytes)
        if reader.matches([0xFF, 0xD8, 0xFF], at: 0) { return .jpeg }
        if reader.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], at: 0) { return .png }
        if reader.matches(Array("GIF87a".utf8), at: 0) || reader.matches(Array("GIF89a".utf8), at: 0) { return .gif }
        if reader.matches(Array("RIFF".utf8), at: 0) && reader.matches(Array("WEBP".utf8), at: 8) { return .webp }
        if isHEIF(reader) { return .heic }
        return nil
    }

    /// The format and dimensions of `bytes`, or `nil` when it is not one of
    /// the accepted formats or its header is malformed.
    public static func inspect(_ bytes: [UInt8]) -> PhotoInfo? {
        let reader = ByteReader(bytes)
        let size: (Int, Int)?
        switch format(of: bytes) {
        case .jpeg: size = jpegSize(reader)
        case .png: size = pngSize(reader)
        case .gif: size = gifSize(reader)
        case .webp: size = webpSize(reader)
        case .heic: size = heicSize(reader)
        case nil: return nil
        }
        guard let format = format(of: bytes), let (width, height) = size, width > 0, height > 0 else { return nil }
        return PhotoInfo(format: format, width: width, height: height)
    }

    // MARK: JPEG

    private static func jpegSize(_ r: ByteReader) -> (Int, Int)? {
        var offset = 2
        while offset + 4 <= r.count {
            guard r[offset] == 0xFF else { return nil }
            var marker = r[offset + 1]
            // Fill bytes: any number of FF before the marker code.
            while marker == 0xFF {
                offset += 1
                guard offset + 1 < r.count else { return nil }
                marker = r[offset + 1]
            }
            offset += 2
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }  // standalone
            if marker == 0xD9 || marker == 0xDA { return nil }  // end, or scan before any frame
            guard let length = r.uint16BE(at: offset), length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let height = r.uint16BE(at: offset + 3), let width = r.uint16BE(at: offset + 5) else {
                    return nil
                }
                return (width, height)
            }
            offset += length
        }
        return nil
    }

    // MARK: PNG

    private static func pngSize(_ r: ByteReader) -> (Int, Int)? {
        guard r.matches(Array("IHDR".utf8), at: 12), let width = r.uint32BE(at: 16), let height = r.uint32BE(at: 20)
        else { return nil }
        return (width, height)
    }

    // MARK: GIF

    private static func gifSize(_ r: ByteReader) -> (Int, Int)? {
        guard let width = r.uint16LE(at: 6), let height = r.uint16LE(at: 8) else { return nil }
        return (width, height)
    }

    // MARK: WEBP

    private static func webpSize(_ r: ByteReader) -> (Int, Int)? {
        if r.matches(Array("VP8 ".utf8), at: 12) {
            // Frame tag (3 bytes), then the key frame start code 9D 01 2A.
            guard r.matches([0x9D, 0x01, 0x2A], at: 23), let width = r.uint16LE(at: 26), let height = r.uint16LE(at: 28)
            else { return nil }
            return (width & 0x3FFF, height & 0x3FFF)
        }
        if r.matches(Array("VP8L".utf8), at: 12) {
            guard r.count > 24, r[20] == 0x2F else { return nil }
            let bits = Int(r[21]) | Int(r[22]) << 8 | Int(r[23]) << 16 | Int(r[24]) << 24
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        }
        if r.matches(Array("VP8X".utf8), at: 12) {
            guard let width = r.uint24LE(at: 24), let height = r.uint24LE(at: 27) else { return nil }
            return (width + 1, height + 1)
        }
        return nil
    }

    // MARK: HEIC

    private static let heifBrands: Set<String> = ["heic", "heix", "mif1"]

    private static func isHEIF(_ r: ByteReader) -> Bool {
        guard r.matches(Array("ftyp".utf8), at: 4), let size = r.uint32BE(at: 0), size >= 16, size <= r.count else {
            return false
        }
        var brands = [r.fourCC(at: 8)]
        var offset = 16
        while offset + 4 <= size {
            brands.append(r.fourCC(at: offset))
            offset += 4
        }
        let set = Set(brands.compactMap { $0 })
        return !set.isDisjoint(with: heifBrands) && !set.contains("avif") && !set.contains("avis")
    }

    private static func heicSize(_ r: ByteReader) -> (Int, Int)? {
        guard let meta = r.boxes(in: 0..<r.count).first(where: { $0.type == "meta" }) else { return nil }
        // `meta` is a full box: 4 bytes of version and flags before its children
        // (a body shorter than that is malformed, not an empty range to trap on).
        guard meta.body.count >= 4 else { return nil }
        let metaChildren = (meta.body.lowerBound + 4)..<meta.body.upperBound
        guard let iprp = r.boxes(in: metaChildren).first(where: { $0.type == "iprp" }),
            let ipco = r.boxes(in: iprp.body).first(where: { $0.type == "ipco" })
        else { return nil }
        var best: (Int, Int)?
        for box in r.boxes(in: ipco.body) where box.type == "ispe" {
            guard let width = r.uint32BE(at: box.body.lowerBound + 4),
                let height = r.uint32BE(at: box.body.lowerBound + 8),
                box.body.count >= 12
            else { continue }
            // Areas in UInt64: two 32-bit sides overflow Int's multiplication.
            if best.map({ UInt64($0.0) * UInt64($0.1) < UInt64(width) * UInt64(height) }) ?? true {
                best = (width, height)
            }
        }
        return best
    }
}

/// Bounds-checked big/little-endian reads over a byte array.
struct ByteReader {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }

    subscript(_ index: Int) -> UInt8 { bytes[index] }

    func matches(_ pattern: [UInt8], at offset: Int) -> Bool {
        offset >= 0 && offset + pattern.count <= bytes.count
            && bytes[offset..<(offset + pattern.count)].elementsEqual(pattern)
    }

    func uint16BE(at offset: Int) -> Int? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
    }

    func uint16LE(at offset: Int) -> Int? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
    }

    func uint24LE(at offset: Int) -> Int? {
        guard offset >= 0, offset + 3 <= bytes.count else { return nil }
        return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
    }

    func uint32BE(at offset: Int) -> Int? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return (offset..<(offset + 4)).reduce(0) { $0 << 8 | Int(bytes[$1]) }
    }

    func fourCC(at offset: Int) -> String? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
    }

    /// An ISO BMFF box: its four-character type and the range of its body.
    struct Box {
        var type: String
        var body: Range<Int>
    }

    /// The boxes laid end to end in `range`; stops at the first malformed one.
    func boxes(in range: Range<Int>) -> [Box] {
        var result: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound, result.count < 1024 {
            guard var size = uint32BE(at: offset), let type = fourCC(at: offset + 4) else { break }
            var header = 8
            if size == 1 {
                // 64-bit size follows; anything that large is beyond what we read.
                guard let high = uint32BE(at: offset + 8), let low = uint32BE(at: offset + 12), high == 0 else { break }
                size = low
                header = 16
            } else if size == 0 {
                size = range.upperBound - offset  // extends to the end
            }
            guard size >= header, offset + size <= range.upperBound else { break }
            result.append(Box(type: type, body: (offset + header)..<(offset + size)))
            offset += size
        }
        return result
    }
}
