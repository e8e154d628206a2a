import Glibc
import Foundation
import InMemoryLogging
import Logging
import NIOCore
@testable import PetSpotDaemon
import PetSpotLocation
import PetSpotPolicy
import Testing
import TestSupport

@Suite struct DecisionStoreTests {
    @Test func decisionsAreWrittenWithMode0600AndReadBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state/nested")
        var store = DecisionStore(stateDirectory: state, logger: Logger(label: "test"))
        let written1 = store.remember(RememberedDecision(status: .denied), for: 1001)
        try #require(written1).write()
        let written2 = store.remember(RememberedDecision(status: .authorized, accuracy: .reduced), for: 1002)
        try #require(written2).write()

        var info = stat()
        #expect(stat(store.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(stat(state, &info) == 0 && info.st_mode & 0o777 == 0o700)
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(
            text
                == #"{"decisions":{"1001":{"status":"denied"},"1002":{"accuracy":"reduced","status":"authorized"}},"version":1}"#
                + "\n")

        let reloaded = DecisionStore(stateDirectory: state, logger: Logger(label: "test"))
        #expect(reloaded.decision(for: 1001) == RememberedDecision(status: .denied))
        #expect(reloaded.decision(for: 1002) == RememberedDecision(status: .authorized, accuracy: .reduced))
        #expect(reloaded.decision(for: 1003) == nil)
    }

    /// Issue 13 item 17: a corrupt file never turns a denial into "never asked".
    @Test(arguments: [
        "", "{", "null", #"{"version":2,"decisions":{}}"#, #"{"version":1,"decisions":{"x":{"status":"denied"}}}"#,
        #"{"version":1,"decisions":{"5":{"status":"maybe"}}}"#, "\u{0}\u{1}garbage",
    ])
    func item17_aCorruptFileIsMovedAsideAndQuarantined(_ contents: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("decisions.json", contents)
        let log = InMemoryLogHandler()
        let logger = Logger(label: "test") { _ in log }
        var store = DecisionStore(stateDirectory: directory.path, logger: logger)
        #expect(store.decisions.isEmpty)
        let quarantine = try #require(store.quarantine)
        #expect(
            log.entries.contains {
                $0.level == .error && "\($0.message)".hasPrefix("remembered decisions unreadable or corrupt")
            })
        // Kept aside, byte for byte, under a name with the time; nothing at the old name.
        let movedTo = try #require(quarantine.movedTo)
        #expect(movedTo.hasPrefix(directory.file("decisions.json.corrupt-20")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: movedTo)) == Data(contents.utf8))
        #expect(!FileManager.default.fileExists(atPath: directory.file("decisions.json")))
        // Nothing is remembered or written while quarantined.
        #expect(store.remember(RememberedDecision(status: .authorized, accuracy: .full), for: 7) == nil)
        #expect(store.decision(for: 7) == nil)
        #expect(!FileManager.default.fileExists(atPath: directory.file("decisions.json")))
    }

    /// The quarantine's reason names the member that is wrong.
    @Test(arguments: [
        (#"{"version":1,"decisions":{"5":{"status":"maybe"}}}"#, "decisions.5.status: must be one of"),
        (#"{"version":1,"decisions":{"x":{"status":"denied"}}}"#, #"decisions.x: "x" is not a uid"#),
        (
            #"{"version":1,"decisions":{"5":{"status":"denied","until":3}}}"#,
            "decisions.5: unknown member decisions.5.until"
        ),
        (#"{"version":2,"decisions":{}}"#, "version: version 2, not 1"),
        (#"{"decisions":{}}"#, "version"),
        ("[]", "must be an object"),
        ("{", "not JSON"),
    ])
    func aCorruptFileSaysWhichMemberIsWrong(contents: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("decisions.json", contents)
        let store = DecisionStore(stateDirectory: directory.path, logger: Logger(label: "test"))
        let quarantine = try #require(store.quarantine)
        #expect(quarantine.reason.hasPrefix(reason), "\(quarantine.reason)")
    }

    @Test func item17_aGoodFilePutInPlaceEndsTheQuarantine() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("decisions.json", "{\"version\":1,\"decisions\":{\"7\":{\"status\":\"den")
        var store = DecisionStore(stateDirectory: directory.path, logger: Logger(label: "test"))
        #expect(store.quarantine != nil)
        store.reload()  // still nothing good in place: still quarantined
        #expect(store.quarantine != nil)
        try directory.write("decisions.json", #"{"version":1,"decisions":{"7":{"status":"denied"}}}"#)
        store.reload()
        #expect(store.quarantine == nil)
        #expect(store.decision(for: 7) == RememberedDecision(status: .denied))
        #expect(store.remember(RememberedDecision(status: .denied), for: 8) != nil)
    }

    @Test func item18_aSymbolicLinkIsNotFollowed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(
            "elsewhere.json", #"{"version":1,"decisions":{"7":{"status":"authorized","accuracy":"full"}}}"#)
        #expect(symlink(directory.file("elsewhere.json"), directory.file("decisions.json")) == 0)
        let store = DecisionStore(stateDirectory: directory.path, logger: Logger(label: "test"))
        #expect(store.decision(for: 7) == nil)
        #expect(store.quarantine?.reason.contains("open") == true)
    }

    @Test func anUnreadableFileIsQuarantined() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A directory where the file should be cannot be read as one.
        try FileManager.default.createDirectory(
            atPath: directory.file("decisions.json"), withIntermediateDirectories: false)
        let log = InMemoryLogHandler()
        let logger = Logger(label: "test") { _ in log }
        let store = DecisionStore(stateDirectory: directory.path, logger: logger)
        #expect(store.decisions.isEmpty)
        #expect(store.quarantine != nil)
        #expect(!log.entries.isEmpty)
    }

    @Test func leftoverTemporaryFilesAreRemovedAndForgettingWrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(".decisions.json.tmp-123-456", "{half")
        var store = DecisionStore(stateDirectory: directory.path, logger: Logger(label: "test"))
        #expect(!FileManager.default.fileExists(atPath: directory.file(".decisions.json.tmp-123-456")))
        let written3 = store.remember(RememberedDecision(status: .denied), for: 3)
        try #require(written3).write()
        let forgotten = store.forget(3)
        try #require(forgotten).write()
        #expect(store.forget(3) == nil)
        #expect(DecisionStore(stateDirectory: directory.path, logger: Logger(label: "test")).decisions.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["decisions.json"])
    }

    /// Writes queued off the actor land in the order they were queued: the
    /// file ends with the last change, however the writes were scheduled.
    @Test func queuedWritesLandInOrder() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var store = DecisionStore(stateDirectory: directory.path, logger: Logger(label: "test"))
        var written: [EventLoopFuture<Void>] = []
        for uid: UInt32 in 1...50 {
            let contents = store.remember(
                RememberedDecision(status: uid % 2 == 0 ? .denied : .authorized, accuracy: uid % 2 == 0 ? nil : .full),
                for: uid)
            written.append(try #require(contents).queueWrite())
        }
        let forgotten = store.forget(50)
        written.append(try #require(forgotten).queueWrite())
        for future in written { try await future.get() }
        let reloaded = DecisionStore(stateDirectory: directory.path, logger: Logger(label: "test"))
        #expect(reloaded.decisions.count == 49)
        #expect(reloaded.decision(for: 49) == RememberedDecision(status: .authorized, accuracy: .full))
        #expect(reloaded.decision(for: 50) == nil)
    }
}
