import Glibc
import PetSpotConfiguration
import PetSpotDelivery

/// Loads and validates the kiosk's TOML configuration (``KioskConfiguration``).
///
/// Every problem is collected, each naming its key and, where the key is
/// written in the file, its line (`line 14: delivery.endpont: unknown key`).
/// Unknown keys are errors. Relative paths are resolved against the file's
/// directory.
public enum KioskConfigurationLoader {
    /// The default configuration path.
    public static let defaultPath = "/etc/petspot/kiosk.toml"
    /// Upper bound of `idle_reset`, `gps_timeout` and `timeout`, in seconds.
    public static let maximumShortDuration = 3600.0
    /// Upper bound of `retention`: a year.
    public static let maximumRetention = 366.0 * 86_400

    /// Reads and validates the file at `path`.
    /// - Throws: ``ConfigurationErrors`` with the file set.
    public static func load(path: String) throws(ConfigurationErrors) -> KioskConfiguration {
        let text: String
        do {
            text = try ConfigurationLoader.readFile(path)
        } catch {
            throw ConfigurationErrors([error], file: path)
        }
        do {
            return try parse(
                text: text, baseDirectory: ConfigurationLoader.directory(of: ConfigurationLoader.absolute(path)))
        } catch {
            throw ConfigurationErrors(error.errors, file: path)
        }
    }

    /// Validates configuration text.
    /// - Parameters:
    ///   - baseDirectory: what relative paths are resolved against; `nil` keeps them.
    /// - Throws: ``ConfigurationErrors`` listing every problem found.
    public static func parse(
        text: String, baseDirectory: String? = nil
    ) throws(ConfigurationErrors) -> KioskConfiguration {
        let root = try ConfigurationLoader.parseDocument(text)
        var parser = KioskParser(baseDirectory: baseDirectory)
        let configuration = parser.configuration(root)
        guard parser.errors.isEmpty else { throw ConfigurationErrors(TOMLKeyLines(text).locate(parser.errors)) }
        return configuration
    }
}

/// Walks the parsed TOML, building the configuration and collecting errors.
private struct KioskParser {
    let baseDirectory: String?
    var errors: [ConfigurationError] = []

    init(baseDirectory: String?) { self.baseDirectory = baseDirectory }

    func resolve(_ path: String) -> String { ConfigurationLoader.resolve(path, against: baseDirectory) }

    mutating func configuration(_ root: [String: TOMLNode]) -> KioskConfiguration {
        var reader = TableReader(path: "", entries: root)
        var configuration = KioskConfiguration()
        if let table = reader.table("kiosk", errors: &errors) { configuration.kiosk = kiosk(table) }
        if let table = reader.table("location", errors: &errors) { configuration.location = location(table) }
        if let table = reader.table("outbox", errors: &errors) { configuration.outbox = outbox(table) }
        if let table = reader.table("delivery", errors: &errors) { configuration.delivery = delivery(table) }
        if var table = reader.table("metrics", errors: &errors) {
            configuration.metrics = table.metricsSettings(relativeTo: baseDirectory, errors: &errors)
        }
        reader.reportUnknownKeys(errors: &errors)
        return configuration
    }

    // MARK: Tables

    mutating func kiosk(_ table: TableReader) -> KioskSettings {
        var table = table
        var settings = KioskSettings()
        if let listen = table.nonEmptyString("listen", errors: &errors) {
            if let (host, port) = Self.hostAndPort(listen) {
                settings.host = host
                settings.port = port
            } else {
                table.fail("listen", "must be HOST:PORT (port 1-65535), found \"\(listen)\"", into: &errors)
            }
        }
        if let idle = duration(&table, "idle_reset", maximum: KioskConfigurationLoader.maximumShortDuration) {
            settings.idleReset = idle
        }
        if let language = table.choice("language", of: KioskSettings.Language.self, errors: &errors) {
            settings.language = language
        }
        if let names = table.strings("photo_sources", errors: &errors) {
            if let sources = photoSources(names, table: table) { settings.photoSources = sources }
        }
        if let names = table.strings("allowed_users", errors: &errors) {
            if let users = allowedUsers(names, table: table) { settings.allowedUsers = users }
        }
        table.reportUnknownKeys(errors: &errors)
        return settings
    }

    /// `allowed_users`: user names as `useradd` takes them, none twice (may be empty: root and the
    /// kiosk's own account only).
    mutating func allowedUsers(_ names: [String], table: TableReader) -> [String]? {
        distinct(names, key: "allowed_users", table: table) { name in
            KioskSettings.isUserName(name) ? name : nil
        } invalid: { name in
            "must hold user names (letters, digits, '_', '-', '.'; not starting with '-'; at most 32), found \"\(name)\""
        }
    }

    /// `photo_sources`: known names, at least one, none twice.
    mutating func photoSources(_ names: [String], table: TableReader) -> [KioskSettings.PhotoSource]? {
        let allowed = KioskSettings.PhotoSource.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        guard !names.isEmpty else {
            table.fail("photo_sources", "must name at least one of \(allowed)", into: &errors)
            return nil
        }
        return distinct(names, key: "photo_sources", table: table, KioskSettings.PhotoSource.init(rawValue:)) {
            "must hold only \(allowed), found \"\($0)\""
        }
    }

    /// A list of names for `key`, each converted by `convert` and none twice; the first problem is the error
    /// (`invalid` says what is wrong with a name `convert` refuses).
    mutating func distinct<Value: Equatable>(
        _ names: [String], key: String, table: TableReader, _ convert: (String) -> Value?,
        invalid: (String) -> String
    ) -> [Value]? {
        var values: [Value] = []
        for name in names {
            guard let value = convert(name) else {
                table.fail(key, invalid(name), into: &errors)
                return nil
            }
            guard !values.contains(value) else {
                table.fail(key, "names \"\(name)\" twice", into: &errors)
                return nil
            }
            values.append(value)
        }
        return values
    }

    mutating func location(_ table: TableReader) -> KioskLocationSettings {
        var table = table
        var settings = KioskLocationSettings()
        if let socket = table.socketPath("socket", relativeTo: baseDirectory, errors: &errors) {
            settings.socket = socket
        }
        if let timeout = duration(&table, "gps_timeout", maximum: 300) { settings.gpsTimeout = timeout }
        table.reportUnknownKeys(errors: &errors)
        return settings
    }

    mutating func outbox(_ table: TableReader) -> OutboxSettings {
        var table = table
        var settings = OutboxSettings()
        if let path = table.nonEmptyString("path", errors: &errors) { settings.path = resolve(path) }
        table.reportUnknownKeys(errors: &errors)
        return settings
    }

    mutating func delivery(_ table: TableReader) -> DeliverySettings? {
        var table = table
        let before = errors.count
        var endpoint: String?
        if !table.has("endpoint") {
            table.fail("endpoint", "is required in [delivery] (the backend's base URL)", into: &errors)
        } else if let text = table.nonEmptyString("endpoint", errors: &errors) {
            if let problem = Self.endpointProblem(text) {
                table.fail("endpoint", problem, into: &errors)
            } else {
                endpoint = text.hasSuffix("/") ? String(text.dropLast()) : text
            }
        }
        var tokenFile: String?
        if !table.has("token_file") {
            table.fail("token_file", "is required in [delivery] (a file holding the bearer token)", into: &errors)
        } else if let path = table.nonEmptyString("token_file", errors: &errors) {
            tokenFile = resolve(path)
        }
        var settings = DeliverySettings(endpoint: endpoint ?? "", tokenFile: tokenFile ?? "")
        if let timeout = duration(&table, "timeout", maximum: KioskConfigurationLoader.maximumShortDuration) {
            settings.timeout = timeout
        }
        if let retention = duration(&table, "retention", maximum: KioskConfigurationLoader.maximumRetention) {
            settings.retention = retention
        }
        if let count = table.integer("max_in_flight", in: 1...16, errors: &errors) { settings.maxInFlight = count }
        if let initial = duration(&table, "retry_initial", maximum: KioskConfigurationLoader.maximumShortDuration) {
            settings.retryInitial = initial
        }
        if let cap = duration(&table, "retry_max", maximum: 86_400) { settings.retryMax = cap }
        if settings.retryMax < settings.retryInitial, table.has("retry_max") {
            table.fail("retry_max", "must be at least retry_initial", into: &errors)
        }
        table.reportUnknownKeys(errors: &errors)
        return errors.count == before ? settings : nil
    }

    // MARK: Values

    /// A duration: seconds as a number, or a string with a unit (`"90s"`, `"15m"`, `"12h"`, `"7d"`), in (0, maximum].
    mutating func duration(_ table: inout TableReader, _ key: String, maximum: Double) -> Duration? {
        guard table.has(key) else { return nil }
        let seconds: Double?
        if case .string(let text)? = table.value(key) {
            seconds = Self.secondsWithUnit(text)
            if seconds == nil {
                table.fail(
                    key, "must be seconds or a number with a unit (s, m, h, d) such as \"7d\", found \"\(text)\"",
                    into: &errors)
                return nil
            }
        } else {
            seconds = table.number(key, errors: &errors)
        }
        guard let seconds else { return nil }
        guard seconds.isFinite, seconds > 0, seconds <= maximum else {
            table.fail(
                key, "must be greater than 0 and at most \(Int(maximum)) seconds, found \(seconds)", into: &errors)
            return nil
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    static func secondsWithUnit(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: " ")
        guard let unit = trimmed.last else { return nil }
        let scale: Double
        switch unit {
        case "s": scale = 1
        case "m": scale = 60
        case "h": scale = 3600
        case "d": scale = 86_400
        default: return Double(trimmed)
        }
        return Double(trimmed.dropLast().trimmingCharacters(in: " ")).map { $0 * scale }
    }

    /// `HOST:PORT` or `[V6]:PORT`.
    static func hostAndPort(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(" ") else { return nil }
        return (host, port)
    }

    /// Why `text` is not a usable endpoint, or `nil`.
    static func endpointProblem(_ text: String) -> String? {
        let lower = text.lowercased()
        let isHTTPS = lower.hasPrefix("https://")
        guard isHTTPS || lower.hasPrefix("http://") else {
            return "must be an https:// URL, found \"\(text)\""
        }
        let rest = text.dropFirst(isHTTPS ? 8 : 7)
        let authority = rest.prefix { $0 != "/" }
        if text.contains("?") || text.contains("#")
            || text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F })
        {
            return "must be a base URL without query, fragment or spaces, found \"\(text)\""
        }
        if authority.contains("@") { return "must not carry credentials (use token_file), found \"\(text)\"" }
        var host = Substring(authority)
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if let colon = host.lastIndex(of: ":") {
            guard let port = Int(host[host.index(after: colon)...]), (1...65535).contains(port) else {
                return "has an invalid port, found \"\(text)\""
            }
            host = host[..<colon]
        }
        guard !host.isEmpty else { return "has no host, found \"\(text)\"" }
        if !isHTTPS && !isLoopback(String(host)) {
            return
                "must be https:// (plain http:// only to a loopback host, 127.0.0.0/8, [::1] or localhost: the token would travel in clear), found \"\(text)\""
        }
        return nil
    }

    /// Whether `host` (a URL's host, brackets removed) is a loopback host:
    /// an IPv4 literal in 127.0.0.0/8, the IPv6 literal `::1` (in any
    /// spelling), or `localhost`. A name that only starts like one
    /// (`127.attacker.example`, `localhost.example`) is not.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" { return true }
        // inet_pton takes exactly four decimal parts, no leading zeros, nothing else.
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { $0.elementsEqual([UInt8](repeating: 0, count: 15) + [1]) }
        }
        return false
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String { String(self).trimmingCharacters(in: set) }
}
