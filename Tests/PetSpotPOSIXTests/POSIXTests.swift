import Glibc
import Foundation
import PetSpotPOSIX
import Testing

@Suite struct BoundedFileTests {
    @Test func aProcFileThatReportsSizeZeroIsReadToTheEnd() throws {
        let status = try #require(BoundedFile.text("/proc/self/status", limit: 65_536))
        #expect(status.contains("\nPid:\t\(getpid())\n"))
    }

    @Test func aLongerFileIsCutAtTheLimit() throws {
        let path = NSTemporaryDirectory() + "bounded-\(UUID().uuidString)"
        defer { unlink(path) }
        try Data(repeating: 0x61, count: 200_000).write(to: URL(fileURLWithPath: path))
        #expect(BoundedFile.bytes(path, limit: 70_000)?.count == 70_000)
        #expect(BoundedFile.bytes(path, limit: 10)?.count == 10)
        #expect(BoundedFile.bytes(path, limit: 1 << 20)?.count == 200_000)
    }

    @Test func theThrowingReadNamesTheCallAndErrno() throws {
        #expect(throws: SystemCallError("open", code: ENOENT)) {
            try BoundedFile.read("/nonexistent/\(UUID().uuidString)", atMost: 10)
        }
        #expect(throws: SystemCallError("read", code: EISDIR)) { try BoundedFile.read("/", atMost: 10) }
        #expect(try BoundedFile.read("/proc/self/status", atMost: 5) == Array("Name:".utf8))
    }

    @Test func aMissingFileOrARefusedLinkIsNil() throws {
        #expect(BoundedFile.bytes("/nonexistent/\(UUID().uuidString)", limit: 10) == nil)
        let link = NSTemporaryDirectory() + "bounded-link-\(UUID().uuidString)"
        defer { unlink(link) }
        #expect(symlink("/proc/self/status", link) == 0)
        #expect(BoundedFile.text(link, limit: 100) != nil)
        #expect(BoundedFile.text(link, limit: 100, flags: O_NOFOLLOW) == nil)
    }
}

@Suite struct UserDatabaseTests {
    @Test func rootBothWays() {
        #expect(UserDatabase.userName(uid: 0) == "root")
        #expect(UserDatabase.uid(ofUser: "root") == 0)
        #expect(UserDatabase.groupName(gid: 0) == "root")
        #expect(UserDatabase.gid(ofGroup: "root") == 0)
    }

    @Test func unknownEntriesAreNil() {
        #expect(UserDatabase.userName(uid: 3_999_999_999) == nil)
        #expect(UserDatabase.uid(ofUser: "no-such-user-\(getpid())") == nil)
        #expect(UserDatabase.groupName(gid: 3_999_999_999) == nil)
        #expect(UserDatabase.gid(ofGroup: "no-such-group-\(getpid())") == nil)
    }

    @Test func groupIDsStartWithThePrimaryAndHaveNoDuplicates() {
        let ids = UserDatabase.groupIDs(user: "root", primary: 0)
        #expect(ids.first == 0)
        #expect(Set(ids).count == ids.count)
        #expect(UserDatabase.groupIDs(user: nil, primary: 42) == [42])
    }
}

@Suite struct DescriptorTests {
    /// More than a pipe holds (64 KiB): the writer needs several `write`s
    /// while a reader drains the other end. Both block, so both run on
    /// threads of their own, never on the tests' cooperative pool (2 threads
    /// on 2 cores: a blocked pair there stalls every other test).
    @Test func writeAllWritesEverythingThroughShortWrites() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let payload = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let (reading, writing) = (ends[0], ends[1])
        let received = await withCheckedContinuation { (done: CheckedContinuation<[UInt8], Never>) in
            Thread.detachNewThread {
                defer { close(reading) }
                var received: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = chunk.withUnsafeMutableBytes { read(reading, $0.baseAddress, $0.count) }
                    guard count > 0 else { break }
                    received += chunk[..<count]
                }
                done.resume(returning: received)
            }
            Thread.detachNewThread {
                #expect(throws: Never.self) { try Descriptor.writeAll(writing, payload) }
                close(writing)
            }
        }
        #expect(received == payload)
    }

    @Test func aFailedWriteNamesTheCall() {
        #expect(throws: SystemCallError("write", code: EBADF)) { try Descriptor.writeAll(-1, [1, 2, 3]) }
    }

    /// A peer that has gone is EPIPE, not a SIGPIPE that kills the process.
    @Test func sendAllToAClosedPeerIsEPIPE() {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        close(pair[1])
        defer { close(pair[0]) }
        #expect(throws: SystemCallError("send", code: EPIPE)) { try Descriptor.sendAll(pair[0], [1]) }
    }
}

@Suite struct UnixSocketAddressTests {
    @Test func aPathMustFitWithItsNUL() {
        let longest = "/" + String(repeating: "a", count: UnixSocketAddress.sunPathSize - 2)
        #expect(UnixSocketAddress(path: longest)?.sunPath.count == UnixSocketAddress.sunPathSize)
        #expect(UnixSocketAddress(path: longest + "a") == nil)
        #expect(UnixSocketAddress(path: "") == nil)
        #expect(UnixSocketAddress(path: "/tmp/a\u{0}b") == nil)
        #expect(UnixSocketAddress(path: "/a")?.sunPath == [47, 97, 0])
    }

    @Test func anAbstractNameHasALeadingNULAndNoTrailingOne() {
        #expect(UnixSocketAddress(abstract: "ab")?.sunPath == [0, 97, 98])
        #expect(UnixSocketAddress(abstract: "") == nil)
        #expect(UnixSocketAddress(abstract: String(repeating: "a", count: UnixSocketAddress.sunPathSize)) == nil)
    }

    @Test func connectingToAMissingSocketIsENOENT() {
        let address = UnixSocketAddress(path: "/nonexistent/\(UUID().uuidString)")!
        #expect(throws: SystemCallError("connect", code: ENOENT)) { try address.connectStream() }
    }

    @Test func connectsToAListeningSocket() throws {
        let directory = try #require(
            mkdtemp(strdup(NSTemporaryDirectory() + "unix-XXXXXX")).map { String(cString: $0) })
        let path = directory + "/s"
        defer {
            unlink(path)
            rmdir(directory)
        }
        let address = try #require(UnixSocketAddress(path: path))
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        #expect(address.withSockaddr { bind(listener, $0, $1) } == 0)
        #expect(listen(listener, 1) == 0)
        let connected = try address.connectStream()
        defer { close(connected) }
        #expect(fcntl(connected, F_GETFD) & FD_CLOEXEC != 0)
    }
}

@Suite struct PathNameTests {
    @Test(
        arguments: [
            ("/var/lib/x/file", "/var/lib/x", "file"), ("/file", "/", "file"), ("file", nil, "file"),
            ("dir/file", "dir", "file"),
        ] as [(String, String?, String)])
    func directoryAndName(path: String, directory: String?, name: String) {
        #expect(PathName.directory(of: path) == directory)
        #expect(PathName.name(of: path) == name)
    }
}
