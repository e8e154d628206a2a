import PetSpotJSON

/// The reader's fast path for a TPV line as gpsd writes it: one pass over
/// the bytes, no JSON tree, no dictionary, no heap allocation (issue 40).
///
/// It decides only lines it can check completely by itself, and hands
/// every other line back (`nil`) to the strict path
/// (``GpsdReport/checkedTPV(_:)`` and ``GpsdReport/init(members:)``), which
/// then accepts or rejects it with its reason. A line it decides gives
/// exactly the strict path's report. It decides a line when:
/// - it begins `{"class":"TPV",` (or is `{"class":"TPV"}`), and ends at its
///   `}` (whitespace after it allowed);
/// - there is no whitespace between tokens, every member name and string
///   is printable ASCII without a backslash (so no escape, no NUL, no
///   UTF-8 to validate), and every value is a string or a number (no
///   `true`, `false`, `null`, object or array);
/// - no member name comes twice (the strict parser rejects duplicates);
/// - every member libgps 3.22 knows (``GpsdReport/tpvMembers``) has the
///   type and length the strict check asks for.
///
/// A number is read by ``JSONNumber/read(_:at:)``, the strict parser's own
/// reader, so both give the same `Double` for the same text.
/// `GpsdReportLineTests` and `TPVScannerTests` hold it to the strict path
/// on gpsd's output for the real captures and on hostile lines; the gpsd
/// fuzz target does the same on every input.
enum TPVScanner {
    /// A known member: its name, the type libgps reads it as, where its value goes.
    private struct Member {
        let name: [UInt8]
        let type: GpsdReport.MemberType
        let field: GpsdReport.Field?
    }

    /// ``GpsdReport/tpvMembers``, and `class` last (index ``classIndex``).
    private static let members: [Member] = {
        var members = GpsdReport.tpvMembers.sorted { $0.key < $1.key }.map { name, type in
            Member(name: Array(name.utf8), type: type, field: GpsdReport.fields[name])
        }
        members.append(Member(name: Array("class".utf8), type: .string(bytes: 3), field: nil))
        return members
    }()
    private static let classIndex = members.count - 1

    /// A member name of at most 16 bytes as two little-endian words and its length: compared in three steps.
    private struct PackedName: Equatable {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var count = 0

        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count <= 16 else { return nil }
            count = bytes.count
            for (offset, byte) in bytes.enumerated() {
                if offset < 8 {
                    low |= UInt64(byte) << UInt64(8 * offset)
                } else {
                    high |= UInt64(byte) << UInt64(8 * (offset - 8))
                }
            }
        }

        /// A slot in ``table``.
        var slot: Int { Int(truncatingIfNeeded: (low &* 0x9E37_79B9_7F4A_7C15 ^ high ^ UInt64(count)) >> 57) }
    }

    /// ``members``' names by ``PackedName/slot`` (128 slots, linear probing): the index, or -1.
    private static let table: [(name: PackedName, index: Int)?] = {
        var table = [(name: PackedName, index: Int)?](repeating: nil, count: 128)
        for (index, member) in members.enumerated() {
            let name = member.name.withUnsafeBytes { PackedName($0)! }
            var slot = name.slot
            while table[slot] != nil { slot = (slot + 1) & 127 }
            table[slot] = (name, index)
        }
        return table
    }()

    /// At most this many member names libgps does not know (a newer gpsd adds a few); more: the strict path.
    private static let maximumUnknown = 16

    private static let start = Array(#"{"class":"TPV""#.utf8)

    /// The report of `line` when this scanner can decide it, `nil` when the strict path must.
    static func report(_ line: UnsafeRawBufferPointer) -> GpsdReport? {
        precondition(members.count <= 64, "a 64-bit set of seen members")
        guard line.count > start.count, line.starts(with: start) else { return nil }
        // The report being built and the members seen so far.
        return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: maximumUnknown) { unknown in
            var report = GpsdReport(mode: 0)
            var seen: UInt64 = 1 << UInt64(classIndex)
            var unknownCount = 0
            var index = start.count
            while true {
                // After a value: `,` and the next member, or the end.
                guard index < line.count else { return nil }
                if line[index] == UInt8(ascii: "}") { break }
                guard line[index] == UInt8(ascii: ","), index + 1 < line.count, line[index + 1] == UInt8(ascii: "\"")
                else { return nil }
                guard let name = plainString(line, from: index + 1) else { return nil }
                index = name.upperBound + 1
                guard index < line.count, line[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                let known = lookUp(UnsafeRawBufferPointer(rebasing: line[name]))
                if let known {
                    let bit: UInt64 = 1 << UInt64(known)
                    guard seen & bit == 0 else { return nil }
                    seen |= bit
                } else {
                    for other in unknown[..<unknownCount] where other.count == name.count {
                        if line[other].elementsEqual(line[name]) { return nil }
                    }
                    guard unknownCount < maximumUnknown else { return nil }
                    unknown.initializeElement(at: unknownCount, to: name)
                    unknownCount += 1
                }
                guard index < line.count else { return nil }
                let member = known.map { members[$0] }
                if line[index] == UInt8(ascii: "\"") {
                    guard let text = plainString(line, from: index) else { return nil }
                    index = text.upperBound + 1
                    guard let member else { continue }
                    guard case .string(let limit) = member.type, text.count <= limit else { return nil }
                    if let field = member.field {
                        report.set(field, text: UnsafeRawBufferPointer(rebasing: line[text]))
                    }
                } else {
                    guard case .success(let number) = JSONNumber.read(line, at: &index) else { return nil }
                    guard let member else { continue }
                    switch member.type {
                    case .real: break
                    case .integer:
                        guard number == number.rounded(.towardZero), Double(Int32.min) <= number,
                            number <= Double(Int32.max)
                        else { return nil }
                    case .string: return nil
                    }
                    if let field = member.field { report.set(field, number: number) }
                }
            }
            index += 1
            while index < line.count {
                switch line[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return nil
                }
            }
            return report
        }
    }

    /// The bytes inside the string that starts with the `"` at `quote`, when
    /// they are printable ASCII without a backslash and the string ends.
    private static func plainString(_ line: UnsafeRawBufferPointer, from quote: Int) -> Range<Int>? {
        var index = quote + 1
        while index < line.count {
            let byte = line[index]
            if byte == UInt8(ascii: "\"") { return (quote + 1)..<index }
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    /// The index in ``members`` of a known member name.
    private static func lookUp(_ name: UnsafeRawBufferPointer) -> Int? {
        guard let packed = PackedName(name) else { return nil }
        var slot = packed.slot
        while let entry = table[slot] {
            if entry.name == packed { return entry.index }
            slot = (slot + 1) & 127
        }
        return nil
    }
}
