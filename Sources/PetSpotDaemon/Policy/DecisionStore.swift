#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import NIOCore
import NIOPosix
import PetSpotLocation
import PetSpotPolicy

/// Remembered decisions, keyed by uid, persisted in `<state_dir>/decisions.json`.
///
/// The file is JSON, mode 0600, replaced atomically on every change
/// (``AtomicFile``), in a state directory created 0700 when missing:
///
/// ```json
/// {"version": 1, "decisions": {"1001": {"status": "denied"},
///   "1002": {"status": "authorized", "accuracy": "reduced"}}}
/// ```
///
/// A missing file means no decisions. An unreadable or corrupt one is
/// reported in the log and also treated as no decisions; it is replaced at
/// the next change. Never throws at load time.
struct DecisionStore {
    /// The file's name inside the state directory.
    static let fileName = "decisions.json"
    /// Largest file accepted (a corrupt giant file must not exhaust memory).
    static let maximumFileSize = 16 << 20

    /// The file's path.
    let path: String
    /// The decisions, by uid.
    private(set) var decisions: [UInt32: RememberedDecision]
    private let logger: Logger

    /// The on-disk shape.
    struct FileContents: Codable, Equatable {
        var version: Int
        var decisions: [String: RememberedDecision]
    }

    /// Loads the store of `stateDirectory`.
    init(stateDirectory: String, logger: Logger) {
        self.path = stateDirectory + "/" + Self.fileName
        self.logger = logger
        AtomicFile.removeLeftovers(for: path)
        self.decisions = Self.load(path: path, logger: logger)
    }

    /// The decision for `uid`, if any.
    func decision(for uid: UInt32) -> RememberedDecision? { decisions[uid] }

    /// Remembers `decision` for `uid`; returns the file's new contents to write.
    mutating func remember(_ decision: RememberedDecision, for uid: UInt32) -> Contents {
        decisions[uid] = decision
        return contents
    }

    /// Forgets the decision of `uid`; returns the file's new contents to
    /// write, `nil` when there was no decision.
    mutating func forget(_ uid: UInt32) -> Contents? {
        guard decisions.removeValue(forKey: uid) != nil else { return nil }
        return contents
    }

    /// The file as the decisions are now.
    var contents: Contents { Contents(path: path, bytes: Self.encode(decisions)) }

    /// The file's contents at one moment, to be written.
    struct Contents: Sendable {
        let path: String
        let bytes: [UInt8]

        /// Writes the file (state directory created 0700 when missing), atomically, here and now.
        func write() throws(AtomicFile.Failure) {
            let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
            if !directory.isEmpty { try AtomicFile.makeDirectory(directory) }
            try AtomicFile.write(bytes, to: path)
        }

        /// Queues the write on the decision writer's thread (a write ends in
        /// fsyncs, which must not block an event loop or the pool), after
        /// every write queued before it: queued synchronously in the order of
        /// the changes, contents land in that order. The future completes
        /// once the file is written.
        func queueWrite() -> EventLoopFuture<Void> { DecisionWriter.submit(self) }
    }

    /// Reads the decisions of `path`; empty (and logged) when it is unreadable or corrupt.
    static func load(path: String, logger: Logger) -> [UInt32: RememberedDecision] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        do {
            let data = Data(try AtomicFile.read(path, atMost: maximumFileSize + 1))
            guard data.count <= maximumFileSize else {
                throw CocoaError(.fileReadTooLarge)
            }
            let contents = try JSONDecoder().decode(FileContents.self, from: data)
            guard contents.version == 1 else { throw CocoaError(.fileReadCorruptFile) }
            var decisions: [UInt32: RememberedDecision] = [:]
            for (key, decision) in contents.decisions {
                guard let uid = UInt32(key) else { throw CocoaError(.fileReadCorruptFile) }
                decisions[uid] = RememberedDecision(status: decision.status, accuracy: decision.accuracy)
            }
            return decisions
        } catch {
            logger.error(
                "remembered decisions unreadable or corrupt; treating as none",
                metadata: ["file": "\(path)", "error": "\(error)"])
            return [:]
        }
    }

    /// The bytes of the file for `decisions`.
    static func encode(_ decisions: [UInt32: RememberedDecision]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let contents = FileContents(
            version: 1, decisions: Dictionary(uniqueKeysWithValues: decisions.map { (String($0.key), $0.value) }))
        // Encoding plain strings and enums cannot fail.
        return Array((try? encoder.encode(contents)) ?? Data()) + [10]
    }
}

/// The one thread that writes decision files, first submitted first written.
enum DecisionWriter {
    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        return pool
    }()

    /// Queues `contents`; the future completes once written.
    static func submit(_ contents: DecisionStore.Contents) -> EventLoopFuture<Void> {
        pool.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any()) { try contents.write() }
    }
}
