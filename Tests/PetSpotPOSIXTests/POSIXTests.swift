#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
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
    }

    @Test func unknownEntriesAreNil() {
        #expect(UserDatabase.userName(uid: 3_999_999_999) == nil)
        #expect(UserDatabase.uid(ofUser: "no-such-user-\(getpid())") == nil)
        #expect(UserDatabase.groupName(gid: 3_999_999_999) == nil)
    }

    @Test func groupIDsStartWithThePrimaryAndHaveNoDuplicates() {
        let ids = UserDatabase.groupIDs(user: "root", primary: 0)
        #expect(ids.first == 0)
        #expect(Set(ids).count == ids.count)
        #expect(UserDatabase.groupIDs(user: nil, primary: 42) == [42])
    }
}
