import PetSpotLinux
import PetSpotPOSIX
import Testing

import Glibc

/// `TCPConnectionOwner`: the kernel's owner of a loopback TCP peer, with real sockets.
@Suite("TCP connection owner (sock_diag)")
struct TCPConnectionOwnerTests {
    /// A listener on 127.0.0.1 (an ephemeral port), a client connected to it, and the accepted end.
    final class Connection {
        let listener: Int32
        let client: Int32
        let accepted: Int32
        let clientEnd: TCPConnectionOwner.Endpoint
        let serverEnd: TCPConnectionOwner.Endpoint

        init() throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            try Self.check(Self.call(&address) { bind(listener, $0, $1) })
            try Self.check(listen(listener, 4))
            let serverPort = try Self.port(of: listener)
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            address.sin_port = serverPort.bigEndian
            try Self.check(Self.call(&address) { connect(client, $0, $1) })
            let accepted = accept(listener, nil, nil)
            try Self.check(accepted)
            let loopback: [UInt8] = [127, 0, 0, 1]
            self.listener = listener
            self.client = client
            self.accepted = accepted
            clientEnd = .init(address: loopback, port: try Self.port(of: client))
            serverEnd = .init(address: loopback, port: serverPort)
        }

        static func call(_ address: inout sockaddr_in, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }

        static func check(_ status: Int32) throws {
            if status < 0 { throw SystemCallError("socket setup") }
        }

        static func port(of fd: Int32) throws -> UInt16 {
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let status = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            try check(status)
            return UInt16(bigEndian: address.sin_port)
        }

        func closeAll() {
            close(client)
            close(accepted)
            close(listener)
        }
    }

    @Test func thePeersOwnerIsTheUidThatCreatedItsSocket() throws {
        let connection = try Connection()
        defer { connection.closeAll() }
        // The server looks up its peer: the client's end, connected to the server's.
        #expect(
            try TCPConnectionOwner.uid(ofPeer: connection.clientEnd, connectedTo: connection.serverEnd).get()
                == getuid())
    }

    /// A port nobody connected from: no owner. In particular not the listener on the server's address
    /// (the kernel's lookup falls back to listeners, which must never count).
    @Test func noSuchConnectionHasNoOwner() throws {
        let connection = try Connection()
        defer { connection.closeAll() }
        var wrongPort = connection.clientEnd
        wrongPort.port = wrongPort.port == 65535 ? 65534 : wrongPort.port + 1
        #expect(throws: SystemCallError.self) {
            try TCPConnectionOwner.uid(ofPeer: wrongPort, connectedTo: connection.serverEnd).get()
        }
        // Asking with the ends swapped looks up the server's own end, connected to the client: that is
        // the accepted socket, also ours; but the listener (server address, any peer) must not answer.
        var listenerOnly = connection.serverEnd
        listenerOnly.address = [127, 0, 0, 1]
        let stranger = TCPConnectionOwner.Endpoint(address: [127, 0, 0, 1], port: 1)
        #expect(throws: SystemCallError.self) {
            try TCPConnectionOwner.uid(ofPeer: listenerOnly, connectedTo: stranger).get()
        }
    }

    /// Once the peer has closed (its socket is then in TIME_WAIT, which reports uid 0), it has no owner.
    @Test func aClosedPeerHasNoOwner() throws {
        let connection = try Connection()
        connection.closeAll()  // the client closes first: its side goes to TIME_WAIT
        #expect(throws: SystemCallError.self) {
            try TCPConnectionOwner.uid(ofPeer: connection.clientEnd, connectedTo: connection.serverEnd).get()
        }
    }

    @Test func anAddressOfTheWrongLengthIsRefused() {
        let bad = TCPConnectionOwner.Endpoint(address: [1, 2, 3], port: 80)
        let good = TCPConnectionOwner.Endpoint(address: [127, 0, 0, 1], port: 80)
        #expect(throws: SystemCallError.self) { try TCPConnectionOwner.uid(ofPeer: bad, connectedTo: good).get() }
    }
}
