/// Identifies one accepted connection for its lifetime.
public struct ConnectionID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "#\(rawValue)" }
}
