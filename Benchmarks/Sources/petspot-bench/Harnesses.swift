import Glibc
import Foundation

/// Starts the release petspot-locationd on a temporary configuration: a
/// simulated source that emits a fresh fix every 100 ms, everyone
/// authorized, `max_clients` high enough for the fan-out step.
struct DaemonHarness {
    let process: ManagedProcess
    let socket: String

    /// The scenario: one fix, then 100 ms, forever (no `timestamp`: the
    /// simulated source stamps each fix with the wall clock when it emits it).
    static let scenario = """
        {"loop": true, "steps": [
          {"fix": {"latitude": 52.2297, "longitude": 21.0122, "altitude": 110, "horizontalAccuracy": 8,
                   "verticalAccuracy": 12, "speed": 1.4, "course": 90, "mode": 3}},
          {"wait": 0.1}
        ]}
        """

    /// Writes the configuration under `directory` and starts the daemon.
    /// - Parameters:
    ///   - kind: `simulated` (the benchmark source), `static` (idle baseline: no input at all) or
    ///     `gpsd` (the watch path: reads the gpsd on loopback port `gpsdPort`).
    static func start(
        binary: String, directory: String, name: String, kind: String, maxClients: Int, pin: String?,
        logLevel: String, logFile: String?, gpsdPort: UInt16? = nil
    ) throws -> DaemonHarness {
        let socket = "\(directory)/\(name).sock"
        let scenarioPath = "\(directory)/scenario.json"
        try scenario.write(toFile: scenarioPath, atomically: true, encoding: .utf8)
        var toml = """
            [daemon]
            socket = "\(socket)"
            socket_mode = "0600"
            state_dir = "\(directory)/\(name)-state"
            max_clients = \(maxClients)

            [source]
            kind = "\(kind)"

            [source.static]
            latitude = 52.2297
            longitude = 21.0122
            horizontal_accuracy = 15.0

            [policy]
            default = "authorized"
            prompt = "allow"

            """
        if kind == "simulated" { toml += "\n[source.simulated]\nscenario = \"\(scenarioPath)\"\n" }
        if let gpsdPort { toml += "\n[source.gpsd]\nhost = \"127.0.0.1\"\nport = \(gpsdPort)\n" }
        let configPath = "\(directory)/\(name).toml"
        try toml.write(toFile: configPath, atomically: true, encoding: .utf8)
        let process = try ManagedProcess(
            name: name, executable: binary, arguments: ["--config", configPath, "--log-level", logLevel], pin: pin,
            output: logFile)
        let harness = DaemonHarness(process: process, socket: socket)
        try harness.waitForFix()
        return harness
    }

    /// Waits until the socket answers `location.get` with a fix.
    ///
    /// Each probe asks with a 1 s timeout. A request that waits for a fix
    /// and is answered before its deadline leaves NIO's timer descriptor
    /// armed for that deadline (`SelectorEpoll` re-arms it only for an
    /// earlier one), so a loop wakes once when it passes; with the default
    /// 10 s that wake-up fell inside the first wake-up window, which opens
    /// 1 s after this returns, and was counted as the daemon's.
    func waitForFix(timeout: Double = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        let probe = #"{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"maxAge":5,"timeout":1}}"# + "\n"
        while Date() < deadline {
            guard process.isRunning else { throw BenchError("\(process.name) exited at start (see its log)") }
            if let reader = LoadGenerator.open(.unix(socket), exchange: .locationGet) {
                defer { close(reader.fd) }
                if Sockets.writeAll(reader.fd, probe), let line = reader.readLine(), line.contains("\"result\"") {
                    return
                }
            }
            usleep(100_000)
        }
        throw BenchError("\(process.name) did not answer location.get within \(Int(timeout)) s")
    }
}

/// gpsd 3.22 fed by gpsfake on a loopback TCP port, replaying a capture in
/// a loop (gpsfake without `-1` starts the log over at its end).
struct GpsdHarness {
    let gpsfake: ManagedProcess
    let gpsd: ManagedProcess
    let port: UInt16

    /// Starts `gpsfake -q -c CYCLE -t -s 38400 -P PORT LOG` and waits until
    /// gpsd answers `?POLL;` with an active device.
    /// - Parameter readAlways: `gpsfake -n`: gpsd reads the device from the
    ///   start, with or without a client (as a receiver's gpsd run with `-n`).
    static func start(
        log: String, port: UInt16, cycle: Double, pin: String?, directory: String, name: String = "gpsfake",
        readAlways: Bool = false
    ) throws -> GpsdHarness {
        let gpsfake = try ManagedProcess(
            name: name, executable: "/usr/bin/gpsfake",
            arguments: ["-q"] + (readAlways ? ["-n"] : []) + [
                "-c", String(cycle), "-t", "-s", "38400", "-P", String(port), log,
            ], pin: pin,
            output: "\(directory)/\(name).log")
        let deadline = Date().addingTimeInterval(30)
        var gpsdPID: Int32?
        while Date() < deadline {
            guard gpsfake.isRunning else {
                if let gpsdPID, kill(gpsdPID, 0) == 0 { ManagedProcess(name: "gpsd", pid: gpsdPID).stop() }
                throw BenchError("gpsfake exited (see \(directory)/\(name).log)")
            }
            if gpsdPID == nil { gpsdPID = ManagedProcess.find(commandLineContaining: ["-N", "-S", String(port)]) }
            // A watching client makes gpsfake start feeding; POLL answers once a device is active.
            if gpsdPID != nil, let reader = LoadGenerator.open(.tcp(port), exchange: .gpsdPoll) {
                defer { close(reader.fd) }
                let pollDeadline = Date().addingTimeInterval(10)
                while Date() < pollDeadline {
                    if LoadGenerator.exchangeOnce(reader, exchange: .gpsdPoll, id: 0) == true {
                        return GpsdHarness(
                            gpsfake: gpsfake, gpsd: ManagedProcess(name: "gpsd", pid: gpsdPID!), port: port)
                    }
                    usleep(200_000)
                }
            }
            usleep(200_000)
        }
        gpsfake.stop()
        if let gpsdPID, kill(gpsdPID, 0) == 0 { ManagedProcess(name: "gpsd", pid: gpsdPID).stop() }
        throw BenchError("gpsd did not answer ?POLL; with an active device within 30 s (see \(directory)/\(name).log)")
    }

    func stop() {
        gpsfake.stop()
        if gpsd.isRunning { gpsd.stop() }
    }
}

/// A benchmark failure with a message for the operator.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A receiver's stream with exactly the information the daemon answers
/// with: GGA, GSA (2 satellites' worth of DOPs, no satellite list) and RMC
/// at a fixed position, one epoch (fix) every 1/`rate` seconds, receiver
/// time advancing by as much. gpsd then answers `?POLL;` with a TPV and a
/// SKY without satellites, ~the daemon's answer in size, and sends one TPV
/// per epoch to a watcher.
enum SameInformationLog {
    /// Sentences per epoch.
    static let sentencesPerEpoch = 3

    /// gpsfake's `-c` (seconds between sentences) for `rate` epochs a second.
    static func cycle(rate: Int = 1) -> Double { 1.0 / Double(sentencesPerEpoch * rate) }

    /// Writes `seconds` of receiver time at `rate` epochs a second (rate 1,
    /// 2, 4, 5, 10, …: a divisor of 100, centisecond times).
    static func write(to path: String, seconds: Int = 3600, rate: Int = 1) throws {
        func sentence(_ body: String) -> String {
            let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            return "$\(body)*\(String(format: "%02X", checksum))\r\n"
        }
        var text = ""
        for epoch in 0..<(seconds * rate) {
            let centiseconds = epoch * 100 / rate
            let second = centiseconds / 100
            let time = String(
                format: "%02d%02d%02d.%02d", 12 + second / 3600 % 12, second / 60 % 60, second % 60,
                centiseconds % 100)
            text += sentence("GPGGA,\(time),5213.7820,N,02100.7320,E,1,08,0.9,110.0,M,34.0,M,,")
            text += sentence("GPGSA,A,3,,,,,,,,,,,,,1.6,0.9,1.3")
            text += sentence("GPRMC,\(time),A,5213.7820,N,02100.7320,E,0.0,0.0,261126,,,A")
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
