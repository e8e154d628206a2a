import Glibc
import PetSpotPOSIX

/// Sends service state to systemd: the `sd_notify(3)` protocol implemented
/// directly, as systemd documents it, with no libsystemd dependency.
///
/// Each message is one `AF_UNIX` datagram sent to the address in
/// `NOTIFY_SOCKET` (a path or an `@abstract` name), from a fresh
/// close-on-exec socket, like `sd_notify` does. Without `NOTIFY_SOCKET`
/// (started by hand, or `Type=simple`) every call is a no-op, so the daemon
/// needs no separate "systemd mode".
///
/// The variable is read once, at ``init(environment:)``; sending never
/// blocks the caller (`MSG_DONTWAIT`) and failures are returned, not thrown,
/// since nothing a daemon does should stop because systemd went away.
public struct SystemdNotifier: Sendable {
    /// The destination; `nil` when notifications are off.
    public let address: NotifyAddress?

    /// A notifier that sends nothing.
    public static let disabled = SystemdNotifier(address: nil)

    /// Creates a notifier for an explicit address (tests, or `nil` for none).
    public init(address: NotifyAddress?) { self.address = address }

    /// Creates a notifier from `NOTIFY_SOCKET` in `environment`.
    ///
    /// - Parameter environment: the process environment (injectable for tests).
    public init(environment: [String: String]) {
        self.address = environment["NOTIFY_SOCKET"].flatMap(NotifyAddress.init)
    }

    /// Whether messages go anywhere.
    public var isEnabled: Bool { address != nil }

    /// Why a message was not delivered.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The failed call.
        public var operation: String
        /// `errno` after it.
        public var code: Int32

        public var description: String { "\(operation): \(String(cString: strerror(code)))" }
    }

    /// Sends one message.
    ///
    /// - Returns: `nil` when sent (or when notifications are off), else why not.
    @discardableResult
    public func send(_ message: NotifyMessage) -> Failure? {
        guard let address = address?.socketAddress else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return Failure(operation: "socket", code: errno) }
        defer { close(descriptor) }
        let bytes = Array(message.text.utf8)
        let sent = address.withSockaddr { pointer, length in
            bytes.withUnsafeBytes { buffer in
                sendto(
                    descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), pointer, length)
            }
        }
        guard sent >= 0 else { return Failure(operation: "sendto NOTIFY_SOCKET", code: errno) }
        return nil
    }

    /// `CLOCK_MONOTONIC` now, in microseconds (the clock `MONOTONIC_USEC` uses).
    public static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
