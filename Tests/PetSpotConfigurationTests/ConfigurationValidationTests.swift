import Glibc
import PetSpotConfiguration
import PetSpotLocation
import PetSpotPolicy
import PetSpotSettings
import Testing

@Suite struct ValidationTests {
    /// One invalid document and the key its single error must name.
    @Test(arguments: [
        ("[daemon]\nsocket = \"\"", "daemon.socket"),
        ("[daemon]\nsocket = \"/\(String(repeating: "s", count: 120))\"", "daemon.socket"),
        ("[daemon]\nsocket_mode = \"0990\"", "daemon.socket_mode"),
        ("[daemon]\nsocket_mode = \"66\"", "daemon.socket_mode"),
        ("[daemon]\nsocket_mode = \"rw-rw----\"", "daemon.socket_mode"),
        ("[daemon]\nsocket_mode = 660", "daemon.socket_mode"),
        ("[daemon]\nsocket_group = \"\"", "daemon.socket_group"),
        ("[daemon]\nstate_dir = 3", "daemon.state_dir"),
        ("[daemon]\nmax_clients = 0", "daemon.max_clients"),
        ("[daemon]\nmax_clients = -5", "daemon.max_clients"),
        ("[daemon]\nmax_clients = 2.0", "daemon.max_clients"),
        ("[daemon]\naudit_log = \"\"", "daemon.audit_log"),
        ("[daemon]\naudit_log_max_bytes = 10", "daemon.audit_log_max_bytes"),
        ("[source]\nkind = \"gps\"", "source.kind"),
        ("[source]\nmin_mode = 1", "source.min_mode"),
        ("[source]\nmin_mode = 2.5", "source.min_mode"),
        ("[source]\nfallback = \"gpsd\"", "source.fallback"),
        ("[source]\nfallback = \"static\"", "source.fallback"),
        (
            "[source]\nkind = \"static\"\nfallback = \"static\"\n[source.static]\nlatitude = 1\nlongitude = 2",
            "source.fallback"
        ),
        ("[source]\nkind = \"static\"", "source.static"),
        ("[source.simulated]\nscenario = \"\"", "source.simulated.scenario"),
        ("[source.gpsd]\nport = 0", "source.gpsd.port"),
        ("[source.gpsd]\nport = 65536", "source.gpsd.port"),
        ("[source.gpsd]\nport = \"2947\"", "source.gpsd.port"),
        ("[source.gpsd]\nhost = \"\"", "source.gpsd.host"),
        ("[source.gpsd]\nreconnect_max = 0", "source.gpsd.reconnect_max"),
        ("[source.gpsd]\nreconnect_max = -1.5", "source.gpsd.reconnect_max"),
        ("[source.gpsd]\nreconnect_max = inf", "source.gpsd.reconnect_max"),
        ("[source.gpsd]\nsilence_timeout = 0", "source.gpsd.silence_timeout"),
        ("[source.gpsd]\nsilence_timeout = 3601", "source.gpsd.silence_timeout"),
        ("[source.gpsd]\ndevice = false", "source.gpsd.device"),
        ("[source.static]\nlatitude = 90.5\nlongitude = 0", "source.static.latitude"),
        ("[source.static]\nlatitude = 0\nlongitude = -181", "source.static.longitude"),
        ("[source.static]\nlatitude = nan\nlongitude = 0", "source.static.latitude"),
        ("[source.static]\nlatitude = 0\nlongitude = nan", "source.static.longitude"),
        ("[source.static]\nlatitude = 0\nlongitude = \"21\"", "source.static.longitude"),
        ("[source.static]\nlongitude = 0", "source.static.latitude"),
        ("[source.static]\nlatitude = 1\nlongitude = 2\nhorizontal_accuracy = -1", "source.static.horizontal_accuracy"),
        ("[source.static]\nlatitude = 1\nlongitude = 2\naltitude = nan", "source.static.altitude"),
        ("[source.static]\nlatitude = 1\nlongitude = 2\nmoved_radius_m = 0", "source.static.moved_radius_m"),
        ("[source.static]\nlatitude = 1\nlongitude = 2\nmoved_radius_m = \"200\"", "source.static.moved_radius_m"),
        ("[source.static]\nlatitude = 1\nlongitude = 2\nmoved_after = 0", "source.static.moved_after"),
        ("[source.static]\nlatitude = 1\nlongitude = 2\nmoved_after = 86401", "source.static.moved_after"),
        ("[policy]\ndefault = \"allowed\"", "policy.default"),
        ("[policy]\nprompt = \"ask\"", "policy.prompt"),
        ("[policy]\nprompt_timeout = 0", "policy.prompt_timeout"),
        ("[policy]\nprompt_timeout = 7200", "policy.prompt_timeout"),
        ("[policy]\nreduced_accuracy_m = 0", "policy.reduced_accuracy_m"),
        ("[policy.agent]\nusers = \"root\"", "policy.agent.users"),
        ("[policy.admin]\ngroups = [\"wheel\", 3]", "policy.admin.groups[1]"),
        ("[policy]\nrules = 3", "policy.rules"),
        ("[[policy.rules]]\nstatus = \"authorized\"", "policy.rules[0]"),
        ("[[policy.rules]]\nuser = \"kiosk\"", "policy.rules[0].status"),
        ("[[policy.rules]]\nuser = \"kiosk\"\nstatus = \"maybe\"", "policy.rules[0].status"),
        ("[[policy.rules]]\nuser = \"kiosk\"\nstatus = \"denied\"\naccuracy = \"full\"", "policy.rules[0].accuracy"),
        (
            "[[policy.rules]]\nuser = \"kiosk\"\nstatus = \"authorized\"\naccuracy = \"coarse\"",
            "policy.rules[0].accuracy"
        ),
        ("[[policy.rules]]\nuid = -1\nstatus = \"denied\"", "policy.rules[0].uid"),
        ("[[policy.rules]]\nuid = 4294967296\nstatus = \"denied\"", "policy.rules[0].uid"),
        ("[[policy.rules]]\ngid = -1\nstatus = \"denied\"", "policy.rules[0].gid"),
        ("[[policy.rules]]\nuid = 1.0\nstatus = \"denied\"", "policy.rules[0].uid"),
        ("[[policy.rules]]\nexecutable = \"bin/x\"\nstatus = \"denied\"", "policy.rules[0].executable"),
        ("[[policy.rules]]\nunit = \"\"\nstatus = \"denied\"", "policy.rules[0].unit"),
        (
            "[[policy.rules]]\nuser = \"a\"\nstatus = \"denied\"\n[[policy.rules]]\nuser = \"b\"\nuid = \"7\"\nstatus = \"denied\"",
            "policy.rules[1].uid"
        ),
        ("daemon = 1", "daemon"),
        ("[policy]\nagent = [\"root\"]", "policy.agent"),
        ("[metrics]\ntextfile = \"\"", "metrics.textfile"),
        ("[metrics]\ntextfile = \"/var/lib/prometheus/node-exporter/petspot.txt\"", "metrics.textfile"),
        ("[metrics]\ntextfile = \"/var/lib/prometheus/node-exporter/.prom\"", "metrics.textfile"),
        ("[metrics]\ntextfile = \"/var/lib/x.prom/\"", "metrics.textfile"),
        ("[metrics]\ninterval = 0.5", "metrics.interval"),
        ("[metrics]\ninterval = 3601", "metrics.interval"),
        ("[metrics]\ninterval = \"15\"", "metrics.interval"),
        ("[metrics]\nlisten = \"0.0.0.0:9100\"", "metrics.listen"),
        ("metrics = 1", "metrics"),
        ("[nmea]\nmax_clients = 2", "nmea.socket"),
        ("[nmea]\nsocket = \"\"", "nmea.socket"),
        ("[nmea]\nsocket = \"/\(String(repeating: "n", count: 120))\"", "nmea.socket"),
        ("[nmea]\nsocket = \"/run/petspot/nmea.sock\"\nsocket_mode = \"0999\"", "nmea.socket_mode"),
        ("[nmea]\nsocket = \"/run/petspot/nmea.sock\"\nmax_clients = 0", "nmea.max_clients"),
        ("[nmea]\nsocket = \"/run/petspot/nmea.sock\"\nmax_clients = 65", "nmea.max_clients"),
        ("[nmea]\nsocket = \"/run/petspot/nmea.sock\"\nport = 10110", "nmea.port"),
    ])
    func namesTheKey(text: String, key: String) {
        let found = errors(text)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.key == key, "\(found)")
    }

    /// The longest path `sun_path` holds is accepted; one byte more is refused, naming the key.
    @Test func aSocketPathMustFitSunPath() throws {
        let longest = "/" + String(repeating: "s", count: 106)
        let fits = try ConfigurationLoader.parse(text: "[daemon]\nsocket = \"\(longest)\"\n")
        #expect(fits.daemon.socket == longest)
        let found = errors("[daemon]\nsocket = \"\(longest)s\"\n")
        #expect(found.map(\.key) == ["daemon.socket"], "\(found)")
        #expect(found.first?.message.contains("108 bytes long") == true, "\(found)")
    }

    @Test(arguments: [
        ("bogus = 1", "bogus"),
        ("[daemon]\nsockets = \"/x\"", "daemon.sockets"),
        ("[source.gpsd]\nportt = 1", "source.gpsd.portt"),
        ("[source.gpsd.extra]\nx = 1", "source.gpsd.extra"),
        ("[source.static]\nlatitude = 1\nlongitude = 2\nlat = 3", "source.static.lat"),
        ("[policy.admin]\nuser = [\"root\"]", "policy.admin.user"),
        (
            "[[policy.rules]]\nuser = \"a\"\nstatus = \"denied\"\n[[policy.rules]]\nusr = \"b\"\nuser = \"b\"\nstatus = \"denied\"",
            "policy.rules[1].usr"
        ),
    ])
    func unknownKeyIsNamed(text: String, key: String) {
        let found = errors(text)
        #expect(found.map(\.key) == [key], "\(found)")
        #expect(found.first?.message == "unknown key")
    }

    @Test(arguments: [
        ("[source.gpsd]\nport = \"2947\"", "expected an integer, found a string"),
        ("[source.gpsd]\nport = 2947.0", "expected an integer, found a float"),
        ("[daemon]\nstate_dir = true", "expected a string, found a boolean"),
        ("[policy]\nreduced_accuracy_m = \"far\"", "expected a number, found a string"),
        ("[policy]\nprompt_timeout = 1979-05-27", "expected a number, found a date"),
        ("[policy.agent]\nusers = {a = 1}", "expected an array of strings, found a table"),
        ("source = \"gpsd\"", "expected a table, found a string"),
    ])
    func wrongTypeNamesExpectedType(text: String, message: String) {
        let found = errors(text)
        #expect(found.count == 1)
        #expect(found.first?.message == message, "\(found)")
    }

    @Test func integersAreAcceptedAsNumbers() throws {
        let configuration = try ConfigurationLoader.parse(text: "[policy]\nreduced_accuracy_m = 500\n")
        #expect(configuration.policy.reducedAccuracyMeters == 500)
    }

    @Test func staticOutOfRangeMessages() {
        let found = errors("[source.static]\nlatitude = 90.5\nlongitude = -181\n")
        #expect(found.map(\.key) == ["source.static.latitude", "source.static.longitude"])
        #expect(found[0].message.contains("[-90, 90]"))
        #expect(found[0].message.contains("90.5"))
        #expect(found[1].message.contains("[-180, 180]"))
        #expect(errors("[source.static]\nlatitude = nan\nlongitude = 0\n").first?.message.contains("nan") == true)
    }

    @Test func everyErrorIsCollected() {
        let text = """
            unknown_top = 1
            [daemon]
            max_clients = 0
            socket_mode = "9999"
            [source]
            kind = "static"
            min_mode = 4
            [source.gpsd]
            port = 70000
            colour = "red"
            [source.static]
            latitude = 91
            longitude = 200
            [policy]
            prompt = "maybe"
            [[policy.rules]]
            status = "authorized"
            [[policy.rules]]
            uid = -3
            status = "denied"
            accuracy = "full"
            """
        let keys = errorKeys(text)
        #expect(
            Set(keys)
                == [
                    "unknown_top", "daemon.max_clients", "daemon.socket_mode", "source.min_mode", "source.gpsd.port",
                    "source.gpsd.colour", "source.static.latitude", "source.static.longitude", "policy.prompt",
                    "policy.rules[0]", "policy.rules[1].uid", "policy.rules[1].accuracy",
                ], "\(keys)")
        #expect(keys.count == 12)
    }

    @Test(arguments: [
        ("[daemon]\nsocket = \"/x\"\nmax_clients = = 3\n", 3),
        ("\n\n\n\n[source\nkind = \"gpsd\"\n", 5),
        ("[daemon]\nsocket = \"/x\"\n[daemon]\n", 3),
        ("a = 1\nb = \"unterminated\n", 2),
    ])
    func syntaxErrorHasLine(text: String, line: Int) {
        let found = errors(text)
        #expect(found.count == 1)
        #expect(found.first?.line == line, "\(found)")
        #expect(found.first?.key == nil)
        #expect(found.first?.description.hasPrefix("line \(line), column ") == true)
    }

    @Test func missingFileIsOneError() {
        let path = "/nonexistent/petspot/locationd.toml"
        do {
            _ = try ConfigurationLoader.load(path: path)
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.errors.count == 1)
            #expect(error.file == path)
            #expect(error.errors[0].message.contains(path))
            #expect(error.errors[0].message.contains("No such file"))
            #expect(error.description.hasPrefix(path + ": "))
        }
    }

    @Test func loadsFileAndResolvesAgainstItsDirectory() throws {
        var template = Array("/tmp/petspot-config-XXXXXX".utf8CString)
        let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
        let path = directory + "/locationd.toml"
        defer {
            unlink(path)
            rmdir(directory)
        }
        let file = try #require(fopen(path, "w"))
        fputs("[source]\nkind = \"simulated\"\n[source.simulated]\nscenario = \"demo.json\"\n", file)
        fclose(file)
        let configuration = try ConfigurationLoader.load(path: path)
        #expect(configuration.source.simulated?.scenario == directory + "/demo.json")

        let bad = try #require(fopen(path, "w"))
        fputs("[source.gpsd]\nport = 0\n", bad)
        fclose(bad)
        #expect(throws: ConfigurationErrors.self) { try ConfigurationLoader.load(path: path) }
        do {
            _ = try ConfigurationLoader.load(path: path)
        } catch {
            #expect(error.description == "\(path): source.gpsd.port: must be in 1...65535, found 0")
        }
    }
}

@Suite struct RenderTests {
    static let documents: [String] = [
        "",
        specExample,
        """
        [daemon]
        socket = "/tmp/petspot \\"quoted\\"\\\\.sock"
        socket_mode = "600"
        state_dir = "/tmp/state"
        audit_log = "/var/log/petspot/audit.jsonl"
        audit_log_max_bytes = 4096
        max_clients = 1
        [source]
        kind = "static"
        min_mode = 3
        [source.gpsd]
        reconnect_max = 0.25
        silence_timeout = 1.1
        device = "/dev/ttyACM0"
        [source.static]
        latitude = -89.999999999
        longitude = 180
        horizontal_accuracy = 0.1
        altitude = -12.5
        [policy]
        default = "authorized"
        prompt = "deny"
        prompt_timeout = 0.001
        reduced_accuracy_m = 1e-3
        [policy.agent]
        users = []
        groups = ["kiosk-ui", "ünïcode"]
        [[policy.rules]]
        user = "kiosk"
        status = "authorized"
        [[policy.rules]]
        uid = 4294967295
        gid = 0
        status = "notDetermined"
        [[policy.rules]]
        executable = "/usr/bin/x"
        unit = "x.service"
        group = "g"
        status = "authorized"
        accuracy = "reduced"
        [metrics]
        textfile = "node-exporter/petspot.prom"
        interval = 30
        """,
        """
        [source]
        kind = "gpsd"
        fallback = "static"
        [source.static]
        latitude = 52.2297
        longitude = 21.0122
        moved_radius_m = 150.5
        moved_after = 90
        [nmea]
        socket = "nmea.sock"
        socket_mode = "0640"
        socket_group = "geoclue"
        max_clients = 2
        """,
    ]

    @Test func metricsFileIsResolvedAgainstTheConfigurationsFolder() throws {
        let configuration = try ConfigurationLoader.parse(
            text: "[metrics]\ntextfile = \"exporter/petspot.prom\"\ninterval = 2.5", baseDirectory: "/etc/petspot")
        #expect(configuration.metrics.textfile == "/etc/petspot/exporter/petspot.prom")
        #expect(configuration.metrics.interval == .milliseconds(2500))
        // Unset: no file, the default interval.
        #expect(try ConfigurationLoader.parse(text: "").metrics == MetricsSettings())
        #expect(MetricsSettings().interval == .seconds(15))
    }

    @Test(arguments: documents)
    func roundTrips(text: String) throws {
        let configuration = try ConfigurationLoader.parse(text: text, baseDirectory: "/etc/petspot")
        let rendered = configuration.renderTOML()
        let reparsed: DaemonConfiguration
        do {
            reparsed = try ConfigurationLoader.parse(text: rendered)
        } catch {
            Issue.record("rendered text does not parse: \(error)\n\(rendered)")
            return
        }
        #expect(reparsed == configuration, "\(rendered)")
        #expect(reparsed.renderTOML() == rendered)
    }

    @Test func rendersEveryKeyOfTheDefaults() {
        let text = DaemonConfiguration().renderTOML()
        for key in [
            "socket = \"/run/petspot/locationd.sock\"", "socket_mode = \"0660\"", "# socket_group is not set",
            "state_dir = \"/var/lib/petspot-locationd\"", "max_clients = 256",
            "audit_log = \"/var/lib/petspot-locationd/audit.jsonl\"", "audit_log_max_bytes = 10485760",
            "kind = \"gpsd\"", "# fallback is not set", "min_mode = 2", "host = \"127.0.0.1\"", "port = 2947",
            "reconnect_max = 5", "device = \"\"", "silence_timeout = 10", "default = \"notDetermined\"",
            "prompt = \"agent\"", "prompt_timeout = 30", "reduced_accuracy_m = 3000.0", "[policy.agent]",
            "[policy.admin]", "users = [\"root\"]", "groups = []",
        ] {
            #expect(text.contains(key + "\n"), "missing \(key)")
        }
    }
}
