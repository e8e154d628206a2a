import Glibc
import Foundation

/// The socket floor: the least a server can do per request on this box.
/// One thread per connection, blocking reads, and for every request line a
/// fixed response line the size of a `location.get` answer. No parsing.
enum FloorServer {
    /// What the floor answers: a typical daemon `location.get` response.
    static let response = Array(
        (#"{"id":1,"jsonrpc":"2.0","result":{"accuracy":"full","age":0.042,"altitude":110,"course":90,"#
            + #""horizontalAccuracy":8,"latitude":52.2297,"longitude":21.0122,"mode":3,"source":"simulated","#
            + #""speed":1.4,"timestamp":"2026-11-22T03:00:00.100Z","verticalAccuracy":12}}"# + "\n").utf8)

    /// Serves `endpoints` until the process is killed.
    static func serve(_ endpoints: [Endpoint]) -> Never {
        for endpoint in endpoints {
            guard let listener = Sockets.listen(endpoint) else {
                FileHandle.standardError.write(Data("floor: cannot listen on \(endpoint)\n".utf8))
                exit(1)
            }
            let thread = Thread { acceptLoop(listener) }
            thread.start()
        }
        while true { pause() }
    }

    private static func acceptLoop(_ listener: Int32) {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let thread = Thread { answer(client) }
            thread.stackSize = 1 << 18
            thread.start()
        }
    }

    private static func answer(_ fd: Int32) {
        defer { close(fd) }
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { input.deallocate() }
        let reply = response
        reply.withUnsafeBytes { line in
            while true {
                let count = read(fd, input.baseAddress!, input.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }
                var lines = 0
                for byte in UnsafeRawBufferPointer(rebasing: input[0..<count]) where byte == 0x0A { lines += 1 }
                for _ in 0..<lines {
                    guard Sockets.writeAll(fd, line) else { return }
                }
            }
        }
    }
}
