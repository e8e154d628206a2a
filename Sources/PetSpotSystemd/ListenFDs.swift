import Glibc

/// Sockets passed by systemd socket activation (`sd_listen_fds(3)`):
/// `LISTEN_FDS` descriptors starting at 3, meant for the process whose id is
/// `LISTEN_PID`, optionally named by `LISTEN_FDNAMES` (colon-separated).
public struct ListenFDs: Sendable, Hashable {
    /// The first passed descriptor (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: Int32 = 3
    /// More descriptors than this are not believed (a corrupt environment).
    public static let maximumCount = 1024

    /// One passed descriptor.
    public struct Descriptor: Sendable, Hashable {
        /// The file descriptor number.
        public var fd: Int32
        /// Its name from `LISTEN_FDNAMES` (`FileDescriptorName=`), when given.
        public var name: String?

        /// Creates a descriptor entry.
        public init(fd: Int32, name: String?) {
            self.fd = fd
            self.name = name
        }
    }

    /// The passed descriptors, in order.
    public var descriptors: [Descriptor]

    /// Creates a set of passed descriptors.
    public init(descriptors: [Descriptor]) { self.descriptors = descriptors }

    /// Reads the variables (pure: no descriptor is touched).
    ///
    /// - Parameters:
    ///   - environment: the process environment.
    ///   - pid: this process's id; `LISTEN_PID` must equal it, so a child that
    ///     inherited the variables does not take its parent's sockets.
    /// - Returns: `nil` when nothing was passed to this process, or the
    ///   variables are malformed. Names are dropped unless there is exactly
    ///   one per descriptor.
    public init?(environment: [String: String], pid: Int32) {
        guard let owner = environment["LISTEN_PID"].flatMap({ Int32($0) }), owner == pid,
            let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count > 0, count <= Self.maximumCount
        else { return nil }
        var names: [String?] = Array(repeating: nil, count: count)
        if let text = environment["LISTEN_FDNAMES"] {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            if parts.count == count { names = parts.map { $0.isEmpty ? nil : $0 } }
        }
        descriptors = (0..<count).map { Descriptor(fd: Self.firstDescriptor + Int32($0), name: names[$0]) }
    }

    /// The variables socket activation sets.
    public static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    /// Takes the sockets passed to this process, once.
    ///
    /// Reads the process environment, then unsets the variables (so children
    /// never inherit them) and marks every passed descriptor close-on-exec,
    /// as `sd_listen_fds(1)` does. Call it early, before other threads read
    /// the environment.
    ///
    /// - Parameter environment: the environment to read (the process's own by default).
    public static func take(environment: [String: String] = currentEnvironment()) -> ListenFDs? {
        let passed = ListenFDs(environment: environment, pid: getpid())
        for variable in variables { unsetenv(variable) }
        for descriptor in passed?.descriptors ?? [] {
            let flags = fcntl(descriptor.fd, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor.fd, F_SETFD, flags | FD_CLOEXEC) }
        }
        return passed
    }

    /// The socket-activation variables of the process environment.
    public static func currentEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for variable in variables {
            if let value = getenv(variable) { environment[variable] = String(cString: value) }
        }
        return environment
    }

    /// The first descriptor that is a listening Unix stream socket, preferring
    /// one named `preferredName`.
    public func listeningUnixStream(preferredName: String? = nil) -> Descriptor? {
        let usable = descriptors.filter { SocketInspection.isListeningUnixStream($0.fd) }
        if let preferredName, let named = usable.first(where: { $0.name == preferredName }) { return named }
        return usable.first
    }
}

/// Questions about a file descriptor, answered by the kernel.
public enum SocketInspection {
    /// Whether `fd` is an `AF_UNIX` `SOCK_STREAM` socket in the listening state
    /// (`SO_DOMAIN`, `SO_TYPE`, `SO_ACCEPTCONN`).
    public static func isListeningUnixStream(_ fd: Int32) -> Bool {
        integerOption(fd, SO_DOMAIN) == AF_UNIX && integerOption(fd, SO_TYPE) == Int32(SOCK_STREAM.rawValue)
            && integerOption(fd, SO_ACCEPTCONN) == 1
    }

    /// The path a Unix socket is bound to, or `nil` (not a socket, unbound,
    /// or abstract).
    public static func boundPath(_ fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let bytes = withUnsafeBytes(of: address.sun_path) { Array($0) }
        let used = max(0, Int(length) - MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!)
        let path = bytes.prefix(min(used, bytes.count)).prefix { $0 != 0 }
        guard !path.isEmpty else { return nil }
        return String(decoding: path, as: UTF8.self)
    }

    private static func integerOption(_ fd: Int32, _ option: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, option, &value, &length) == 0 else { return nil }
        return value
    }
}
