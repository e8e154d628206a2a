#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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

    /// Longest `sun_path` content (the field is 108 bytes on Linux).
    static let maximumLength = 108

    /// Reads a `NOTIFY_SOCKET` value.
    ///
    /// - Parameter value: the variable's value.
    /// - Returns: the address, or `nil` for an empty, relative, over-long or
    ///   unsupported value.
    public init?(_ value: String) {
        if value.hasPrefix("/") {
            guard value.utf8.count < Self.maximumLength else { return nil }
            self = .path(value)
        } else if value.hasPrefix("@"), value.utf8.count > 1 {
            let name = String(value.dropFirst())
            // The leading NUL plus the name must fit; no terminating NUL.
            guard name.utf8.count + 1 <= Self.maximumLength else { return nil }
            self = .abstract(name)
        } else {
            return nil
        }
    }

    /// The bytes of `sun_path` (without padding) as the kernel expects them.
    public var socketPathBytes: [UInt8] {
        switch self {
        case .path(let path): Array(path.utf8) + [0]
        case .abstract(let name): [0] + Array(name.utf8)
        }
    }

    /// Calls `body` with the `sockaddr_un` and the length to pass to `sendto`.
    ///
    /// For a path the length covers the terminating NUL; for an abstract name
    /// it covers exactly the leading NUL and the name, as the kernel requires.
    func withSocketAddress<Result>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result
    ) rethrows -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = socketPathBytes
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes.prefix(raw.count))
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + bytes.count
        return try withUnsafePointer(to: &address) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, socklen_t(length)) }
        }
    }
}
