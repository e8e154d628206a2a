import Glibc
import Foundation
import Testing
import TestSupport

/// `petspot-kiosk` as a process.
@Suite("The kiosk process")
struct KioskProcessTests {
    /// Issue 29 item 6: the kiosk sets its own umask (0077) at start, as
    /// its unit's `UMask=0077` does, so that what it creates is private
    /// however it was started. Started here under umask 000 (the shell's
    /// umask passes through `exec`); the kernel says the running
    /// process's umask in `/proc/PID/status`.
    @Test func itRunsUnderUmask0077WhateverItWasStartedWith() throws {
        let directory = try TemporaryDirectory(prefix: "psk")
        defer { directory.remove() }
        let configuration = try directory.write(
            "kiosk.toml",
            """
            [kiosk]
            listen = "127.0.0.1:\(freeLoopbackPort())"
            [location]
            socket = "\(directory.path)/no-daemon.sock"
            [outbox]
            path = "\(directory.path)/outbox"
            """)
        let kiosk = try ChildProcess(
            "/bin/sh",
            [
                "-c", #"umask 000 && exec "$0" "$@""#, RepositoryPaths.executable("petspot-kiosk"),
                "--config", configuration,
            ],
            environment: ["XDG_CACHE_HOME": directory.file("cache")])
        defer {
            kiosk.signal(SIGTERM)
            kiosk.wait(timeout: 10)
        }
        try #require(kiosk.waitForStderr(containing: "serving on", timeout: 60), "\(kiosk.errors())")
        let status = try String(contentsOfFile: "/proc/\(kiosk.pid)/status", encoding: .utf8)
        let umaskLine = status.split(separator: "\n").first { $0.hasPrefix("Umask:") }
        #expect(umaskLine == "Umask:\t0077", "\(umaskLine ?? "no Umask line in /proc/\(kiosk.pid)/status")")
    }
}
