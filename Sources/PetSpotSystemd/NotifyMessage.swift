/// One `sd_notify(3)` datagram: newline-separated `KEY=VALUE` assignments.
///
/// The constructors cover what petspot-locationd tells systemd; ``text`` is
/// exactly what goes on the wire.
public struct NotifyMessage: Sendable, Hashable, CustomStringConvertible {
    /// The assignments, in order.
    public var fields: [Field]

    /// One `KEY=VALUE` assignment.
    public struct Field: Sendable, Hashable {
        /// The variable name (`READY`, `STATUS`, …).
        public var key: String
        /// Its value; newlines are replaced by spaces when sent.
        public var value: String

        /// Creates an assignment.
        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    /// Creates a message from assignments.
    public init(_ fields: [Field]) { self.fields = fields }

    /// `READY=1`: startup (or a reload) finished; the service is serving.
    public static func ready(status: String? = nil) -> NotifyMessage {
        NotifyMessage([Field("READY", "1")] + statusField(status))
    }

    /// `RELOADING=1` with `MONOTONIC_USEC`: a reload started (systemd 253+
    /// needs the timestamp for `Type=notify-reload`; older versions ignore it).
    /// - Parameter monotonicMicroseconds: `CLOCK_MONOTONIC` now, in µs.
    public static func reloading(monotonicMicroseconds: UInt64, status: String? = nil) -> NotifyMessage {
        NotifyMessage(
            [Field("RELOADING", "1"), Field("MONOTONIC_USEC", String(monotonicMicroseconds))] + statusField(status))
    }

    /// `STOPPING=1`: a clean shutdown started.
    public static func stopping(status: String? = nil) -> NotifyMessage {
        NotifyMessage([Field("STOPPING", "1")] + statusField(status))
    }

    /// `WATCHDOG=1`: the keep-alive ping.
    public static let watchdog = NotifyMessage([Field("WATCHDOG", "1")])

    /// `STATUS=…`: free-form text shown by `systemctl status`.
    public static func status(_ text: String) -> NotifyMessage { NotifyMessage([Field("STATUS", text)]) }

    private static func statusField(_ status: String?) -> [Field] {
        status.map { [Field("STATUS", $0)] } ?? []
    }

    /// The datagram's text: one assignment per line.
    public var text: String {
        fields.map { field in
            let value = String(field.value.map { $0.isNewline ? " " : $0 })
            return "\(field.key)=\(value)"
        }.joined(separator: "\n")
    }

    public var description: String { text.replacingNewlines() }
}

extension String {
    fileprivate func replacingNewlines() -> String { String(map { $0 == "\n" ? " " : $0 }) }
}
