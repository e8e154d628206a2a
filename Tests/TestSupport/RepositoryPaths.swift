import Foundation

/// Where things are, for tests: the repository, the shared captures beside
/// it, and the built executables.
public enum RepositoryPaths {
    /// The repository root (found from this file's location).
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url.path
            }
        }
        return FileManager.default.currentDirectoryPath
    }()

    /// `../shared` beside the repository.
    public static var shared: String {
        URL(fileURLWithPath: root).deletingLastPathComponent().appendingPathComponent("shared").path
    }

    /// The real receiver captures.
    public static var gpsLogs: String { shared + "/gps-logs" }

    /// The folder holding the built products (next to the test bundle).
    public static let productsDirectory: String = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        // .../debug/petspot-locationPackageTests.xctest (a file on Linux)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("petspot-locationd").path) {
                return url.path
            }
        }
        return root + "/.build/debug"
    }()

    /// The path of a built executable.
    public static func executable(_ name: String) -> String { productsDirectory + "/" + name }
}
