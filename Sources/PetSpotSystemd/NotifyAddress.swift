import Glibc
import PetSpotPOSIX

/// Where `sd_notify(3)` messages go: the `NOTIFY_SOCKET` address systemd
/// passes to a `Type=notify` service.
///
/// systemd documents two forms for an `AF_UNIX` datagram socket: a file
/// system path (`/run/systemd/notify`) and a Linux abstract-namespace name
/// written with a leading `@` (`@/org/freedesktop/systemd1/notify/…`), whose
/// `sun_path` starts with a NUL byte. (`vsock:` addresses, for virtual
/// machines, are not supported and read as no address.)
public enum NotifyAddress: Sendable, Hashable {
    /// A socket file.
    case path(String)
    /// A name in the abstract namespace, without the leading `@`.
    case abstract(String)

    /// Reads a `NOTIFY_SOCKET` value.
    ///
    /// - Parameter value: the variable's value.
    /// - Returns: the address, or `nil` for an empty, relative, over-long or
    ///   unsupported value.
    public init?(_ value: String) {
        if value.hasPrefix("/") {
            self = .path(value)
        } else if value.hasPrefix("@"), value.utf8.count > 1 {
            self = .abstract(String(value.dropFirst()))
        } else {
            return nil
        }
        // The path and its NUL, or the leading NUL and the name, must fit `sun_path`.
        guard socketAddress != nil else { return nil }
    }

    /// The kernel's form of the address; `nil` when it does not fit `sun_path`.
    var socketAddress: UnixSocketAddress? {
        switch self {
        case .path(let path): UnixSocketAddress(path: path)
        case .abstract(let name): UnixSocketAddress(abstract: name)
        }
    }

    /// The bytes of `sun_path` (without padding) as the kernel expects them:
    /// a path with its terminating NUL; an abstract name after a leading NUL.
    public var socketPathBytes: [UInt8] { socketAddress?.sunPath ?? [] }
}
