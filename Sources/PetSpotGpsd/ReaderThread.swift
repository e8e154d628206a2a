import Glibc

/// The gpsd reader's own thread: libgps calls block, so they never run on
/// an event loop or the concurrency pool. A plain detached POSIX thread
/// (Foundation's `Thread` would link all of Foundation into the daemon).
final class ReaderThread {
    private let name: String
    private let body: @Sendable () -> Void

    private init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    /// Runs `body` on a new detached thread named `name` (the kernel keeps 15 bytes).
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(ReaderThread(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, readerThreadMain, context)
        guard result == 0 else {
            Unmanaged<ReaderThread>.fromOpaque(context).release()
            fatalError("cannot start the \(name) thread: \(String(cString: strerror(result)))")
        }
        pthread_detach(thread)
    }

    /// On the new thread: names it (as `ps -L` and `top -H` show it), then runs the body.
    fileprivate func main() {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if descriptor >= 0 {
            var name = self.name
            _ = name.withUTF8 { write(descriptor, $0.baseAddress, min($0.count, 15)) }
            close(descriptor)
        }
        body()
    }
}

private func readerThreadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    Unmanaged<ReaderThread>.fromOpaque(context!).takeRetainedValue().main()
    return nil
}
