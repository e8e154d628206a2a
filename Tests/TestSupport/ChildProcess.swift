#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// A real child process for integration tests: its output captured, its
/// lifetime bounded, and always killed when the test is done.
public final class ChildProcess: @unchecked Sendable {
    public let process = Process()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let stdinPipe = Pipe()
    private let exited = DispatchSemaphore(value: 0)

    /// Starts `executable` with `arguments`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = stdinPipe
        let exited = self.exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
    }

    public var pid: Int32 { process.processIdentifier }

    /// Writes to the child's standard input.
    public func write(_ text: String) { stdinPipe.fileHandleForWriting.write(Data(text.utf8)) }

    /// Closes the child's standard input.
    public func closeInput() { try? stdinPipe.fileHandleForWriting.close() }

    /// Sends a signal.
    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the exit within `timeout` seconds; kills it and returns `nil` past that.
    public func wait(timeout: Double) -> Int32? {
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        exited.signal()  // later waits return at once
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Everything the child wrote to stdout (after it exited).
    public func output() -> String {
        String(decoding: stdoutPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Everything the child wrote to stderr (after it exited).
    public func errors() -> String {
        String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Kills the child if it still runs.
    public func terminate() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { terminate() }

    /// Runs a command to completion within `timeout` and returns (status, stdout, stderr).
    public static func run(
        _ executable: String, _ arguments: [String], input: String? = nil, timeout: Double = 60,
        environment: [String: String]? = nil
    ) throws -> (status: Int32?, stdout: String, stderr: String) {
        let child = try ChildProcess(executable, arguments, environment: environment)
        if let input { child.write(input) }
        child.closeInput()
        // Drain the pipes while waiting so a chatty child cannot block on a full pipe.
        let outputs = DrainedOutput(child)
        let status = child.wait(timeout: timeout)
        let (out, err) = outputs.finish()
        return (status, out, err)
    }
}

/// Reads a child's stdout and stderr on background threads.
final class DrainedOutput: @unchecked Sendable {
    private var out = Data()
    private var err = Data()
    private let group = DispatchGroup()

    init(_ child: ChildProcess) {
        let outHandle = (child.process.standardOutput as! Pipe).fileHandleForReading
        let errHandle = (child.process.standardError as! Pipe).fileHandleForReading
        group.enter()
        DispatchQueue.global().async {
            self.out = outHandle.readDataToEndOfFile()
            self.group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            self.err = errHandle.readDataToEndOfFile()
            self.group.leave()
        }
    }

    func finish() -> (String, String) {
        group.wait()
        return (String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
