import Glibc
import Foundation

/// A real child process for integration tests: its output collected as it
/// comes (so a chatty child never blocks on a full pipe), its lifetime
/// bounded, and always killed when the test is done.
public final class ChildProcess: @unchecked Sendable {
    public let process = Process()
    private let stdinPipe = Pipe()
    private let exited = DispatchSemaphore(value: 0)
    private let stdoutCollector: OutputCollector
    private let stderrCollector: OutputCollector

    /// Starts `executable` with `arguments` (and extra environment variables).
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let stdoutPipe = Pipe()
        let stderrPipe = Pipe()
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = stdinPipe
        let exited = self.exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        stdoutCollector = OutputCollector(stdoutPipe.fileHandleForReading)
        stderrCollector = OutputCollector(stderrPipe.fileHandleForReading)
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Writes to the child's standard input.
    public func write(_ text: String) { try? stdinPipe.fileHandleForWriting.write(contentsOf: Data(text.utf8)) }

    /// Closes the child's standard input.
    public func closeInput() { try? stdinPipe.fileHandleForWriting.close() }

    /// Sends a signal.
    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the exit within `timeout` seconds; kills it and returns `nil` past that.
    @discardableResult
    public func wait(timeout: Double) -> Int32? {
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            // A hang is a bug to diagnose: say where every thread was.
            if let stacks = Self.stacks(of: process.processIdentifier) {
                print(
                    "ChildProcess: \(process.executableURL?.lastPathComponent ?? "?") still running after \(timeout) s; threads:\n\(stacks)"
                )
            }
            kill(process.processIdentifier, SIGKILL)
            // Foundation's Process can miss a child's exit (seen once: `userdel`
            // left a zombie that was never reaped and `waitUntilExit` never
            // returned); never wait for it unboundedly.
            if exited.wait(timeout: .now() + 5) == .timedOut {
                print("ChildProcess: the exit of pid \(process.processIdentifier) was never reported; reaping it")
                var status: Int32 = 0
                _ = waitpid(process.processIdentifier, &status, WNOHANG)
            }
            return nil
        }
        exited.signal()  // later waits return at once
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Whether the child's stderr shows `text` within `timeout` seconds.
    public func waitForStderr(containing text: String, timeout: Double) -> Bool {
        stderrCollector.wait(for: text, timeout: timeout)
    }

    /// Whether the child's stdout shows `text` within `timeout` seconds.
    public func waitForStdout(containing text: String, timeout: Double) -> Bool {
        stdoutCollector.wait(for: text, timeout: timeout)
    }

    /// What the child wrote to stdout so far (all of it once it exited).
    public func output() -> String { stdoutCollector.text(final: !process.isRunning) }

    /// What the child wrote to stderr so far (all of it once it exited).
    public func errors() -> String { stderrCollector.text(final: !process.isRunning) }

    /// Every thread's backtrace of `pid` (gdb, when installed), bounded in time.
    public static func stacks(of pid: Int32) -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") else { return nil }
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        gdb.arguments = ["20", "/usr/bin/gdb", "-p", String(pid), "-batch", "-ex", "thread apply all bt"]
        let output = Pipe()
        gdb.standardOutput = output
        gdb.standardError = FileHandle.nullDevice
        guard (try? gdb.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        gdb.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Kills the child if it still runs.
    public func terminate() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { terminate() }

    /// Runs a command to completion within `timeout` and returns (status, stdout, stderr);
    /// status is `nil` when it had to be killed.
    public static func run(
        _ executable: String, _ arguments: [String], input: String? = nil, timeout: Double = 60,
        environment: [String: String]? = nil
    ) throws -> (status: Int32?, stdout: String, stderr: String) {
        let child = try ChildProcess(executable, arguments, environment: environment)
        if let input { child.write(input) }
        child.closeInput()
        let status = child.wait(timeout: timeout)
        return (status, child.output(), child.errors())
    }
}

/// Collects a pipe's bytes on a background thread and lets tests wait for text.
final class OutputCollector: @unchecked Sendable {
    private let condition = NSCondition()
    private var data = Data()
    private var finished = false

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                condition.lock()
                if chunk.isEmpty {
                    finished = true
                } else {
                    data.append(chunk)
                }
                condition.broadcast()
                condition.unlock()
                if chunk.isEmpty { return }
            }
        }
    }

    func wait(for text: String, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !String(decoding: data, as: UTF8.self).contains(text) {
            if finished || !condition.wait(until: deadline) {
                return String(decoding: data, as: UTF8.self).contains(text)
            }
        }
        return true
    }

    func text(final: Bool) -> String {
        condition.lock()
        defer { condition.unlock() }
        if final {
            let deadline = Date().addingTimeInterval(5)
            while !finished, condition.wait(until: deadline) {}
        }
        return String(decoding: data, as: UTF8.self)
    }
}
