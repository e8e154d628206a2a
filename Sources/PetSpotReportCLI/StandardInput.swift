import FoundationEssentials
import Dispatch
import PetSpotPOSIX

/// Reads standard input line by line without blocking Swift concurrency's
/// threads: each read happens on a dispatch queue of its own.
enum StandardInput {
    /// The thread the reads block (one at a time, in order).
    private static let reader = DispatchQueue(label: "petspot-report.stdin")

    /// The next line without its newline, or `nil` at end of input.
    static func nextLine() async -> String? {
        await withCheckedContinuation { continuation in
            reader.async {
                continuation.resume(returning: readLine(strippingNewline: true))
            }
        }
    }

    /// Writes `text` to standard output at once (no buffering, so prompts show).
    static func write(_ text: String) {
        StandardStreams.writeOutput(text)
    }

    /// Writes `text` and a newline to standard error.
    static func writeError(_ text: String) {
        StandardStreams.writeError(text + "\n")
    }
}
