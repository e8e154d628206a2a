/// Bounds-checked reads over a byte array: every read outside the array
/// gives `nil`, so offsets and lengths taken from a file are never trusted.
struct BoundedBytes {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }

    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    func matches(_ pattern: [UInt8], at offset: Int) -> Bool {
        offset >= 0 && offset <= bytes.count - pattern.count
            && bytes[offset..<(offset + pattern.count)].elementsEqual(pattern)
    }

    func uint16(at offset: Int, bigEndian: Bool) -> Int? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let a = Int(bytes[offset])
        let b = Int(bytes[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func uint32(at offset: Int, bigEndian: Bool) -> Int? {
        guard offset >= 0, offset <= bytes.count - 4 else { return nil }
        let value = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
        guard !bigEndian else { return value }
        return (value & 0xFF) << 24 | (value & 0xFF00) << 8 | (value >> 8) & 0xFF00 | value >> 24
    }

    /// The bytes in `range`, or `nil` when it is not inside the array.
    func slice(_ range: Range<Int>) -> ArraySlice<UInt8>? {
        range.lowerBound >= 0 && range.upperBound <= bytes.count ? bytes[range] : nil
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` as four little-endian bytes.
    mutating func appendUInt32LE(_ value: Int) {
        for shift in stride(from: 0, through: 24, by: 8) { append(UInt8(truncatingIfNeeded: value >> shift)) }
    }
}
