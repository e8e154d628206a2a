import Glibc
import Foundation
@testable import PetSpotDaemon
import PetSpotPolicy
import Testing
import TestSupport

/// Hardening item 13: a client's process is pinned at accept; identity read
/// later counts only if it is still that process, unchanged.
@Suite struct ProcessPinTests {
    /// A fake procfs entry for `pid`: `stat` with a start time and an `exe` link.
    static func fakeProc(_ root: TemporaryDirectory, pid: Int32, start: UInt64, exe: String) throws {
        let directory = root.file("\(pid)")
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fields = (4...21).map { _ in "0" }.joined(separator: " ")
        try "\(pid) (odd) name) S \(fields) \(start) 0 0\n".write(
            toFile: directory + "/stat", atomically: true, encoding: .utf8)
        unlink(directory + "/exe")
        symlink(exe, directory + "/exe")
    }

    @Test func theStartTimeIsReadPastTheCommandName() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        try Self.fakeProc(root, pid: 4242, start: 987_654, exe: "/usr/bin/x")
        #expect(ProcessPin.startTime(pid: 4242, procRoot: root.path) == 987_654)
        // This process's own, from the real procfs.
        #expect(ProcessPin.startTime(pid: getpid()) != nil)
    }

    @Test func item13_anExecAfterAcceptUnpinsTheExecutable() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let child = try ChildProcess("/bin/sleep", ["600"])
        defer { child.terminate() }
        let pid = child.process.processIdentifier
        try Self.fakeProc(root, pid: pid, start: 100, exe: "/usr/bin/python3")
        let pin = ProcessPin(descriptor: -1, pid: pid, procRoot: root.path)
        #expect(pin.executable == "/usr/bin/python3")
        #expect(pin.confirms(executable: "/usr/bin/python3", procRoot: root.path))
        // The process execs a trusted binary before its identity is read.
        try Self.fakeProc(root, pid: pid, start: 100, exe: "/usr/bin/petspot-kiosk")
        #expect(!pin.confirms(executable: "/usr/bin/petspot-kiosk", procRoot: root.path))
    }

    @Test func item13_aReusedPidIsNotThePinnedProcess() throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let child = try ChildProcess("/bin/sleep", ["600"])
        defer { child.terminate() }
        let pid = child.process.processIdentifier
        try Self.fakeProc(root, pid: pid, start: 100, exe: "/usr/bin/x")
        let pin = ProcessPin(descriptor: -1, pid: pid, procRoot: root.path)
        // Same pid, another process (another start time).
        try Self.fakeProc(root, pid: pid, start: 200, exe: "/usr/bin/x")
        #expect(!pin.confirms(executable: "/usr/bin/x", procRoot: root.path))
    }

    @Test func item13_anExitedProcessIsNotPinned() throws {
        let child = try ChildProcess("/bin/sleep", ["600"])
        let pid = child.process.processIdentifier
        let pin = ProcessPin(descriptor: -1, pid: pid)
        let executable = PeerIdentityResolver().executable(pid: pid)
        #expect(pin.confirms(executable: executable))
        child.signal(SIGKILL)
        _ = child.wait(timeout: 60)
        #expect(!pin.confirms(executable: executable))
    }
}
