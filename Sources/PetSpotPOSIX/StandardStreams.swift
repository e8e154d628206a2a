/// Standard output and error written at once, unbuffered (what Foundation's
/// `FileHandle` did; every program here links only FoundationEssentials).
public enum StandardStreams {
    /// Writes `text` to standard output (file descriptor 1).
    public static func writeOutput(_ text: String) {
        // Nothing to do when the stream itself fails.
        try? Descriptor.writeAll(1, Array(text.utf8))
    }

    /// Writes `text` to standard error (file descriptor 2).
    public static func writeError(_ text: String) {
        try? Descriptor.writeAll(2, Array(text.utf8))
    }
}
