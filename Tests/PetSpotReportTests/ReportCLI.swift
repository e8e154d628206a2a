import Foundation
import Glibc

/// Runs the built `petspot-report` binary with lines on its standard input.
///
/// Reusable for the daemon-backed end-to-end test: pass `--socket PATH`
/// instead of `--scenario FILE` in `arguments`.
struct ReportCLI {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct NotFound: Error, CustomStringConvertible {
        var searched: [String]
        var description: String { "petspot-report not found in \(searched)" }
    }

    /// The binary beside the test bundle (`.build/<triple>/debug`).
    static func executable() throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug"),
        ].map { $0.appendingPathComponent("petspot-report") }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return found
        }
        throw NotFound(searched: candidates.map(\.path))
    }

    /// Runs `petspot-report` with `arguments`, feeding `input` (one element
    /// per line) and then end of input; kills it after `timeout` seconds.
    /// It waits without blocking a thread: the test process's other tests
    /// share Swift's cooperative pool (two threads on a 2-core machine),
    /// and a test that blocked one for the child's whole life starved them
    /// on a loaded machine.
    static func run(
        _ arguments: [String], input: [String], environment: [String: String] = [:], timeout: Double = 60
    ) async throws -> Output {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let scratch = try PhotoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputFile = try PhotoFixtures.write(
            Array(input.map { $0 + "\n" }.joined().utf8), named: "stdin", in: scratch)
        let outFile = scratch.appendingPathComponent("stdout")
        let errFile = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        let (exits, exited) = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.finish() }
        try process.run()
        let pid = process.processIdentifier
        let killer = Task {
            guard (try? await Task.sleep(for: .seconds(timeout))) != nil else { return }
            kill(pid, SIGKILL)
        }
        for await _ in exits {}
        killer.cancel()
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outFile), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errFile), as: UTF8.self))
    }

    /// Answers for a complete, valid found-pet report, with `coordinates`
    /// as the lines typed at the latitude prompt (e.g. `["gps"]` or
    /// `["52,2297", "21.0122"]`).
    static func validAnswers(photo: String, coordinates: [String]) -> [String] {
        [photo, "today", "dog", "Beagle", "female", "3"] + coordinates
            + ["123456789012345", "Rex", "Brown collar", "600123456", "finder@example.com", "", "", ""]
    }
}
