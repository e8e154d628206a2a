import Glibc

/// A system call that failed: which one, and its `errno`.
public struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call, as a reader would look it up (`open`, `write`, `connect`).
    public let call: String
    /// The `errno` it set.
    public let code: Int32

    /// The failure of `call`, with `errno` as it is now unless `code` is given.
    public init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    /// `strerror` of the code ("No such file or directory").
    public var reason: String { String(cString: strerror(code)) }

    public var description: String { "\(call): \(reason)" }
}
