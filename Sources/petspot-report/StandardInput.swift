import Foundation

/// Reads standard input line by line without blocking Swift concurrency's
/// threads: each read happens on its own thread.
enum StandardInput {
    /// The next line without its newline, or `nil` at end of input.
    static func nextLine() async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: readLine(strippingNewline: true))
            }
        }
    }

    /// Writes `text` to standard output at once (no buffering, so prompts show).
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `text` and a newline to standard error.
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
