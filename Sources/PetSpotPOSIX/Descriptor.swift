import Glibc

/// Writing a whole buffer to a file descriptor: short writes continued,
/// `EINTR` retried, any other failure thrown.
public enum Descriptor {
    /// Writes all of `bytes` with `write(2)`.
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        try loop(bytes, call: "write") { write(descriptor, $0, $1) }
    }

    /// Writes all of `bytes` with `write(2)`.
    public static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(SystemCallError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(SystemCallError) in try writeAll(descriptor, raw) } }
            .get()
    }

    /// Sends all of `bytes` on a socket with `send(2)` and `MSG_NOSIGNAL`:
    /// a peer that has gone is an `EPIPE` error, not a `SIGPIPE`.
    public static func sendAll(_ socket: Int32, _ bytes: [UInt8]) throws(SystemCallError) {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(SystemCallError) in
                try loop(raw, call: "send") { send(socket, $0, $1, Int32(MSG_NOSIGNAL)) }
            }
        }.get()
    }

    private static func loop(
        _ bytes: UnsafeRawBufferPointer, call: String, _ transfer: (UnsafeRawPointer, Int) -> Int
    ) throws(SystemCallError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let done = transfer(base + offset, bytes.count - offset)
            if done < 0 {
                if errno == EINTR { continue }
                throw SystemCallError(call)
            }
            offset += done
        }
    }
}
