import Glibc
import Foundation
import Testing
import TestSupport

/// The NMEA socket read by real consumers (issue 18 item 3): gpsd through a
/// pty bridge, GeoClue under a private D-Bus system bus with its
/// `nmea-socket` pointed at it, and the policy deciding who reads what.
@Suite("NMEA socket and its consumers", .serialized)
struct NMEAConsumerTests {
    /// A station that does not move: the same position five times a second.
    static let latitude = 48.858_37
    static let longitude = 2.294_48
    static let scenario = """
        {"loop": true, "steps": [
          {"path": {"from": {"latitude": \(latitude), "longitude": \(longitude)},
                    "to": {"latitude": \(latitude), "longitude": \(longitude)},
                    "count": 100, "interval": 0.2, "horizontalAccuracy": 4, "altitude": 35, "mode": 3}}
        ]}
        """

    /// A daemon with the NMEA socket open to every local user (the policy decides):
    /// root reads at full accuracy, `reduced` (if given) reduced, everyone else is denied.
    static func daemon(reduced: String? = nil, maxClients: Int = 4) throws -> DaemonProcess {
        var rules = """
            [[policy.rules]]
            user = "root"
            status = "authorized"
            """
        if let reduced {
            rules += "\n[[policy.rules]]\nuser = \"\(reduced)\"\nstatus = \"authorized\"\naccuracy = \"reduced\"\n"
        }
        let daemon = try DaemonProcess(
            source: Fixtures.simulated("station.json"), daemon: "socket_mode = \"0666\"",
            policy: """
                [policy]
                default = "denied"
                \(rules)

                [nmea]
                socket = "{dir}/nmea.sock"
                socket_mode = "0666"
                max_clients = \(maxClients)
                """,
            files: ["station.json": scenario])
        // Started means the protocol socket accepts; the NMEA socket is bound
        // beside it by its own service. No signal reaches a test process: poll.
        let nmea = daemon.directory.file("nmea.sock")
        let deadline = Date().addingTimeInterval(60)
        while !RawSocket.isListening(nmea), Date() < deadline { usleep(20_000) }
        return daemon
    }

    /// Reads the NMEA socket (as `user`, if given) for up to `seconds`, or
    /// until every sentence in `until` has arrived whole (then at once: a
    /// loaded machine may take long to send them, and only an absence needs
    /// the whole window); what arrived.
    static func read(
        _ socket: String, as user: TestUsers.User? = nil, seconds: Double = 3, until sentences: [String] = []
    ) throws -> String {
        let script = """
            import socket, sys, time
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sys.argv[1])
            s.settimeout(0.2)
            wanted = [w.encode() for w in sys.argv[3:]]
            data, end = b"", time.time() + float(sys.argv[2])
            while time.time() < end:
                if wanted and data.endswith(b"\\n") and all(w in data for w in wanted):
                    break
                try:
                    chunk = s.recv(4096)
                except socket.timeout:
                    continue
                if not chunk:
                    break
                data += chunk
            sys.stdout.write(data.decode())
            """
        let command = ["/usr/bin/python3", "-c", script, socket, String(seconds)] + sentences
        let run =
            if let user {
                try ChildProcess.run("/usr/bin/setpriv", TestUsers.asUser(user, command), timeout: seconds + 20)
            } else {
                try ChildProcess.run(command[0], Array(command.dropFirst()), timeout: seconds + 20)
            }
        return run.stdout
    }

    /// The position of the first GGA in `text`, parsed as NMEA says.
    static func firstGGA(_ text: String) -> (latitude: Double, longitude: Double)? {
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("$GPGGA,") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 15, let lat = Double(fields[2]), let lon = Double(fields[4]) else { return nil }
            func degrees(_ value: Double) -> Double {
                (value / 100).rounded(.down) + value.truncatingRemainder(dividingBy: 100) / 60
            }
            return (
                degrees(lat) * (fields[3] == "S" ? -1 : 1), degrees(lon) * (fields[5] == "W" ? -1 : 1)
            )
        }
        return nil
    }

    @Test(
        "root reads full-accuracy sentences; a denied user gets none; a reduced user gets the snapped position",
        .enabled(if: TestUsers.available, "needs root and setpriv"))
    func policyDecidesWhatEachConsumerReads() throws {
        let users = TestUsers()
        defer { users.remove() }
        let denied = try users.user("nmeadeny")
        let reduced = try users.user("nmearedu")
        let daemon = try Self.daemon(reduced: reduced.name)
        defer { daemon.stop() }
        // Other users reach the socket through the test's folder; the policy alone decides.
        chmod(daemon.directory.path, 0o755)
        let socket = daemon.directory.file("nmea.sock")
        let probe = try ChildProcess.run(
            "/usr/bin/setpriv", TestUsers.asUser(denied, ["/usr/bin/test", "-w", socket]), timeout: 60)
        try #require(probe.status == 0, "the denied user cannot even reach the socket: the test would prove nothing")

        let full = try Self.read(socket, seconds: 60, until: ["$GPGGA,", "$GPRMC,", "$GPGSA,"])
        let position = try #require(Self.firstGGA(full), "no GGA: \(full)")
        #expect(abs(position.latitude - Self.latitude) < 1e-5 && abs(position.longitude - Self.longitude) < 1e-5)
        #expect(full.contains("$GPRMC,") && full.contains("$GPGSA,A,3,"))

        #expect(try Self.read(socket, as: denied, seconds: 2).isEmpty, "a denied consumer got sentences")

        // The reduced consumer sees what a reduced location.get gets: the same snapped cell centre.
        let snapped = try #require(
            Self.firstGGA(try Self.read(socket, as: reduced, seconds: 60, until: ["$GPGGA,"])),
            "no GGA for the reduced consumer")
        let get = try TestUsers.cli(reduced, ["get", "--json", "--socket", daemon.socketPath], timeout: 60)
        let fix = try #require(
            try JSONSerialization.jsonObject(with: Data(get.stdout.utf8)) as? [String: Any], "\(get.stderr)")
        #expect(fix["accuracy"] as? String == "reduced")
        let cellLatitude = try #require(fix["latitude"] as? Double)
        let cellLongitude = try #require(fix["longitude"] as? Double)
        #expect(abs(snapped.latitude - cellLatitude) < 1e-5 && abs(snapped.longitude - cellLongitude) < 1e-5)
        #expect(abs(snapped.latitude - Self.latitude) > 1e-4 || abs(snapped.longitude - Self.longitude) > 1e-4)

        // Every consumer was judged and audited as a watch.
        let audit = try String(contentsOfFile: daemon.directory.file("state/audit.jsonl"), encoding: .utf8)
        #expect(audit.contains(#""method":"location.watch""#) && audit.contains(#""status":"denied""#))
    }

    @Test("past nmea.max_clients a consumer is disconnected without a sentence; the others go on")
    func consumersPastTheBoundAreRefused() throws {
        let daemon = try Self.daemon(maxClients: 1)
        defer { daemon.stop() }
        let socket = daemon.directory.file("nmea.sock")
        let holder = try ChildProcess("/usr/bin/python3", ["-c", Self.readUntilEOF, socket])
        defer { holder.terminate() }
        try #require(holder.waitForStdout(containing: "reading", timeout: 60), "no sentence: \(holder.errors())")
        #expect(try Self.read(socket, seconds: 2).isEmpty, "a second consumer got sentences past max_clients = 1")
        #expect(!holder.output().contains("eof"), "the first consumer lost its connection")
        // Once the first leaves, the slot is free again (as soon as the daemon has seen it leave).
        holder.terminate()
        var again = ""
        let deadline = Date().addingTimeInterval(60)
        while !again.contains("$GPGGA,"), Date() < deadline {
            // Refused, a consumer is let go at once; admitted, it reads until the first GGA.
            again = try Self.read(socket, seconds: 10, until: ["$GPGGA,"])
        }
        #expect(again.contains("$GPGGA,"), "the slot was not freed")
    }

    /// Reads a socket until EOF: prints "reading" at the first bytes and "eof" at the end.
    static let readUntilEOF = """
        import socket, sys, time
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sys.argv[1])
        s.settimeout(30)
        first = True
        while True:
            chunk = s.recv(4096)
            if not chunk:
                print("eof", flush=True)
                break
            if first:
                print("reading", flush=True)
                first = False
        """

    @Test("a consumer that loses its authorization at a reload is disconnected")
    func aReloadThatTakesTheRightAwayDisconnects() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let reader = try ChildProcess(
            "/usr/bin/python3", ["-c", Self.readUntilEOF, daemon.directory.file("nmea.sock")])
        defer { reader.terminate() }
        try #require(reader.waitForStdout(containing: "reading", timeout: 60), "no sentence: \(reader.errors())")
        // The same file without the rule that authorized root.
        let configuration = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        let withoutRoot = configuration.replacingOccurrences(
            of: "[[policy.rules]]\nuser = \"root\"\nstatus = \"authorized\"", with: "")
        try #require(withoutRoot != configuration)
        try withoutRoot.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        daemon.child.signal(SIGHUP)
        #expect(reader.waitForStdout(containing: "eof", timeout: 60), "still reading after the reload")
        let audit = try String(contentsOfFile: daemon.directory.file("state/audit.jsonl"), encoding: .utf8)
        #expect(audit.contains(#""method":"location.watchEnded""#))
    }

    @Test(
        "gpsd reading the NMEA socket through a pty (socat) reports the daemon's position",
        .enabled(
            if: ["/usr/bin/socat", "/usr/sbin/gpsd", "/usr/bin/gpspipe"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: $0)
            }, "socat, gpsd or gpspipe is not installed"))
    func gpsdReadsItThroughAPty() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let pty = daemon.directory.file("gps0")
        let bridge = try ChildProcess(
            "/usr/bin/socat", ["PTY,link=\(pty),raw,echo=0", "UNIX-CONNECT:\(daemon.directory.file("nmea.sock"))"])
        defer {
            bridge.signal(SIGTERM)
            bridge.wait(timeout: 10)
        }
        let made = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: pty), Date() < made { usleep(50_000) }
        try #require(FileManager.default.fileExists(atPath: pty), "socat made no pty: \(bridge.errors())")
        let port = freeLoopbackPort()
        // -b: read-only, never writes probe strings to what it takes for a serial device.
        let gpsd = try ChildProcess(
            "/usr/bin/python3",
            ["-c", GpsdDaemonTests.cleanSignals, "/usr/sbin/gpsd", "-N", "-n", "-b", "-S", "\(port)", pty])
        defer {
            gpsd.signal(SIGTERM)
            gpsd.wait(timeout: 10)
        }
        var report: [String: Any]?
        let deadline = Date().addingTimeInterval(120)
        while report == nil, Date() < deadline {
            let pipe = try ChildProcess.run("/usr/bin/gpspipe", ["-w", "-n", "12", "127.0.0.1:\(port)"], timeout: 30)
            report =
                pipe.stdout.split(whereSeparator: \.isNewline).lazy.compactMap { line -> [String: Any]? in
                    guard line.hasPrefix(#"{"class":"TPV""#),
                        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                        object["lat"] != nil
                    else { return nil }
                    return object
                }.first
        }
        let tpv = try #require(report, "gpsd never reported a position: \(gpsd.errors())")
        let latitude = try #require(tpv["lat"] as? Double)
        let longitude = try #require(tpv["lon"] as? Double)
        #expect(abs(latitude - Self.latitude) < 1e-5 && abs(longitude - Self.longitude) < 1e-5, "\(tpv)")
        #expect(tpv["mode"] as? Int == 3)
    }

    /// A private system bus, GeoClue on it with its configuration bound over
    /// /etc/geoclue/geoclue.conf in a mount namespace of its own (the
    /// machine's file is untouched), and a minimal agent that allows.
    static let geoclueAvailable =
        [
            "/usr/libexec/geoclue", "/usr/libexec/geoclue-2.0/demos/where-am-i", "/usr/bin/dbus-daemon",
            "/usr/bin/unshare",
        ].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) } && getuid() == 0
        && (try? ChildProcess.run("/usr/bin/python3", ["-c", "import dbus, gi"], timeout: 20).status) == 0

    static let agent = """
        import sys, dbus, dbus.service, dbus.mainloop.glib
        from gi.repository import GLib

        class Agent(dbus.service.Object):
            @dbus.service.method("org.freedesktop.GeoClue2.Agent", in_signature="su", out_signature="bu")
            def AuthorizeApp(self, desktop_id, level):
                return (True, level)

            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
            def Get(self, interface, name):
                return dbus.UInt32(8)

            @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
            def GetAll(self, interface):
                return {"MaxAccuracyLevel": dbus.UInt32(8)}

        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        bus = dbus.SystemBus()
        Agent(bus, "/org/freedesktop/GeoClue2/Agent")
        loop = GLib.MainLoop()
        manager = bus.get_object("org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager")
        # Asynchronously: GeoClue reads MaxAccuracyLevel back from the agent while registering it.
        dbus.Interface(manager, "org.freedesktop.GeoClue2.Manager").AddAgent(
            "petspot-test-agent", reply_handler=lambda: print("agent registered", flush=True),
            error_handler=lambda error: (print("agent refused:", error, flush=True), loop.quit()))
        loop.run()
        """

    @Test(
        "GeoClue with nmea-socket pointed at the daemon: its demo client receives the daemon's position",
        .enabled(if: geoclueAvailable, "needs root, geoclue-2.0, geoclue-2-demo, dbus, util-linux and python3-dbus"))
    func geoclueReadsIt() throws {
        let daemon = try Self.daemon()
        defer { daemon.stop() }
        let directory = daemon.directory
        let busSocket = directory.file("system_bus_socket")
        let busConfiguration = try directory.write(
            "bus.conf",
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(busSocket)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*"/>
                <allow receive_sender="*"/>
              </policy>
            </busconfig>
            """)
        let bus = try ChildProcess(
            "/usr/bin/dbus-daemon", ["--config-file=\(busConfiguration)", "--nofork", "--print-address"])
        defer {
            bus.signal(SIGTERM)
            bus.wait(timeout: 10)
        }
        try #require(bus.waitForStdout(containing: "unix:path=", timeout: 20), "dbus-daemon: \(bus.errors())")
        let geoclueConfiguration = try directory.write(
            "geoclue.conf",
            """
            [agent]
            whitelist=petspot-test-agent
            [network-nmea]
            enable=true
            nmea-socket=\(directory.file("nmea.sock"))
            [3g]
            enable=false
            [cdma]
            enable=false
            [modem-gps]
            enable=false
            [wifi]
            enable=false
            [compass]
            enable=false
            [geoclue-where-am-i]
            allowed=true
            system=true
            users=
            """)
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(busSocket)"]
        let geoclue = try ChildProcess(
            "/usr/bin/unshare",
            [
                "-m", "/bin/sh", "-c",
                "mount --bind \"$0\" /etc/geoclue/geoclue.conf && exec /usr/libexec/geoclue -t 0",
                geoclueConfiguration,
            ], environment: environment)
        defer {
            geoclue.signal(SIGTERM)
            geoclue.wait(timeout: 10)
        }
        let agent = try ChildProcess("/usr/bin/python3", ["-u", "-c", Self.agent], environment: environment)
        defer {
            agent.signal(SIGTERM)
            agent.wait(timeout: 10)
        }
        // The agent registers once GeoClue owns its name.
        let registered = agent.waitForStdout(containing: "agent registered", timeout: 60)
        try #require(registered, "the agent never registered: \(agent.output())\(agent.errors())\n\(geoclue.errors())")
        // Until the first location is printed whole (its last line is the
        // accuracy in metres), not for a fixed time: stdbuf makes the demo's
        // output reach the pipe line by line.
        let whereAmI = try ChildProcess(
            "/usr/bin/stdbuf", ["-oL", "/usr/libexec/geoclue-2.0/demos/where-am-i", "-t", "120", "-a", "8"],
            environment: environment)
        defer { whereAmI.terminate() }
        _ = whereAmI.waitForStdout(containing: " meters\n", timeout: 120)
        let text = whereAmI.output()
        func value(_ label: String) -> Double? {
            guard let line = text.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix(label) }) else {
                return nil
            }
            // "Latitude:    48.858370°", "Accuracy:    3.000000 meters"
            let number = line.dropFirst(label.count).split(separator: " ").first ?? ""
            return Double(number.trimmingCharacters(in: CharacterSet(charactersIn: "°")))
        }
        let latitude = try #require(value("Latitude:"), "where-am-i: \(text)\(whereAmI.errors())\n\(geoclue.errors())")
        let longitude = try #require(value("Longitude:"))
        #expect(abs(latitude - Self.latitude) < 1e-5 && abs(longitude - Self.longitude) < 1e-5, "\(text)")
        // GeoClue's accuracy from the HDOP: never better than the fix's 4 m.
        #expect(try #require(value("Accuracy:")) >= 4)
    }
}
