/// Text from others made safe to print on a terminal.
///
/// Executable paths, unit names, user names, gpsd's device string and error
/// reasons come from whoever names a file, a unit or a device: printed raw,
/// an escape sequence in them would drive the reader's terminal (retitle
/// it, move the cursor over earlier lines, on some terminals answer back).
/// Every control character (C0, DEL and C1) is shown as a visible escape
/// instead: `\e` for ESC, `\n`, `\r`, `\t`, else `\xHH` or `\u{HHHH}`.
public enum TerminalText {
    /// `text` with every control character replaced by a visible escape;
    /// a backslash is doubled so that an escape cannot be forged.
    public static func escaped(_ text: some StringProtocol) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x5C: result += "\\\\"
            case 0x1B: result += "\\e"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x09: result += "\\t"
            case 0x00..<0x20, 0x7F: result += "\\x" + hex(scalar.value, width: 2)
            case 0x80..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                // C1 controls (0x9B is a one-byte CSI on some terminals), line
                // separators and bidirectional overrides (which reorder what is shown).
                result += "\\u{" + hex(scalar.value, width: 4) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// One JSON line made safe for a terminal while staying the same JSON:
    /// C1 controls, DEL and the separators/overrides above are written as
    /// `\uHHHH` (JSON writers leave them raw); a C0 control, which valid JSON
    /// never holds raw, as well.
    public static func escapedJSONLine(_ line: some StringProtocol) -> String {
        var result = ""
        result.reserveCapacity(line.utf8.count)
        for scalar in line.unicodeScalars {
            switch scalar.value {
            case 0x00..<0x20, 0x7F, 0x80..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                result += "\\u" + hex(scalar.value, width: 4)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: false)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
