import Foundation

/// What an outbox holds on disk, read as raw bytes: the database file, its
/// WAL and its shared-memory file, as they are while the outbox is open
/// (the kiosk running), not as SQLite would answer a query.
public enum OutboxFileScan {
    /// The database's three files in an outbox directory.
    public static let files = ["outbox.sqlite", "outbox.sqlite-wal", "outbox.sqlite-shm"]

    /// Every `needle` found in any of the three files, as `"FILE: NEEDLE"`
    /// (a file that does not exist holds nothing).
    public static func find(_ needles: [String], inOutbox directory: String) -> [String] {
        var found: [String] = []
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: directory + "/" + file) else { continue }
            for needle in needles where bytes.range(of: Data(needle.utf8)) != nil {
                found.append("\(file): \(needle)")
            }
        }
        return found
    }

    /// The `needles` found in at least one of the three files.
    public static func present(_ needles: [String], inOutbox directory: String) -> Set<String> {
        Set(needles.filter { !find([$0], inOutbox: directory).isEmpty })
    }

    /// Each file's size in bytes (`nil` when it does not exist), for messages.
    public static func sizes(inOutbox directory: String) -> String {
        files.map { file in
            let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + file))?[.size] as? Int
            return "\(file) \(size.map(String.init) ?? "missing")"
        }.joined(separator: ", ")
    }
}
