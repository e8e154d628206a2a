import CLibGPS
import Glibc
import PetSpotLocation
import PetSpotSettings
import Synchronization

/// What the reader thread hands the producer, on the reader thread.
enum ReaderEvent: Sendable {
    /// gpsd sent its first complete line (of any content) on this connection.
    case alive
    /// A TPV report, decoded as libgps reads it.
    case report(GpsdReport)
    /// A line that was not usable (not strict JSON, a TPV member of the
    /// wrong type, over 8192 bytes, …), with the reason.
    case malformed(String)
}

/// A one-way stop request from the async side to the reader thread: a flag,
/// and an `eventfd` the thread's `poll` waits on beside the socket, so a
/// stop wakes it at once and nothing else needs to (no periodic wake-up).
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    /// Readable once stopped; -1 when no eventfd could be made (the thread then polls).
    let descriptor: Int32 = petspot_stop_eventfd()
    /// The reader thread's kernel id, once it runs (tests count its wake-ups).
    let readerThread = Atomic<Int32>(0)

    deinit { if descriptor >= 0 { close(descriptor) } }

    func stop() {
        flag.store(true, ordering: .relaxed)
        if descriptor >= 0 { _ = eventfd_write(descriptor, 1) }
    }

    var isStopped: Bool { flag.load(ordering: .relaxed) }
}

/// One gpsd connection on a dedicated thread.
///
/// libgps connects (`gps_open`, blocking), sends the WATCH command
/// (`gps_stream`) and closes (`gps_close`); in between the thread reads the
/// socket itself, never through `gps_read`: it waits in `poll` on the socket
/// and the stop request (``StopFlag``) until the silence watchdog's
/// deadline, so it wakes only for data, a stop or the deadline (no periodic
/// wake-up: a 1 Hz receiver costs the wake-ups of its lines, nothing more),
/// reads what is there without blocking, splits it into
/// lines of at most 8192 bytes (``GpsdLineBuffer``, each line lent from
/// the read without a copy), and gives each line to
/// ``GpsdReport/init(line:)``, which checks and decodes a TPV as gpsd
/// writes it in one pass over its bytes (``TPVScanner``), and any other
/// line with our strict JSON parser. libgps 3.22's
/// parser loops forever on some lines a peer could send
/// (docs/ROBUSTNESS.md); it never sees them.
///
/// Every complete line, whatever it holds, counts as gpsd talking: the
/// first one makes the session alive, and the silence watchdog ends a
/// session after ``GpsdSettings/silenceTimeout`` without one (bytes
/// that never end a line do not count). Every path ends with `gps_close`
/// and frees the `gps_data_t` before ``run(_:stop:handle:)`` returns, so
/// a returned session's socket is closed.
enum GpsdReader {
    /// Runs one session on a thread of its own, calling `handle` there
    /// with each event as its line arrives: no task and no other thread
    /// wakes for a line (a fix reaches the hub and its observers from the
    /// reader thread). Cancelling the calling task stops the session at
    /// once (``StopFlag``).
    /// - Parameters:
    ///   - stop: the session's stop request (a test reads its thread id).
    ///   - handle: called on the reader thread, in line order; it must
    ///     return quickly, it holds up the reading.
    /// - Returns: why the session ended, once the socket is closed.
    static func run(
        _ settings: GpsdSettings, stop: StopFlag = StopFlag(),
        handle: @escaping @Sendable (ReaderEvent) -> Void
    ) async -> String {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
                ReaderThread.start(name: "petspot-gpsd") {
                    stop.readerThread.store(petspot_thread_id(), ordering: .relaxed)
                    continuation.resume(returning: session(settings, stop: stop, emit: handle))
                }
            }
        } onCancel: {
            stop.stop()
        }
    }

    /// Runs one connection to its end; returns why it ended.
    private static func session(
        _ settings: GpsdSettings, stop: StopFlag, emit: (ReaderEvent) -> Void
    ) -> String {
        guard let raw = calloc(1, MemoryLayout<gps_data_t>.stride) else { return "out of memory" }
        let data = raw.bindMemory(to: gps_data_t.self, capacity: 1)
        defer { free(raw) }

        let endpoint = "\(settings.host):\(settings.port)"
        if stop.isStopped { return "stopped" }
        guard gps_open(settings.host, String(settings.port), data) == 0 else {
            return "cannot connect to gpsd at \(endpoint): \(String(cString: gps_errstr(errno)))"
        }
        defer { _ = gps_close(data) }

        let fd = data.pointee.gps_fd
        // Before a byte is read: is it gpsd (root's or the configured user's socket)?
        if case .refused(let why) = GpsdSocketOwner.check(descriptor: fd, owner: settings.owner) {
            return "refused gpsd at \(endpoint): \(why)"
        }
        guard petspot_set_nonblocking(fd) == 0 else { return "cannot configure the gpsd socket" }
        guard gps_stream(data, petspot_watch_json_flags(), nil) == 0 else {
            return "gpsd at \(endpoint) did not accept the WATCH command"
        }

        var lines = GpsdLineBuffer()
        let maximumLength = lines.maximumLength
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var lastLine = ContinuousClock.now
        var spoke = false

        while !stop.isStopped {
            let left = lastLine + settings.silenceTimeout - ContinuousClock.now
            if left < .zero {
                return "gpsd at \(endpoint) sent no complete line for \(settings.silenceTimeout) (silence timeout)"
            }
            guard waitForInput(fd, orStop: stop.descriptor, upTo: left) else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return "gpsd at \(endpoint) closed the connection" }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                return "reading from gpsd at \(endpoint) failed: \(String(cString: strerror(errno)))"
            }
            buffer.withUnsafeBytes { bytes in
                lines.appendLines(UnsafeRawBufferPointer(rebasing: bytes[..<count])) { piece in
                    lastLine = .now
                    if !spoke {
                        spoke = true
                        emit(.alive)
                    }
                    switch piece {
                    case .line(let line):
                        do throws(GpsdReport.LineProblem) {
                            emit(.report(try GpsdReport(line: line)))
                        } catch {
                            switch error {
                            case .notTPV: break  // VERSION, DEVICES, WATCH, SKY, …: the source only needs TPV.
                            case .rejected(let reason): emit(.malformed(reason))
                            }
                        }
                    case .overlong(let length):
                        emit(.malformed("a line of \(length) bytes, over \(maximumLength), discarded"))
                    }
                }
            }
        }
        return "stopped"
    }

    /// Waits until `fd` is readable, closed or failed, `stop` is readable,
    /// or `time` is up (rounded up to a millisecond); without a `stop`
    /// descriptor, for at most 250 ms at a time.
    /// - Returns: whether `fd` has something (data, end or error) to read.
    private static func waitForInput(_ fd: Int32, orStop stop: Int32, upTo time: Duration) -> Bool {
        var milliseconds = Int32(
            clamping: time.components.seconds * 1000 + time.components.attoseconds / 1_000_000_000_000_000 + 1)
        if stop < 0 { milliseconds = min(milliseconds, 250) }
        // A tuple, not an array: no allocation per wake-up.
        var descriptors = (
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stop, events: Int16(POLLIN), revents: 0)
        )
        let ready = withUnsafeMutableBytes(of: &descriptors) {
            poll($0.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, milliseconds)
        }
        guard ready > 0 else { return false }
        return descriptors.0.revents != 0
    }
}
