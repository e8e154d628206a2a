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
/// against "floor ÷ direct" from the same run.
enum RelayFloor {
    static let tpv = Array(#"{"class":"TPV""#.utf8)
    static let time = Array(#""time":""#.utf8)

    /// Serves `path`, relaying gpsd on `gpsdPort`, until killed.
    static func serve(_ path: String, gpsdPort: UInt16) -> Never {
        signal(SIGPIPE, SIG_IGN)
        guard let listener = Sockets.listen(.unix(path)) else { fail("cannot listen on \(path)") }
        guard let gpsd = Sockets.connect(.tcp(gpsdPort)) else { fail("cannot connect to gpsd on \(gpsdPort)") }
        guard Sockets.writeAll(gpsd, WatcherPool.gpsdWatch) else { fail("cannot send ?WATCH to gpsd") }
        var watchers: [Int32] = []
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var line: [UInt8] = []
        line.reserveCapacity(512)
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
                        watchers.append(client)
                    } else {
                        close(client)
                    }
                }
            }
            guard descriptors[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(gpsd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { fail("gpsd closed the connection") }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: 0x0A) {
                defer { pending.removeSubrange(...newline) }
                let text = pending[..<newline]
                guard text.starts(with: tpv), let start = find(time, in: text).map({ $0 + time.count }),
                    let end = text[start...].firstIndex(of: UInt8(ascii: "\""))
                else { continue }
                line.removeAll(keepingCapacity: true)
                line.append(contentsOf: FanOutFloor.head)
                line.append(contentsOf: text[start..<end])
                line.append(contentsOf: FanOutFloor.tail)
                line.withUnsafeBytes { bytes in
                    for fd in watchers { _ = write(fd, bytes.baseAddress!, bytes.count) }
                }
            }
        }
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

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("relay floor: \(message)\n".utf8))
        exit(1)
    }
}
