import CLibGPS
import Glibc
import PetSpotLocation
import Synchronization

/// What the reader thread tells the async side.
enum ReaderEvent: Sendable {
    /// gpsd sent its first complete line on this connection.
    case alive
    /// A TPV report, decoded by libgps.
    case report(GpsdReport)
    /// A line that was not usable (truncated JSON, …).
    case malformed(String)
    /// The session is over (connection failed, closed, silent, or stopped);
    /// always the last event.
    case ended(String)
}

/// A one-way stop request from the async side to the reader thread.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func stop() { flag.store(true, ordering: .relaxed) }
    var isStopped: Bool { flag.load(ordering: .relaxed) }
}

/// One gpsd connection on a dedicated thread.
///
/// libgps is blocking C (`gps_open` connects synchronously, `gps_read`
/// reads a socket), so it never runs on Swift's cooperative pool. The
/// thread waits for data with `gps_waiting` for at most
/// ``GpsdConfiguration/pollInterval`` at a time, so a stop request or the
/// silence watchdog is noticed within one interval. Every path ends with
/// `gps_close` and frees the `gps_data_t`, then finishes the stream, so
/// a finished stream means the session's socket is closed.
enum GpsdReader {
    /// Starts a session thread.
    /// - Returns: the session's events and the flag that stops it.
    static func start(_ configuration: GpsdConfiguration) -> (AsyncStream<ReaderEvent>, StopFlag) {
        let (events, continuation) = AsyncStream<ReaderEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let stop = StopFlag()
        ReaderThread.start(name: "petspot-gpsd") {
            let reason = session(configuration, stop: stop) { continuation.yield($0) }
            continuation.yield(.ended(reason))
            continuation.finish()
        }
        return (events, stop)
    }

    /// Runs one connection to its end; returns why it ended.
    private static func session(
        _ configuration: GpsdConfiguration, stop: StopFlag, emit: (ReaderEvent) -> Void
    ) -> String {
        guard let raw = calloc(1, MemoryLayout<gps_data_t>.stride) else { return "out of memory" }
        let data = raw.bindMemory(to: gps_data_t.self, capacity: 1)
        defer { free(raw) }

        let endpoint = "\(configuration.host):\(configuration.port)"
        if stop.isStopped { return "stopped" }
        guard gps_open(configuration.host, String(configuration.port), data) == 0 else {
            return "cannot connect to gpsd at \(endpoint): \(String(cString: gps_errstr(errno)))"
        }
        defer { _ = gps_close(data) }

        let fd = data.pointee.gps_fd
        guard petspot_set_nonblocking(fd) == 0 else { return "cannot configure the gpsd socket" }
        guard gps_stream(data, petspot_watch_json_flags(), nil) == 0 else {
            return "gpsd at \(endpoint) did not accept the WATCH command"
        }

        let waitMicroseconds = Int32(clamping: Int64(configuration.pollInterval.seconds * 1e6))
        var message = [CChar](repeating: 0, count: 16_384)
        var lastLine = ContinuousClock.now
        var spoke = false
        var partialLine = false

        while !stop.isStopped {
            // With a partial line buffered, gps_waiting answers true at once;
            // then wait on the socket itself so a stalled gpsd does not spin us.
            let ready = partialLine ? poll(fd, microseconds: waitMicroseconds) : gps_waiting(data, waitMicroseconds)
            if !ready {
                if ContinuousClock.now - lastLine > configuration.silenceTimeout {
                    return "gpsd at \(endpoint) sent nothing for \(configuration.silenceTimeout) (silence timeout)"
                }
                continue
            }
            message[0] = 0
            let status = petspot_gps_read_message(data, &message, Int32(message.count))
            if status < 0 { return "gpsd at \(endpoint) closed the connection" }
            if status == 0 {
                partialLine = true
                if ContinuousClock.now - lastLine > configuration.silenceTimeout {
                    return "gpsd at \(endpoint) sent nothing for \(configuration.silenceTimeout) (silence timeout)"
                }
                continue
            }
            partialLine = false
            lastLine = .now
            if !spoke {
                spoke = true
                emit(.alive)
            }
            switch LineKind(message) {
            case .tpv: emit(.report(GpsdReport(data)))
            case .truncatedTPV: emit(.malformed("truncated TPV report"))
            case .other: break
            }
        }
        return "stopped"
    }

    /// Waits until `fd` is readable or the time is up.
    private static func poll(_ fd: Int32, microseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&descriptor, 1, max(1, microseconds / 1000)) > 0
    }
}

/// The class of a raw gpsd line, as far as the source cares.
enum LineKind: Equatable {
    case tpv
    /// A TPV line that does not end with `}`: libgps parsed what it could,
    /// so its fields cannot be trusted.
    case truncatedTPV
    case other

    init(_ line: [CChar]) {
        let bytes = line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        self.init(bytes: bytes)
    }

    init(bytes: some Collection<UInt8>) {
        guard bytes.starts(with: Array(#"{"class":"TPV""#.utf8)) else {
            self = .other
            return
        }
        let last = bytes.reversed().first { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: " ") }
        self = last == UInt8(ascii: "}") ? .tpv : .truncatedTPV
    }
}

extension GpsdReport {
    /// Copies the fix fields and the device path of libgps's last TPV.
    init(_ data: UnsafePointer<gps_data_t>) {
        let fix = data.pointee.fix
        self.init(
            mode: Int(fix.mode),
            latitude: fix.latitude,
            longitude: fix.longitude,
            altitudeHAE: fix.altHAE,
            altitudeMSL: fix.altMSL,
            geoidSeparation: fix.geoid_sep,
            eph: fix.eph,
            epx: fix.epx,
            epy: fix.epy,
            epv: fix.epv,
            speed: fix.speed,
            track: fix.track,
            timeSeconds: Int(fix.time.tv_sec),
            timeNanoseconds: Int(fix.time.tv_nsec),
            device: withUnsafeBytes(of: data.pointee.dev.path) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
        )
    }
}
