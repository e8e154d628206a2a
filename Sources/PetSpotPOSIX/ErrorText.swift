import Glibc

import FoundationEssentials

/// An error in words for a message: a file operation's failure as the
/// system says it (`No such file or directory`), anything else as it
/// describes itself. (Foundation's `localizedDescription`, which
/// FoundationEssentials does not have.)
public enum ErrorText {
    public static func describe(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        if let cocoa = error as? CocoaError, let posix = cocoa.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        return "\(error)"
    }
}
