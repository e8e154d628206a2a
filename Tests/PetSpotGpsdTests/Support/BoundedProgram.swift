import Foundation
import Glibc
import Synchronization

/// Children inherit the test runner thread's blocked signal mask (SIGCHLD
/// included, which makes gpsfake spin forever) and its ignored SIGPIPE; this
/// launcher restores the defaults, then execs the real program in place.
///
/// It also sends the program's output to the file named by
/// `PETSPOT_CHILD_OUTPUT`, opened here in the child: the parent never holds
/// a descriptor for it. (Foundation's `Process` given one `FileHandle` for
/// both standard output and error could close its number more than once in
/// the test process, where other tests' sockets reuse such numbers.)
let cleanSignals = """
    import os, signal, sys
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    for s in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD, signal.SIGTERM, signal.SIGINT):
        signal.signal(s, signal.SIG_DFL)
    output = os.environ.pop("PETSPOT_CHILD_OUTPUT", None)
    if output:
        fd = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    os.execv(sys.argv[1], sys.argv[1:])
    """

/// An external program run by a test, always bounded: `timeout(1)` wraps it
/// (it puts the program in its own process group and, on expiry or on our
/// SIGTERM, signals the whole group, so gpsfake's gpsd goes too).
final class BoundedProgram: @unchecked Sendable {
    // @unchecked: `Process` is not Sendable; it is only touched in init and
    // through its thread-safe pid, and the exit status lives in a Mutex.
    private let process = Process()
    private let status = Locked<Int32?>(nil)
    private let exits: AsyncStream<Int32>
    private let exitContinuation: AsyncStream<Int32>.Continuation
    /// The program's standard input, when it was asked for one.
    private let input: Pipe?

    /// The wrapped program's command line, for messages.
    let commandLine: String

    /// Starts `arguments` under `timeout -k 3 <limit>`, output to `outputPath` (or /dev/null);
    /// with `input`, its standard input is a pipe that ``send(_:)`` writes to (else /dev/null).
    init(_ arguments: [String], limit: Duration, outputPath: String? = nil, input: Bool = false) throws {
        commandLine = arguments.joined(separator: " ")
        (exits, exitContinuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .bufferingNewest(1))
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments =
            ["-c", cleanSignals, "/usr/bin/timeout", "-k", "3", "\(Int(limit.components.seconds))"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        if let outputPath {
            var environment = ProcessInfo.processInfo.environment
            environment["PETSPOT_CHILD_OUTPUT"] = outputPath
            process.environment = environment
        }
        self.input = input ? Pipe() : nil
        process.standardInput = self.input ?? FileHandle.nullDevice
        let status = self.status
        let continuation = exitContinuation
        process.terminationHandler = { finished in
            status.value = finished.terminationStatus
            continuation.yield(finished.terminationStatus)
            continuation.finish()
        }
        try process.run()
    }

    /// The pid of `timeout`, whose process group holds the program.
    var pid: Int32 { process.processIdentifier }

    /// The exit status once it exited.
    var exitStatus: Int32? { status.value }

    /// Waits for the exit, at most `limit`.
    /// - Returns: the exit status, or nil when it is still running.
    func waitForExit(within limit: Duration) async -> Int32? {
        if let done = exitStatus { return done }
        let exits = self.exits
        return await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                for await code in exits { return code }
                return self.exitStatus
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? exitStatus
        }
    }

    /// Writes `text` to the program's standard input (nothing once it is gone:
    /// the test process ignores SIGPIPE, so the write just fails).
    func send(_ text: String) {
        try? input?.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    /// Sends `signal` to the program (through `timeout`, which relays it to its group).
    func signal(_ signal: Int32) {
        guard exitStatus == nil else { return }
        kill(pid, signal)
    }

    /// Stops it for good: SIGTERM, then SIGKILL to `timeout`'s group; waits for the exit.
    func terminate() async {
        signal(SIGTERM)
        if await waitForExit(within: .seconds(5)) == nil {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            _ = await waitForExit(within: .seconds(5))
        }
    }
}

/// A gpsd run directly (no gpsfake), so a test can SIGKILL it like a crash.
final class GpsdDaemon: @unchecked Sendable {
    // @unchecked for the same reason as BoundedProgram.
    private let process = Process()
    private let exited = Locked(false)
    private let exits: AsyncStream<Void>
    let port: Int

    /// Starts `gpsd -N -n -S port devices…` in the foreground, output discarded.
    init(port: Int, devices: [String]) throws {
        self.port = port
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        exits = stream
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", cleanSignals, "/usr/sbin/gpsd", "-N", "-n", "-S", "\(port)"] + devices
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let exited = self.exited
        process.terminationHandler = { _ in
            exited.value = true
            continuation.yield()
            continuation.finish()
        }
        try process.run()
    }

    /// Whether it has exited (e.g. it could not bind its port).
    var hasExited: Bool { exited.value }

    /// SIGKILL, as if gpsd crashed; returns once it is reaped (bounded).
    func kill() async {
        if !exited.value { Glibc.kill(process.processIdentifier, SIGKILL) }
        let exits = self.exits
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await _ in exits { return } }
            group.addTask { try? await Task.sleep(for: .seconds(5)) }
            await group.next()
            group.cancelAll()
        }
    }
}
