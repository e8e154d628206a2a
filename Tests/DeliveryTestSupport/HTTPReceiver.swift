import Glibc
import Foundation
import TestSupport

/// The stand-in backend (Tests/Fixtures/receiver.py) on a loopback port:
/// records every request, stores each announcement once per
/// Idempotency-Key, and fails on command (``plan(_:)``).
public final class HTTPReceiver: @unchecked Sendable {
    /// One request as the receiver logged it.
    public struct Request: Decodable, Sendable {
        public var n: Int
        public var key: String
        public var outcome: String
        public var bytes: Int?
        public var headers: [String: String]
        public var time: Double
        public var backendId: String?
    }

    /// One trickled answer (`{"do": "trickle"}`), logged when it ended.
    public struct Trickle: Decodable, Sendable {
        public var n: Int
        /// Body bytes sent, of `bytes`.
        public var sent: Int
        public var bytes: Int
        /// Whether the client closed the connection before the body was all sent.
        public var clientLeft: Bool
    }

    /// One stored announcement.
    public struct Stored: Sendable {
        public var announcement: Data
        public var photo: Data
        public var body: Data
        /// parts.json: `{"id", "parts": [{"name", "filename", "headers"}]}`.
        public var parts: [String: Any] {
            (try? JSONSerialization.jsonObject(with: partsJSON) as? [String: Any]) ?? [:]
        }
        var partsJSON: Data
    }

    public let directory: TemporaryDirectory
    public private(set) var port = 0
    private let token: String?
    private var process: ChildProcess?

    /// Starts the receiver; with `token`, requests without that bearer token get 401.
    public init(token: String? = nil) throws {
        directory = try TemporaryDirectory(prefix: "receiver")
        self.token = token
        try start()
    }

    /// `http://127.0.0.1:PORT`.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Starts it (again, on the same port after ``stop()``).
    public func start() throws {
        try? FileManager.default.removeItem(atPath: directory.file("port"))
        var arguments = [
            RepositoryPaths.root + "/Tests/Fixtures/receiver.py", "--dir", directory.path, "--port", String(port),
        ]
        if let token { arguments += ["--token", token] }
        let child = try ChildProcess("/usr/bin/env", ["python3"] + arguments)
        process = child
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: directory.file("port"), encoding: .utf8), let number = Int(text) {
                port = number
                return
            }
            guard child.isRunning else { break }
            usleep(20_000)
        }
        throw ReceiverError(description: "receiver.py did not start: \(child.errors())")
    }

    /// Kills it (a backend outage: connections are refused until ``start()``).
    public func stop() {
        process?.terminate()
        process = nil
    }

    /// Sets what the next requests get: `{"sequence": [...], "default": {...}}` (see receiver.py).
    public func plan(_ json: String) throws {
        let path = directory.file("plan.json")
        try json.write(toFile: path + ".tmp", atomically: false, encoding: .utf8)
        rename(path + ".tmp", path)
    }

    /// Lets held or stalled requests go on.
    public func release() {
        _ = FileManager.default.createFile(atPath: directory.file("release"), contents: Data())
    }

    /// Every request so far, in order.
    public func requests() -> [Request] {
        guard let text = try? String(contentsOfFile: directory.file("requests.jsonl"), encoding: .utf8) else {
            return []
        }
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Request.self, from: Data($0.utf8)) }
    }

    /// Every trickled answer that has ended, in order.
    public func trickles() -> [Trickle] {
        guard let text = try? String(contentsOfFile: directory.file("trickles.jsonl"), encoding: .utf8) else {
            return []
        }
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Trickle.self, from: Data($0.utf8)) }
    }

    /// The Idempotency-Keys stored so far.
    public func storedKeys() -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: directory.file("stored"))) ?? [])
    }

    /// What was stored under `key`.
    public func stored(_ key: String) -> Stored? {
        let folder = directory.file("stored/\(key)")
        guard let announcement = FileManager.default.contents(atPath: folder + "/announcement.json"),
            let photo = FileManager.default.contents(atPath: folder + "/photo.bin"),
            let body = FileManager.default.contents(atPath: folder + "/body.bin"),
            let parts = FileManager.default.contents(atPath: folder + "/parts.json")
        else { return nil }
        return Stored(announcement: announcement, photo: photo, body: body, partsJSON: parts)
    }

    /// Stops it and removes its files.
    public func remove() {
        release()
        stop()
        directory.remove()
    }

    deinit { process?.terminate() }
}

struct ReceiverError: Error, CustomStringConvertible {
    var description: String
}
