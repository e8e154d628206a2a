import Glibc
import PetSpotPOSIX
import CProcessPin
import PetSpotPolicy
import Synchronization

/// A client's process, pinned at accept (SPEC §3, hardening item 13): a
/// pidfd that refers to that process and no other for as long as it is
/// open, the process's start time, and its executable as read at accept.
///
/// Identity (names, groups, unit, executable) is read later, off the event
/// loop; ``confirms(executable:)`` then says whether it is still the same
/// process, unchanged: not exited (pid reuse), same start time, and the same
/// executable (no exec of a trusted binary after accepting). A client that
/// cannot be pinned has an unknown executable, which every rule naming one
/// matches.
///
/// What no pin can see: a process can exec a trusted binary between its
/// `connect` and the daemon's `accept` (the kernel keeps no record of the
/// executable at connect time), and a process can hand its connected socket
/// to others. So a rule naming an executable only takes away (issue 29
/// item 8, `Policy.resolve`, docs/ROBUSTNESS.md).
final class ProcessPin: Sendable {
    /// The pidfd (`SO_PEERPIDFD` on Linux 6.5+, else `pidfd_open` right after
    /// `SO_PEERCRED`); -1 when neither worked, or once released.
    private let pidfd: Atomic<Int32>
    let pid: Int32
    /// Field 22 of `/proc/PID/stat`, in clock ticks since boot.
    let startTime: UInt64?
    /// `/proc/PID/exe` at accept.
    let executable: String?

    /// `SO_PEERPIDFD`, which Glibc's headers of this era may not define.
    static let peerPidfdOption: Int32 = 77

    init(descriptor: Int32, pid: Int32, procRoot: String = "/proc") {
        let resolver = PeerIdentityResolver(procRoot: procRoot)
        self.pidfd = Atomic(descriptor >= 0 ? descriptor : petspot_pidfd_open(pid))
        self.pid = pid
        self.startTime = Self.startTime(pid: pid, procRoot: procRoot)
        self.executable = resolver.executable(pid: pid)
    }

    deinit { release() }

    /// Closes the pidfd (the identity is settled; one descriptor less per client).
    func release() {
        let descriptor = pidfd.exchange(-1, ordering: .acquiringAndReleasing)
        if descriptor >= 0 { close(descriptor) }
    }

    /// Whether the process read now is still the one pinned at accept, with
    /// the executable `executable` it had then.
    func confirms(executable current: String?, procRoot: String = "/proc") -> Bool {
        guard let startTime, isAlive,
            Self.startTime(pid: pid, procRoot: procRoot) == startTime,
            current == executable
        else { return false }
        return true
    }

    /// A pidfd becomes readable when its process exits.
    private var isAlive: Bool {
        let descriptor = pidfd.load(ordering: .acquiring)
        guard descriptor >= 0 else { return false }
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) == 0
    }

    /// The start time of `pid` (field 22 of `/proc/PID/stat`, after the
    /// parenthesised command name, which may itself hold spaces or parentheses).
    static func startTime(pid: Int32, procRoot: String = "/proc") -> UInt64? {
        guard let text = BoundedFile.text("\(procRoot)/\(pid)/stat", limit: 65_536),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, so starttime (22) is the 20th.
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }
}

import NIOCore

extension ProcessPin {
    /// Pins the peer of an accepted channel (`pid` from `SO_PEERCRED`): its
    /// `SO_PEERPIDFD` when the kernel has it, else `pidfd_open(pid)`.
    static func take(from channel: any Channel, pid: Int32) -> EventLoopFuture<ProcessPin> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(ProcessPin(descriptor: -1, pid: pid))
        }
        let option: EventLoopFuture<Int32> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(peerPidfdOption))
        return option.map { ProcessPin(descriptor: $0, pid: pid) }
            .recover { _ in ProcessPin(descriptor: -1, pid: pid) }
    }
}
