import Glibc
import PetSpotSystemd
import TestSupport
import Testing

@Suite("LISTEN_FDS / LISTEN_PID / LISTEN_FDNAMES")
struct ListenFDsTests {
    typealias Descriptor = ListenFDs.Descriptor

    @Test(
        "parsing",
        arguments: [
            (["LISTEN_PID": "42", "LISTEN_FDS": "1"], [Descriptor(fd: 3, name: nil)]),
            (
                ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "a:b"],
                [Descriptor(fd: 3, name: "a"), Descriptor(fd: 4, name: "b")]
            ),
            (
                ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "only-one"],
                [Descriptor(fd: 3, name: nil), Descriptor(fd: 4, name: nil)]
            ),
            (["LISTEN_PID": "43", "LISTEN_FDS": "1"], nil),
            (["LISTEN_FDS": "1"], nil),
            (["LISTEN_PID": "42", "LISTEN_FDS": "0"], nil),
            (["LISTEN_PID": "42", "LISTEN_FDS": "many"], nil),
            (["LISTEN_PID": "42", "LISTEN_FDS": "100000"], nil),
            ([:], nil),
        ] as [([String: String], [Descriptor]?)])
    func parsing(environment: [String: String], expected: [Descriptor]?) {
        #expect(ListenFDs(environment: environment, pid: 42)?.descriptors == expected)
    }

    @Test("a listening Unix stream socket is recognised, and its path read; others are not")
    func inspection() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("s")
        let listening = try Self.unixSocket(type: SOCK_STREAM, bindTo: path, listen: true)
        defer { close(listening) }
        let bound = try Self.unixSocket(type: SOCK_STREAM, bindTo: directory.file("b"), listen: false)
        defer { close(bound) }
        let datagram = try Self.unixSocket(type: SOCK_DGRAM, bindTo: directory.file("d"), listen: false)
        defer { close(datagram) }

        #expect(SocketInspection.isListeningUnixStream(listening))
        #expect(SocketInspection.boundPath(listening) == path)
        #expect(!SocketInspection.isListeningUnixStream(bound))
        #expect(!SocketInspection.isListeningUnixStream(datagram))
        #expect(!SocketInspection.isListeningUnixStream(-1))
        let passed = ListenFDs(descriptors: [
            Descriptor(fd: datagram, name: "locationd.sock"), Descriptor(fd: listening, name: "other"),
        ])
        #expect(passed.listeningUnixStream(preferredName: "locationd.sock")?.fd == listening)
    }

    @Test("take() unsets the variables")
    func takeUnsets() {
        setenv("LISTEN_PID", "1", 1)
        setenv("LISTEN_FDS", "1", 1)
        setenv("LISTEN_FDNAMES", "x", 1)
        // LISTEN_PID is not ours, so nothing is taken, but the variables go.
        #expect(ListenFDs.take() == nil)
        #expect(getenv("LISTEN_PID") == nil)
        #expect(getenv("LISTEN_FDS") == nil)
        #expect(getenv("LISTEN_FDNAMES") == nil)
    }

    static func unixSocket(type: __socket_type, bindTo path: String, listen shouldListen: Bool) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(result == 0)
        if shouldListen { try #require(listen(fd, 8) == 0) }
        return fd
    }
}
