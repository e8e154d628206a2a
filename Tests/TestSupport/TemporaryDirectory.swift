import Foundation

/// A fresh directory under /tmp, removed by ``remove()``. Paths stay short
/// because Unix socket paths are limited to 107 bytes.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "petspot") throws {
        let template = "/tmp/\(prefix).XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let result = mkdtemp(&bytes) else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = String(cString: result)
    }

    /// `path/name`.
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Writes `text` to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        let target = file(name)
        try text.write(toFile: target, atomically: true, encoding: .utf8)
        return target
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
