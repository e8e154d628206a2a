import Foundation
import PetSpotConfiguration
import PetSpotDelivery
import PetSpotKioskConfiguration
import PetSpotSettings
import Testing

@Suite("config/kiosk.toml")
struct KioskConfigurationLoaderTests {
    @Test func emptyFileGivesTheDefaults() throws {
        let configuration = try KioskConfigurationLoader.parse(text: "")
        #expect(configuration == KioskConfiguration())
        #expect(configuration.kiosk.host == "127.0.0.1" && configuration.kiosk.port == 8080)
        #expect(configuration.kiosk.idleReset == .seconds(120))
        #expect(configuration.kiosk.photoSources == [.camera])
        #expect(configuration.kiosk.allowedUsers == ["petspot-browser"])
        #expect(configuration.location.gpsTimeout == .seconds(10))
        #expect(configuration.outbox.path == "/var/lib/petspot-kiosk/outbox")
        #expect(configuration.delivery == nil)
    }

    @Test func everyKey() throws {
        let text = """
            [kiosk]
            listen = "[::1]:9090"
            idle_reset = "2m"
            language = "pl"
            photo_sources = ["file", "camera"]
            allowed_users = ["kiosk-browser", "operator.1"]

            [location]
            socket = "run/locationd.sock"
            gps_timeout = 15

            [outbox]
            path = "outbox"

            [delivery]
            endpoint = "https://api.petspot.example/v1/"
            token_file = "secrets/backend.token"
            timeout = 30.5
            retention = "14d"
            max_in_flight = 2
            retry_initial = "500ms"
            retry_max = "10m"
            """
        // "500ms" is not a unit this file knows: one error, and nothing else.
        #expect(throws: ConfigurationErrors.self) { try KioskConfigurationLoader.parse(text: text) }
        let fixed = text.replacingOccurrences(of: "\"500ms\"", with: "0.5")
        let configuration = try KioskConfigurationLoader.parse(text: fixed, baseDirectory: "/etc/petspot")
        #expect(configuration.kiosk.host == "::1" && configuration.kiosk.port == 9090)
        #expect(configuration.kiosk.idleReset == .seconds(120))
        #expect(configuration.kiosk.language == .pl)
        #expect(configuration.kiosk.photoSources == [.file, .camera])
        #expect(configuration.kiosk.allowedUsers == ["kiosk-browser", "operator.1"])
        #expect(configuration.location.socket == "/etc/petspot/run/locationd.sock")
        #expect(configuration.location.gpsTimeout == .seconds(15))
        #expect(configuration.outbox.path == "/etc/petspot/outbox")
        let delivery = try #require(configuration.delivery)
        #expect(delivery.endpoint == "https://api.petspot.example/v1")
        #expect(delivery.tokenFile == "/etc/petspot/secrets/backend.token")
        #expect(delivery.timeout == .milliseconds(30_500))
        #expect(delivery.retention == .seconds(14 * 86_400))
        #expect(delivery.maxInFlight == 2)
        #expect(delivery.retryInitial == .milliseconds(500))
        #expect(delivery.retryMax == .seconds(600))
    }

    @Test func deliveryDefaults() throws {
        let configuration = try KioskConfigurationLoader.parse(
            text: "[delivery]\nendpoint = \"http://127.0.0.1:8000\"\ntoken_file = \"/t\"\n")
        let delivery = try #require(configuration.delivery)
        #expect(delivery.timeout == .seconds(60))
        #expect(delivery.retention == .seconds(7 * 86_400))
        #expect(delivery.maxInFlight == 1)
    }

    /// Plain http:// endpoints and whether each is accepted: only an IP
    /// literal in 127.0.0.0/8, `::1` (any spelling) or `localhost` is loopback;
    /// a name that merely starts like one is an ordinary host (DNS decides
    /// where it goes), and the token would travel to it in clear.
    static let plainHTTP: [(String, Bool)] = [
        ("http://127.0.0.1:8000", true),
        ("http://127.255.255.254/v1", true),
        ("http://127.1.2.3", true),
        ("http://[::1]:8000", true),
        ("http://[0:0:0:0:0:0:0:1]:8000", true),
        ("http://localhost:8000", true),
        ("http://LocalHost", true),
        ("http://127.attacker.example", false),
        ("http://127.0.0.1.attacker.example:8000", false),
        ("http://127.0.0.1.nip.io", false),
        ("http://localhost.attacker.example", false),
        ("http://127.0.0.256", false),
        ("http://127.1", false),
        ("http://0127.0.0.1", false),
        ("http://128.0.0.1", false),
        ("http://[::2]", false),
        ("http://[::ffff:8.8.8.8]", false),
        ("http://[::1x]", false),
    ]

    @Test(arguments: plainHTTP)
    func plainHTTPOnlyToALoopbackAddress(endpoint: String, accepted: Bool) {
        let text = "[delivery]\nendpoint = \"\(endpoint)\"\ntoken_file = \"t\"\n"
        do {
            _ = try KioskConfigurationLoader.parse(text: text)
            #expect(accepted, "\(endpoint) was accepted as a loopback endpoint")
        } catch {
            #expect(!accepted, "\(endpoint) was refused: \(error)")
            #expect(
                error.errors.map(\.description) == [
                    "line 2: delivery.endpoint: must be https:// (plain http:// only to a loopback host, 127.0.0.0/8, [::1] or localhost: the token would travel in clear), found \"\(endpoint)\""
                ])
        }
    }

    /// Each case: the file, then every error's description, in order.
    static let invalid: [(String, [String])] = [
        ("[kiosk]\nlisten = \"127.0.0.1:8080\"\nidel_reset = 5\n", ["line 3: kiosk.idel_reset: unknown key"]),
        ("[kioks]\n", ["line 1: kioks: unknown key"]),
        (
            "# comment\n\n[delivery]\nendpoint = \"https://x.example\"\ntoken_file = \"t\"\ntoken = \"abc\"\n",
            ["line 6: delivery.token: unknown key"]
        ),
        (
            "[delivery]\nendpoint = \"http://backend.example\"\ntoken_file = \"t\"\n",
            [
                "line 2: delivery.endpoint: must be https:// (plain http:// only to a loopback host, 127.0.0.0/8, [::1] or localhost: the token would travel in clear), found \"http://backend.example\""
            ]
        ),
        (
            "[delivery]\ntoken_file = \"t\"\n",
            ["line 1: delivery.endpoint: is required in [delivery] (the backend's base URL)"]
        ),
        (
            "[delivery]\nendpoint = \"ftp://x\"\ntoken_file = \"t\"\nmax_in_flight = 0\nretention = -1\n",
            [
                "line 2: delivery.endpoint: must be an https:// URL, found \"ftp://x\"",
                "line 5: delivery.retention: must be greater than 0 and at most 31622400 seconds, found -1.0",
                "line 4: delivery.max_in_flight: must be in 1...16, found 0",
            ]
        ),
        (
            "[delivery]\nendpoint = \"https://u:p@x.example\"\ntoken_file = \"t\"\n",
            ["line 2: delivery.endpoint: must not carry credentials (use token_file), found \"https://u:p@x.example\""]
        ),
        (
            "[kiosk]\nlisten = \"localhost\"\nlanguage = \"de\"\n",
            [
                "line 2: kiosk.listen: must be HOST:PORT (port 1-65535), found \"localhost\"",
                "line 3: kiosk.language: must be one of \"en\", \"pl\", found \"de\"",
            ]
        ),
        (
            "[kiosk]\nphoto_sources = []\n",
            ["line 2: kiosk.photo_sources: must name at least one of \"camera\", \"file\""]
        ),
        (
            "[kiosk]\nphoto_sources = [\"camera\", \"gallery\"]\n",
            ["line 2: kiosk.photo_sources: must hold only \"camera\", \"file\", found \"gallery\""]
        ),
        (
            "[kiosk]\nphoto_sources = [\"file\", \"file\"]\n",
            ["line 2: kiosk.photo_sources: names \"file\" twice"]
        ),
        (
            "[kiosk]\nallowed_users = [\"petspot-browser\", \"petspot-browser\"]\n",
            ["line 2: kiosk.allowed_users: names \"petspot-browser\" twice"]
        ),
        (
            "[kiosk]\nallowed_users = [\"-rf\"]\n",
            [
                "line 2: kiosk.allowed_users: must hold user names (letters, digits, '_', '-', '.'; not starting with '-'; at most 32), found \"-rf\""
            ]
        ),
        (
            "[kiosk]\nallowed_users = [\"\"]\n",
            [
                "line 2: kiosk.allowed_users: must hold user names (letters, digits, '_', '-', '.'; not starting with '-'; at most 32), found \"\""
            ]
        ),
        (
            "[kiosk]\nallowed_users = [\"kiosk browser\"]\n",
            [
                "line 2: kiosk.allowed_users: must hold user names (letters, digits, '_', '-', '.'; not starting with '-'; at most 32), found \"kiosk browser\""
            ]
        ),
        (
            "[kiosk]\nallowed_users = \"petspot-browser\"\n",
            ["line 2: kiosk.allowed_users: expected an array of strings, found a string"]
        ),
        (
            "[kiosk]\nphoto_sources = \"camera\"\n",
            ["line 2: kiosk.photo_sources: expected an array of strings, found a string"]
        ),
        (
            "[location]\ngps_timeout = 301\n",
            ["line 2: location.gps_timeout: must be greater than 0 and at most 300 seconds, found 301.0"]
        ),
        ("[outbox]\npath = 3\n", ["line 2: outbox.path: expected a string, found an integer"]),
        (
            "[location]\nsocket = \"/\(String(repeating: "s", count: 107))\"\n",
            ["line 2: location.socket: path is 108 bytes long; a Unix socket path is at most 107"]
        ),
        (
            "[delivery]\nendpoint = \"\"\"\nhttps://x\n\"\"\"\ntoken_file = \"t\"\nbogus = 1\n",
            [
                "line 2: delivery.endpoint: must be a base URL without query, fragment or spaces, found \"https://x\n\"",
                "line 6: delivery.bogus: unknown key",
            ]
        ),
        (
            "[metrics]\ntextfile = \"kiosk.txt\"\ninterval = 0\n",
            [
                "line 2: metrics.textfile: must name a file ending in \".prom\" (node_exporter's textfile collector reads only those), found \"kiosk.txt\"",
                "line 3: metrics.interval: must be a number of seconds from 1 to 3600, found 0.0",
            ]
        ),
    ]

    @Test func metricsTable() throws {
        let configuration = try KioskConfigurationLoader.parse(
            text: "[metrics]\ntextfile = \"collector/petspot-kiosk.prom\"\ninterval = 60\n",
            baseDirectory: "/etc/petspot")
        #expect(configuration.metrics.textfile == "/etc/petspot/collector/petspot-kiosk.prom")
        #expect(configuration.metrics.interval == .seconds(60))
        #expect(try KioskConfigurationLoader.parse(text: "").metrics.textfile == nil)
    }

    @Test(arguments: 0..<invalid.count)
    func invalidFilesNameKeyAndLine(index: Int) {
        let (text, expected) = Self.invalid[index]
        do {
            _ = try KioskConfigurationLoader.parse(text: text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.errors.map(\.description) == expected, "\(text)")
        }
    }

    @Test func syntaxErrorHasItsLine() {
        do {
            _ = try KioskConfigurationLoader.parse(text: "[kiosk]\nlisten = \n")
            Issue.record("accepted")
        } catch {
            #expect(error.errors.first?.line == 2)
        }
    }

    @Test func missingFileIsOneError() {
        do {
            _ = try KioskConfigurationLoader.load(path: "/nonexistent/kiosk.toml")
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("cannot read configuration file /nonexistent/kiosk.toml"))
        }
    }

    @Test func theShippedExampleLoads() throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let configuration = try KioskConfigurationLoader.load(path: url.path + "/config/kiosk.toml")
        #expect(configuration.delivery != nil)
    }
}
