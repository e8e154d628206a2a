/// Why the sender could not run or could not make an attempt.
public enum DeliveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The token file is missing, unreadable, empty or malformed.
    case token(String)
    /// Another process is sending from this outbox.
    case anotherSender(pid: Int32?, lockFile: String)
    /// The configuration cannot be used.
    case configuration(String)

    public var description: String {
        switch self {
        case .token(let message): message
        case .anotherSender(let pid, let lockFile):
            "another sender is running on this outbox" + (pid.map { " (pid \($0))" } ?? "") + " — it holds \(lockFile)"
        case .configuration(let message): message
        }
    }
}
