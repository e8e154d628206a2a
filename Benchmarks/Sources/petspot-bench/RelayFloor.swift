import Glibc
import Foundation

/// The watch path's floor: the least any relay between gpsd and its
/// watchers can do on this box. One thread, one `poll` on gpsd's socket
/// and the listener: it reads gpsd's lines as gpsd's single client (as the
/// daemon is), and for each TPV writes one `location.update`-sized line
/// (``FanOutFloor``'s, stamped with the TPV's own time) to every watcher
/// with plain blocking `write(2)` calls, on the thread that read it. No
/// JSON parse, no policy, no audit, no per-watcher options, no second
/// thread: one wake-up per line gpsd sends. The watch step measures it
/// exactly as it measures the daemon, so "daemon ÷ direct" can be read
/// against "floor ÷ direct" from the same run. ``HandoffFloor`` is the same
/// relay with the daemon's threads.
enum RelayFloor {
    static let tpv = Array(#"{"class":"TPV""#.utf8)
    static let time = Array(#""time":""#.utf8)

    /// Serves `path`, relaying gpsd on `gpsdPort`, until killed.
    static func serve(_ path: String, gpsdPort: UInt16) -> Never {
        var watchers: [Int32] = []
        var line: [UInt8] = []
        line.reserveCapacity(512)
        relay(path, gpsdPort: gpsdPort, name: "relay floor", accepted: { watchers.append($0) }) { time in
            update(stampedWith: time, into: &line)
            _ = line.withUnsafeBytes { write($0, to: &watchers) }
        }
    }

    /// Writes `line` to each of `watchers` with one blocking `write(2)`
    /// each; a watcher whose write fails (it left: the benchmark closes each
    /// window's watchers) is closed and dropped, as the daemon drops it.
    /// - Returns: how many were dropped.
    @discardableResult
    static func write(_ line: UnsafeRawBufferPointer, to watchers: inout [Int32]) -> Int {
        var kept = 0
        for index in watchers.indices {
            let fd = watchers[index]
            if Glibc.write(fd, line.baseAddress!, line.count) < 0 {
                close(fd)
            } else {
                if kept != index { watchers[kept] = fd }
                kept += 1
            }
        }
        let dropped = watchers.count - kept
        if dropped > 0 { watchers.removeLast(dropped) }
        return dropped
    }

    /// The relay's thread, shared with ``HandoffFloor``: connects to gpsd on
    /// `gpsdPort` as its only client and listens on `path`, then one `poll`
    /// on both, forever. Each watcher that connects has its watch request
    /// answered and is passed to `accepted`; each TPV gpsd sends is passed to
    /// `deliver` as its `time` member's value, on this thread.
    static func relay(
        _ path: String, gpsdPort: UInt16, name: String, accepted: (Int32) -> Void,
        deliver: (ArraySlice<UInt8>) -> Void
    ) -> Never {
        signal(SIGPIPE, SIG_IGN)
        guard let listener = Sockets.listen(.unix(path)) else { fail(name, "cannot listen on \(path)") }
        guard let gpsd = Sockets.connect(.tcp(gpsdPort)) else { fail(name, "cannot connect to gpsd on \(gpsdPort)") }
        guard Sockets.writeAll(gpsd, WatcherPool.gpsdWatch) else { fail(name, "cannot send ?WATCH to gpsd") }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            var descriptors = [
                pollfd(fd: gpsd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&descriptors, 2, -1) > 0 else { continue }
            if descriptors[1].revents != 0 {
                let client = accept(listener, nil, nil)
                if client >= 0 {
                    // The watch request: read up to its newline, answer it.
                    var byte: UInt8 = 0
                    while read(client, &byte, 1) == 1, byte != 0x0A {}
                    if FanOutFloor.answer.withUnsafeBytes({ Sockets.writeAll(client, $0) }) {
                        accepted(client)
                    } else {
                        close(client)
                    }
                }
            }
            guard descriptors[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(gpsd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { fail(name, "gpsd closed the connection") }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: 0x0A) {
                defer { pending.removeSubrange(...newline) }
                let text = pending[..<newline]
                guard text.starts(with: tpv), let start = find(time, in: text).map({ $0 + time.count }),
                    let end = text[start...].firstIndex(of: UInt8(ascii: "\""))
                else { continue }
                deliver(text[start..<end])
            }
        }
    }

    /// Replaces `line` with a `location.update`-sized line stamped with `time`.
    static func update(stampedWith time: ArraySlice<UInt8>, into line: inout [UInt8]) {
        line.removeAll(keepingCapacity: true)
        line.append(contentsOf: FanOutFloor.head)
        line.append(contentsOf: time)
        line.append(contentsOf: FanOutFloor.tail)
    }

    /// The index where `needle` starts in `haystack`.
    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index <= haystack.endIndex - needle.count {
            if haystack[index] == needle[0], haystack[index..<index + needle.count].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }

    static func fail(_ name: String, _ message: String) -> Never {
        FileHandle.standardError.write(Data("\(name): \(message)\n".utf8))
        exit(1)
    }
}
