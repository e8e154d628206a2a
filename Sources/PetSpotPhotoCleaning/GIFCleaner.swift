/// GIF: the block stream rewritten without comment extensions and
/// application extensions other than the looping ones (see ``PhotoCleaner``).
enum GIFCleaner {
    /// Application extensions kept: animation loop counts.
    static let keptApplications: Set<[UInt8]> = [Array("NETSCAPE2.0".utf8), Array("ANIMEXTS1.0".utf8)]

    static func clean(_ bytes: [UInt8]) throws(PhotoCleaningError) -> [UInt8] {
        let r = BoundedBytes(bytes)
        guard r.matches(Array("GIF87a".utf8), at: 0) || r.matches(Array("GIF89a".utf8), at: 0),
            let flags = r.byte(at: 10)
        else { throw .damaged("GIF without its header") }
        var offset = 13 + colorTableSize(flags)
        guard offset <= bytes.count else { throw .damaged("GIF colour table runs past the end") }
        var output = Array(bytes[..<offset])
        output.reserveCapacity(bytes.count)
        while true {
            guard let introducer = r.byte(at: offset) else { throw .damaged("GIF ends without its trailer") }
            switch introducer {
            case 0x3B:  // trailer; anything after it is dropped
                output.append(0x3B)
                return output
            case 0x2C:  // image: descriptor, local colour table, LZW code size, data sub-blocks
                guard let localFlags = r.byte(at: offset + 9) else { throw .damaged("GIF image descriptor cut short") }
                let start = offset
                offset += 10 + colorTableSize(localFlags) + 1
                offset = try skipSubBlocks(r, from: offset)
                output += bytes[start..<offset]
            case 0x21:  // extension: label, sub-blocks
                guard let label = r.byte(at: offset + 1) else { throw .damaged("GIF extension cut short") }
                let start = offset
                let end = try skipSubBlocks(r, from: offset + 2)
                if keeps(label: label, firstBlock: offset + 2, in: r) { output += bytes[start..<end] }
                offset = end
            default:
                throw .damaged("GIF block with unknown introducer \(introducer) at byte \(offset)")
            }
        }
    }

    /// Graphic control and plain text extensions stay; comments go;
    /// application extensions stay only when they set the loop count.
    private static func keeps(label: UInt8, firstBlock: Int, in r: BoundedBytes) -> Bool {
        switch label {
        case 0xF9, 0x01: true
        case 0xFF:
            r.byte(at: firstBlock) == 11
                && keptApplications.contains { r.matches($0, at: firstBlock + 1) }
        default: false
        }
    }

    /// Bytes in a colour table announced by a packed flags byte.
    private static func colorTableSize(_ flags: UInt8) -> Int {
        flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 0x07) + 1)
    }

    /// The offset after the sub-blocks starting at `offset` and their terminator.
    private static func skipSubBlocks(_ r: BoundedBytes, from start: Int) throws(PhotoCleaningError) -> Int {
        var offset = start
        while true {
            guard let size = r.byte(at: offset) else { throw .damaged("GIF data runs past the end") }
            offset += 1 + Int(size)
            if size == 0 { return offset }
        }
    }
}
