import Glibc
import Foundation
import Testing
import TestSupport

/// The daemon process on the gpsd source, fed by real gpsd replaying a real
/// capture: the wiring from configuration to answer.
@Suite("petspot-locationd on real gpsd")
struct GpsdDaemonTests {
    /// Children inherit the test runner's blocked signal mask (SIGCHLD among
    /// them, which makes gpsfake spin); this restores defaults, then execs.
    static let cleanSignals = """
        import os, signal, sys
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        for s in (signal.SIGPIPE, signal.SIGCHLD, signal.SIGTERM, signal.SIGINT):
            signal.signal(s, signal.SIG_DFL)
        os.execv(sys.argv[1], sys.argv[1:])
        """

    @Test(
        "get answers a position gpsd itself reported for the capture (bu353s4: southern and eastern hemispheres)",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsfake"), "gpsfake is not installed"))
    func getThroughRealGpsd() throws {
        let capture = RepositoryPaths.gpsLogs + "/bu353s4.log"
        try #require(FileManager.default.fileExists(atPath: capture), "captures expected at \(RepositoryPaths.gpsLogs)")
        for attempt in 1...3 {
            let port = freeLoopbackPort()
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            // -c 0.2: slow, looping replay so gpsd keeps a fresh fix while we ask.
            let gpsfake = try ChildProcess(
                "/usr/bin/python3",
                [
                    "-c", Self.cleanSignals, "/usr/bin/timeout", "-k", "3", "300", "/usr/bin/gpsfake", "-p", "-t", "-c",
                    "0.2",
                    "-s", "38400", "-P", "\(port)", capture,
                ])
            defer {
                gpsfake.signal(SIGTERM)
                gpsfake.wait(timeout: 10)
            }
            // gpsd is up once gpsfake's own watcher prints gpsd's first report.
            guard gpsfake.waitForStdout(containing: #"{"class":"TPV""#, timeout: 120) else {
                if attempt < 3 { continue }
                Issue.record("gpsfake never fed gpsd: \(gpsfake.errors())")
                return
            }
            let daemon = try DaemonProcess(
                source: "[source]\nkind = \"gpsd\"\n[source.gpsd]\nport = \(port)\nreconnect_max = 1\n")
            defer { daemon.stop() }
            let run = try daemon.cli(["get", "--json", "--max-age", "2", "--timeout", "20"], timeout: 90)
            if run.status != 0, attempt < 3, !gpsfake.isRunning { continue }  // gpsfake's rare "Test timed out"
            #expect(run.status == 0, "\(run.stderr)\ngpsfake: \(gpsfake.errors())")
            let fix = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            #expect(fix["source"] as? String == "gpsd")
            let latitude = try #require(fix["latitude"] as? Double)
            let longitude = try #require(fix["longitude"] as? Double)
            // gpsfake -p prints gpsd's own reports: the answer must be one of them.
            let reported = gpsfake.output().split(whereSeparator: \.isNewline).compactMap { line -> (Double, Double)? in
                guard line.hasPrefix(#"{"class":"TPV""#),
                    let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let lat = object["lat"] as? Double, let lon = object["lon"] as? Double
                else { return nil }
                return (lat, lon)
            }
            #expect(
                reported.contains { abs($0.0 - latitude) < 1e-6 && abs($0.1 - longitude) < 1e-6 },
                "\(latitude), \(longitude) not among gpsd's \(reported.count) reports")
            #expect(latitude < -37 && latitude > -38 && longitude > 175 && longitude < 176)
            let status = try daemon.cli(["status", "--json"])
            #expect(status.stdout.contains(#""kind":"gpsd""#))
            return
        }
    }
}
