#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
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
        try store.remember(RememberedDecision(status: .denied), for: 1001).write()
        try store.remember(RememberedDecision(status: .authorized, accuracy: .reduced), for: 1002).write()

        var info = stat()
        #expect(stat(store.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(stat(state, &info) == 0 && info.st_mode & 0o777 == 0o700)
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(text == #"{"decisions":{"1001":{"status":"denied"},"1002":{"accuracy":"reduced","status":"authorized"}},"version":1}"# + "\n")

        let reloaded = DecisionStore(stateDirectory: state, logger: Logger(label: "test"))
        #expect(reloaded.decision(for: 1001) == RememberedDecision(status: .denied))
        #expect(reloaded.decision(for: 1002) == RememberedDecision(status: .authorized, accuracy: .reduced))
        #expect(reloaded.decision(for: 1003) == nil)
    }

    @Test(arguments: ["", "{", "null", #"{"version":2,"decisions":{}}"#, #"{"version":1,"decisions":{"x":{"status":"denied"}}}"#,
        #"{"version":1,"decisions":{"5":{"status":"maybe"}}}"#, "\u{0}\u{1}garbage"])
    func aCorruptFileIsLoggedAndTreatedAsNoDecisions(_ contents: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("decisions.json", contents)
        let (logger, log) = RecordingLogHandler.logger()
        var store = DecisionStore(stateDirectory: directory.path, logger: logger)
        #expect(store.decisions.isEmpty)
        #expect(log.all.contains { $0.hasPrefix("error: remembered decisions unreadable or corrupt") })
        // The next change replaces it with a good file.
        try store.remember(RememberedDecision(status: .denied), for: 7).write()
        #expect(DecisionStore(stateDirectory: directory.path, logger: logger).decision(for: 7)?.status == .denied)
    }

    @Test func anUnreadableFileIsTreatedAsNoDecisions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A directory where the file should be cannot be read as one.
        try FileManager.default.createDirectory(atPath: directory.file("decisions.json"), withIntermediateDirectories: false)
        let (logger, log) = RecordingLogHandler.logger()
        let store = DecisionStore(stateDirectory: directory.path, logger: logger)
        #expect(store.decisions.isEmpty)
        #expect(!log.all.isEmpty)
    }

    @Test func leftoverTemporaryFilesAreRemovedAndForgettingWrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(".decisions.json.tmp-123-456", "{half")
        var store = DecisionStore(stateDirectory: directory.path, logger: Logger(label: "test"))
        #expect(!FileManager.default.fileExists(atPath: directory.file(".decisions.json.tmp-123-456")))
        try store.remember(RememberedDecision(status: .denied), for: 3).write()
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
            written.append(store.remember(RememberedDecision(status: uid % 2 == 0 ? .denied : .authorized, accuracy: uid % 2 == 0 ? nil : .full), for: uid).queueWrite())
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
