/// The EXIF orientation of a photo (TIFF tag 0x0112): how the stored
/// pixels must be turned to be seen upright.
///
/// Only IFD0 is read, at one bounded offset, and no pointer to another
/// directory is followed: a hostile file cannot make the reader loop or
/// read outside the bytes it was given.
enum ExifOrientation: Int, Sendable {
    case normal = 1
    case flipHorizontal = 2
    case rotate180 = 3
    case flipVertical = 4
    case transpose = 5
    case rotate90 = 6
    case transverse = 7
    case rotate270 = 8

    /// Whether the upright image has width and height swapped.
    var swapsSides: Bool { rawValue >= 5 }

    /// Most IFD0 entries read; real files have a few dozen.
    static let maximumEntries = 512

    /// The orientation in a TIFF structure (the body of an EXIF block after
    /// any `Exif\0\0` prefix). Missing, unreadable or out-of-range values
    /// are `.normal`, as viewers treat them.
    static func read(tiff: ArraySlice<UInt8>) -> ExifOrientation {
        let r = BoundedBytes(Array(tiff))
        let bigEndian: Bool
        if r.matches([0x4D, 0x4D], at: 0) {
            bigEndian = true
        } else if r.matches([0x49, 0x49], at: 0) {
            bigEndian = false
        } else {
            return .normal
        }
        guard r.uint16(at: 2, bigEndian: bigEndian) == 42, let ifd = r.uint32(at: 4, bigEndian: bigEndian), ifd >= 8,
            let entries = r.uint16(at: ifd, bigEndian: bigEndian)
        else { return .normal }
        for index in 0..<min(entries, maximumEntries) {
            let entry = ifd + 2 + index * 12
            guard let tag = r.uint16(at: entry, bigEndian: bigEndian) else { break }
            guard tag == 0x0112 else { continue }
            // Type SHORT (3), count 1: the value sits in the entry's first two value bytes.
            guard r.uint16(at: entry + 2, bigEndian: bigEndian) == 3,
                r.uint32(at: entry + 4, bigEndian: bigEndian) == 1,
                let value = r.uint16(at: entry + 8, bigEndian: bigEndian)
            else { return .normal }
            return ExifOrientation(rawValue: value) ?? .normal
        }
        return .normal
    }

    /// The orientation in an EXIF block that may start with `Exif\0\0`
    /// (JPEG's APP1 always does; WEBP writers differ).
    static func read(exif: ArraySlice<UInt8>) -> ExifOrientation {
        let prefix: [UInt8] = Array("Exif".utf8) + [0, 0]
        if exif.starts(with: prefix) { return read(tiff: exif.dropFirst(prefix.count)) }
        return read(tiff: exif)
    }
}
