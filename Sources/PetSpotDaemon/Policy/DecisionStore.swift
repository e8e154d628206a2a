import FoundationEssentials
import Glibc
import Logging
import NIOCore
import NIOPosix
import PetSpotJSON
import PetSpotLocation
import PetSpotPOSIX
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
/// A missing file means no decisions. An unreadable or corrupt one is never
/// taken for "no decisions" (that would forget denials silently): it is moved
/// aside to `decisions.json.corrupt-<UTC time>`, logged as an error, and the
/// store is *quarantined*: no remembered decision applies (every uid gets
/// what its rules and `policy.default` say), nothing is remembered or
/// written, and the engine asks nobody (``PolicyEngine``). An administrator
/// ends it by putting a good file in place (the moved copy repaired, a
/// backup, or `{"version": 1, "decisions": {}}` to start over) and reloading
/// (SIGHUP) or restarting. Never throws at load time.
struct DecisionStore {
    /// The file's name inside the state directory.
    static let fileName = "decisions.json"
    /// Largest file accepted (a corrupt giant file must not exhaust memory).
    static let maximumFileSize = 16 << 20

    /// The file's path.
    let path: String
    /// The decisions, by uid (empty while quarantined).
    private(set) var decisions: [UInt32: RememberedDecision]
    /// Set while the file on disk could not be trusted.
    private(set) var quarantine: Quarantine?
    private let logger: Logger

    /// Why the decisions are not in force, and where the bad file went.
    struct Quarantine: Equatable, Sendable {
        /// What was wrong with the file.
        var reason: String
        /// Where it was moved (`nil` when it could not be moved).
        var movedTo: String?
        /// When it was found.
        var since: UTCTimestamp
    }

    /// Loads the store of `stateDirectory`.
    init(stateDirectory: String, logger: Logger) {
        self.path = stateDirectory + "/" + Self.fileName
        self.logger = logger
        self.decisions = [:]
        AtomicFile.removeLeftovers(for: path)
        reload()
    }

    /// Reads the file again (start, and a reload while quarantined): a good
    /// file ends the quarantine; a bad one starts it.
    mutating func reload() {
        var info = stat()
        // The bad file was moved away: no file is not "no decisions" while quarantined.
        if quarantine != nil, lstat(path, &info) != 0, errno == ENOENT { return }
        switch Self.load(path: path) {
        case .success(let loaded):
            if let quarantine {
                logger.notice(
                    "remembered decisions readable again; quarantine over",
                    metadata: ["file": "\(path)", "since": "\(quarantine.since.iso8601)"])
            }
            decisions = loaded
            quarantine = nil
        case .failure(let problem):
            decisions = [:]
            let stamp = UTCTimestamp(secondsSince1970: Date().timeIntervalSince1970.rounded(.down))
            // decisions.json.corrupt-20261125T105321Z: sortable, no colons.
            let compact = stamp.iso8601.filter { $0 != "-" && $0 != ":" }
            var movedTo: String? = path + ".corrupt-" + compact
            if rename(path, movedTo!) != 0 { movedTo = nil }
            quarantine = Quarantine(reason: problem.description, movedTo: movedTo, since: stamp)
            logger.error(
                "remembered decisions unreadable or corrupt; no remembered decision applies until an administrator puts a good file in place and reloads",
                metadata: [
                    "file": "\(path)", "error": "\(problem)", "movedTo": "\(movedTo ?? "(could not be moved)")",
                ])
        }
    }

    /// The decision for `uid`, if any.
    func decision(for uid: UInt32) -> RememberedDecision? { decisions.isEmpty ? nil : decisions[uid] }

    /// Remembers `decision` for `uid`; returns the file's new contents to
    /// write, `nil` (and nothing remembered) while quarantined.
    mutating func remember(_ decision: RememberedDecision, for uid: UInt32) -> Contents? {
        guard quarantine == nil else { return nil }
        decisions[uid] = decision
        return contents
    }

    /// Forgets the decision of `uid`; returns the file's new contents to
    /// write, `nil` when there was no decision (or while quarantined).
    mutating func forget(_ uid: UInt32) -> Contents? {
        guard quarantine == nil, decisions.removeValue(forKey: uid) != nil else { return nil }
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
            if let directory = PathName.directory(of: path), directory != "/" {
                try AtomicFile.makeDirectory(directory)
            }
            try AtomicFile.write(bytes, to: path)
        }

        /// Queues the write on the ``DiskThread`` (a write ends in fsyncs,
        /// which must not block an event loop or the pool), after every write
        /// queued before it: queued synchronously in the order of the
        /// changes, contents land in that order. The future completes once
        /// the file is written.
        func queueWrite() -> EventLoopFuture<Void> { DiskThread.run { try self.write() } }
    }

    /// Why a file could not be used.
    struct LoadProblem: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads the decisions of `path`: none when there is no file, a
    /// ``LoadProblem`` when it is unreadable or corrupt. The file is opened
    /// without following a symbolic link.
    static func load(path: String) -> Result<[UInt32: RememberedDecision], LoadProblem> {
        var info = stat()
        if lstat(path, &info) != 0, errno == ENOENT { return .success([:]) }
        let bytes: [UInt8]
        do throws(AtomicFile.Failure) {
            bytes = try AtomicFile.read(path, atMost: maximumFileSize + 1)
        } catch {
            return .failure(LoadProblem(description: "\(error)"))
        }
        guard bytes.count <= maximumFileSize else {
            return .failure(LoadProblem(description: "larger than \(maximumFileSize) bytes"))
        }
        do {
            return .success(try decode(JSONValue.parse(bytes: bytes)))
        } catch let error as JSONFieldError {
            return .failure(LoadProblem(description: error.description))
        } catch {
            return .failure(LoadProblem(description: "not JSON: \(error)"))
        }
    }

    /// The decisions of the file's JSON: `{"version": 1, "decisions": {"UID":
    /// {"status": S, "accuracy"?: A}}}`; a problem names its member.
    static func decode(_ document: JSONValue) throws(JSONFieldError) -> [UInt32: RememberedDecision] {
        let file = try JSONFields(document)
        try file.rejectUnknown(["version", "decisions"])
        let version = try file.required("version", file.integer("version", in: 0...Int(Int32.max)))
        guard version == 1 else { throw JSONFieldError(path: "version", message: "version \(version), not 1") }
        let entries = try file.required("decisions", file.object("decisions"))
        var decisions: [UInt32: RememberedDecision] = [:]
        for key in entries.members.keys {
            guard let uid = UInt32(key) else {
                throw JSONFieldError(path: entries.path(of: key), message: "\"\(key)\" is not a uid")
            }
            let entry = try entries.required(key, entries.object(key))
            try entry.rejectUnknown(["status", "accuracy"])
            let status = try entry.required(
                "status", entry.choice("status", of: AuthorizationStatus.self, allowed: AuthorizationStatus.allCases))
            let accuracy = try entry.choice(
                "accuracy", of: AccuracyAuthorization.self, allowed: AccuracyAuthorization.allCases)
            decisions[uid] = RememberedDecision(status: status, accuracy: accuracy)
        }
        return decisions
    }

    /// The bytes of the file for `decisions` (members sorted: the same
    /// decisions always give the same bytes).
    static func encode(_ decisions: [UInt32: RememberedDecision]) -> [UInt8] {
        var entries: [String: JSONValue] = [:]
        for (uid, decision) in decisions {
            var entry: [String: JSONValue] = ["status": .string(decision.status.rawValue)]
            if let accuracy = decision.accuracy { entry["accuracy"] = .string(accuracy.rawValue) }
            entries[String(uid)] = .object(entry)
        }
        var bytes: [UInt8] = []
        JSONValue.object(["version": 1, "decisions": .object(entries)]).write(utf8: &bytes)
        bytes.append(10)
        return bytes
    }
}
