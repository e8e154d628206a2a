import PetSpotConfiguration
import PetSpotDelivery
import PetSpotKioskConfiguration
import PetSpotSettings
import Testing

/// `petspot-kiosk --check-config`'s text parses back to the same
/// configuration, whatever its strings hold (the daemon's quoter).
@Suite("KioskConfiguration.renderTOML")
struct KioskRenderTests {
    static let hostile = [
        "a \"quoted\" word", #"back\slash"#, "line\nbreak", "tab\there", "esc\u{1B}[31m",
        "żółw 🐢", "key = \"value\"\n[section]",
    ]

    /// The string at `table.key` of `document`.
    static func string(_ document: [String: TOMLNode], _ table: String, _ key: String) -> String? {
        guard case .table(let members)? = document[table], case .string(let value)? = members[key] else { return nil }
        return value
    }

    @Test("hostile strings in every string key read back as themselves", arguments: hostile)
    func hostileStringsRoundTrip(value: String) throws {
        var configuration = KioskConfiguration()
        configuration.location.socket = "/run/" + value
        configuration.outbox.path = "/var/" + value
        configuration.kiosk.allowedUsers = [value, "petspot-browser"]
        configuration.delivery = DeliverySettings(endpoint: "https://api.example/" + value, tokenFile: "/etc/" + value)
        configuration.metrics.textfile = "/var/lib/" + value
        let rendered = configuration.renderTOML()
        // Read as TOML, not through the kiosk's checks (which refuse such paths).
        let document = try ConfigurationLoader.parseDocument(rendered)
        #expect(Self.string(document, "location", "socket") == configuration.location.socket, "\(rendered)")
        #expect(Self.string(document, "outbox", "path") == configuration.outbox.path)
        #expect(Self.string(document, "delivery", "endpoint") == configuration.delivery?.endpoint)
        #expect(Self.string(document, "delivery", "token_file") == configuration.delivery?.tokenFile)
        #expect(Self.string(document, "metrics", "textfile") == configuration.metrics.textfile)
        guard case .table(let kiosk)? = document["kiosk"], case .array(let users)? = kiosk["allowed_users"] else {
            Issue.record("no kiosk.allowed_users in\n\(rendered)")
            return
        }
        let read = users.compactMap { node -> String? in
            if case .string(let user) = node { return user }
            return nil
        }
        #expect(read == configuration.kiosk.allowedUsers)
    }

    @Test("the defaults render and parse back equal")
    func defaultsRoundTrip() throws {
        var configuration = KioskConfiguration()
        configuration.delivery = DeliverySettings(endpoint: "https://api.example", tokenFile: "/etc/petspot/token")
        let rendered = configuration.renderTOML()
        let reparsed = try KioskConfigurationLoader.parse(text: rendered)
        #expect(reparsed == configuration, "\(rendered)")
        #expect(reparsed.renderTOML() == rendered)
    }
}
