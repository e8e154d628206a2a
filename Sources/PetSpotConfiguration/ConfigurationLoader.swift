import Glibc
import PetSpotLocation
import PetSpotPOSIX
import PetSpotPolicy
import PetSpotSettings
import TOMLKit

/// Loads and validates `petspot-locationd`'s TOML configuration (SPEC §4).
///
/// Every problem is collected, not just the first: unknown keys (named by
/// their full key path), wrong types (naming the expected type; integers are
/// accepted where numbers are expected, floats are not accepted where
/// integers are), out-of-range values, missing required keys and
/// inconsistent combinations.
public enum ConfigurationLoader {
    /// The default configuration path.
    public static let defaultPath = "/etc/petspot/locationd.toml"
    /// Largest accepted configuration file.
    public static let maximumFileSize = 1 << 20
    /// Longest Unix socket path (`sun_path` minus the terminating NUL).
    public static let maximumSocketPathLength = UnixSocketAddress.sunPathSize - 1
    /// Upper bound of every duration key, in seconds.
    public static let maximumDurationSeconds = 3600.0

    /// Reads and validates the file at `path`.
    ///
    /// Relative paths inside the file are resolved against the file's directory.
    ///
    /// - Throws: ``ConfigurationErrors`` with ``ConfigurationErrors/file`` set:
    ///   one error when the file cannot be read, else every problem found.
    public static func load(path: String) throws(ConfigurationErrors) -> DaemonConfiguration {
        let text: String
        do {
            text = try readFile(path)
        } catch {
            throw ConfigurationErrors([error], file: path)
        }
        do {
            return try parse(text: text, baseDirectory: directory(of: absolute(path)))
        } catch {
            throw ConfigurationErrors(error.errors, file: path)
        }
    }

    /// Validates configuration text.
    ///
    /// - Parameters:
    ///   - text: TOML.
    ///   - baseDirectory: the directory relative paths are resolved against;
    ///     `nil` keeps them as written.
    /// - Throws: ``ConfigurationErrors`` listing every problem found.
    public static func parse(
        text: String, baseDirectory: String? = nil
    ) throws(ConfigurationErrors) -> DaemonConfiguration {
        let root = try parseDocument(text)
        var parser = DaemonTableParser(baseDirectory: baseDirectory)
        let configuration = parser.configuration(root)
        guard parser.errors.isEmpty else { throw ConfigurationErrors(parser.errors) }
        return configuration
    }

    /// Parses TOML text into plain values, with syntax errors as ``ConfigurationErrors``.
    package static func parseDocument(_ text: String) throws(ConfigurationErrors) -> [String: TOMLNode] {
        // Inputs toml++ would abort on instead of reporting (docs/ROBUSTNESS.md).
        if let unparsable = TOMLNode.unparsableInput(in: text) {
            throw ConfigurationErrors([
                ConfigurationError(
                    message: "TOML syntax error: \(unparsable.reason)", line: unparsable.line,
                    column: unparsable.column)
            ])
        }
        do {
            return try TOMLNode.parse(text)
        } catch let error as TOMLParseError {
            throw ConfigurationErrors([
                ConfigurationError(
                    message: "TOML syntax error: \(error.description)", line: error.source.begin.line,
                    column: error.source.begin.column)
            ])
        } catch {
            throw ConfigurationErrors([ConfigurationError(message: "TOML syntax error: \(error)")])
        }
    }

    // MARK: Files

    /// The text of a configuration file: bounded by ``maximumFileSize``, UTF-8.
    package static func readFile(_ path: String) throws(ConfigurationError) -> String {
        let bytes: [UInt8]
        do throws(SystemCallError) {
            bytes = try BoundedFile.read(path, atMost: maximumFileSize + 1)
        } catch {
            throw ConfigurationError(message: "cannot read configuration file \(path): \(error.reason)")
        }
        guard bytes.count <= maximumFileSize else {
            throw ConfigurationError(message: "configuration file \(path) is larger than \(maximumFileSize) bytes")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(message: "configuration file \(path) is not valid UTF-8")
        }
        return text
    }

    package static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return join(cwd, path)
    }

    /// `path` as written in a file of `baseDirectory`: relative paths are
    /// taken from there (unchanged without a base directory).
    package static func resolve(_ path: String, against baseDirectory: String?) -> String {
        guard let baseDirectory, !path.hasPrefix("/") else { return path }
        return join(baseDirectory, path)
    }

    package static func directory(of path: String) -> String {
        PathName.directory(of: path) ?? "."
    }

    package static func join(_ directory: String, _ path: String) -> String {
        var relative = Substring(path)
        while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
        return directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }
}

/// Walks the parsed TOML, building the configuration and collecting errors.
struct DaemonTableParser {
    let baseDirectory: String?
    var errors: [ConfigurationError] = []

    init(baseDirectory: String?) {
        self.baseDirectory = baseDirectory
    }

    func resolve(_ path: String) -> String { ConfigurationLoader.resolve(path, against: baseDirectory) }

    mutating func configuration(_ root: [String: TOMLNode]) -> DaemonConfiguration {
        var reader = TableReader(path: "", entries: root)
        let daemonTable = reader.table("daemon", errors: &errors)
        let sourceTable = reader.table("source", errors: &errors)
        let policyTable = reader.table("policy", errors: &errors)
        var metricsTable = reader.table("metrics", errors: &errors) ?? TableReader(path: "metrics", entries: [:])
        let nmeaTable = reader.table("nmea", errors: &errors)
        reader.reportUnknownKeys(errors: &errors)
        return DaemonConfiguration(
            daemon: daemon(daemonTable ?? TableReader(path: "daemon", entries: [:])),
            source: source(sourceTable ?? TableReader(path: "source", entries: [:])),
            policy: policy(policyTable ?? TableReader(path: "policy", entries: [:])),
            metrics: metricsTable.metricsSettings(relativeTo: baseDirectory, errors: &errors),
            nmea: nmeaTable.flatMap { table in
                var table = table
                return table.nmeaSettings(relativeTo: baseDirectory, errors: &errors)
            })
    }

    // MARK: [daemon]

    mutating func daemon(_ table: TableReader) -> DaemonSettings {
        var table = table
        var settings = DaemonSettings()
        if let socket = table.socketPath("socket", relativeTo: baseDirectory, errors: &errors) {
            settings.socket = socket
        }
        if let mode = table.permissionMode("socket_mode", errors: &errors) { settings.socketMode = mode }
        settings.socketGroup = table.nonEmptyString("socket_group", errors: &errors)
        if let directory = table.nonEmptyString("state_dir", errors: &errors) {
            settings.stateDirectory = resolve(directory)
        }
        if let maxClients = table.integer("max_clients", in: 1...65536, errors: &errors) {
            settings.maxClients = maxClients
        }
        if let auditLog = table.nonEmptyString("audit_log", errors: &errors) {
            settings.auditLog = resolve(auditLog)
        } else {
            settings.auditLog = DaemonSettings.defaultAuditLog(stateDirectory: settings.stateDirectory)
        }
        if let size = table.integer("audit_log_max_bytes", in: 4096...Int.max, errors: &errors) {
            settings.auditLogMaxBytes = size
        }
        if let generations = table.integer("audit_log_generations", in: 1...100, errors: &errors) {
            settings.auditLogGenerations = generations
        }
        if let share = table.integer("max_clients_per_uid", in: 1...65536, errors: &errors) {
            if share > settings.maxClients {
                table.fail(
                    "max_clients_per_uid", "must be at most max_clients (\(settings.maxClients)), found \(share)",
                    into: &errors)
            } else {
                settings.maxClientsPerUidSetting = share
            }
        }
        if let idle = table.duration("idle_timeout", maximum: 86_400, errors: &errors) {
            settings.idleTimeout = idle
        }
        table.reportUnknownKeys(errors: &errors)
        return settings
    }

    /// `path` with symbolic links resolved (`realpath`), or as given when it does not exist.
    static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    // MARK: [source]

    mutating func source(_ table: TableReader) -> SourceSettings {
        var table = table
        var settings = SourceSettings()
        let kind = table.choice("kind", of: FixSourceKind.self, errors: &errors)
        settings.kind = kind ?? .gpsd
        let fallback = table.string("fallback", errors: &errors)
        if let modeNumber = table.integer("min_mode", in: 2...3, errors: &errors) {
            settings.minMode = FixMode(rawValue: modeNumber) ?? .twoD
        }
        if let gpsdTable = table.table("gpsd", errors: &errors) {
            settings.gpsd = gpsd(gpsdTable)
        }
        let staticGiven = table.has("static")
        var staticValid = false
        if let staticTable = table.table("static", errors: &errors) {
            settings.static = staticSource(staticTable)
            staticValid = settings.static != nil
        }
        if let simulatedTable = table.table("simulated", errors: &errors) {
            settings.simulated = simulated(simulatedTable)
        }
        table.reportUnknownKeys(errors: &errors)

        switch kind {
        case .static where !staticGiven:
            errors.append(
                ConfigurationError(
                    key: "source.static", message: "is required when source.kind is \"static\" (latitude and longitude)"
                ))
        default:
            break
        }

        if let fallback {
            if fallback != FixSourceKind.static.rawValue {
                table.fail("fallback", "must be \"static\", found \"\(fallback)\"", into: &errors)
            } else if kind == .static {
                table.fail("fallback", "cannot be \"static\" when source.kind is \"static\"", into: &errors)
            } else if !staticGiven {
                table.fail(
                    "fallback", "\"static\" needs a [source.static] section with latitude and longitude", into: &errors)
            } else if staticValid {
                settings.fallback = .static
            }
        }
        return settings
    }

    mutating func gpsd(_ table: TableReader) -> GpsdSettings {
        var table = table
        var settings = GpsdSettings()
        if let host = table.nonEmptyString("host", errors: &errors) { settings.host = host }
        if let port = table.integer("port", in: 1...65535, errors: &errors) { settings.port = port }
        if let cap = table.duration(
            "reconnect_max", maximum: ConfigurationLoader.maximumDurationSeconds, errors: &errors)
        {
            settings.reconnectMax = cap
        }
        if let device = table.string("device", errors: &errors) { settings.device = device }
        if let silence = table.duration(
            "silence_timeout", maximum: ConfigurationLoader.maximumDurationSeconds, errors: &errors)
        {
            settings.silenceTimeout = silence
        }
        if let owner = table.nonEmptyString("owner", errors: &errors) { settings.owner = owner }
        table.reportUnknownKeys(errors: &errors)
        return settings
    }

    mutating func staticSource(_ table: TableReader) -> StaticSourceSettings? {
        var table = table
        var valid = true
        func coordinateComponent(
            _ key: String, _ range: String, _ check: (Double) -> Bool, _ table: inout TableReader,
            _ errors: inout [ConfigurationError]
        ) -> Double? {
            guard table.has(key) else {
                table.fail(key, "is required in [source.static]", into: &errors)
                _ = table.value(key)
                return nil
            }
            guard let number = table.number(key, errors: &errors) else { return nil }
            guard check(number) else {
                table.fail(key, "must be a finite number in \(range), found \(number)", into: &errors)
                return nil
            }
            return number
        }
        let latitude = coordinateComponent("latitude", "[-90, 90]", Coordinate.isValidLatitude, &table, &errors)
        let longitude = coordinateComponent("longitude", "[-180, 180]", Coordinate.isValidLongitude, &table, &errors)
        var accuracy = StaticSourceSettings.defaultHorizontalAccuracy
        if table.has("horizontal_accuracy") {
            if let value = table.number(
                "horizontal_accuracy", requirement: "a finite number of metres ≥ 0", errors: &errors, { $0 >= 0 })
            {
                accuracy = value
            } else {
                valid = false
            }
        }
        var altitude: Double?
        if table.has("altitude") {
            altitude = table.number("altitude", requirement: "a finite number of metres", errors: &errors) { _ in true }
            if altitude == nil { valid = false }
        }
        var movedRadius = StaticSourceSettings.defaultMovedRadius
        if table.has("moved_radius_m") {
            if let value = table.number(
                "moved_radius_m", requirement: "a number of metres greater than 0 and at most 20000000",
                errors: &errors,
                { $0 > 0 && $0 <= 20_000_000 })
            {
                movedRadius = value
            } else {
                valid = false
            }
        }
        var movedAfter = StaticSourceSettings.defaultMovedAfter
        if table.has("moved_after") {
            if let value = table.duration("moved_after", maximum: 86_400, errors: &errors) {
                movedAfter = value
            } else {
                valid = false
            }
        }
        table.reportUnknownKeys(errors: &errors)
        guard valid, let latitude, let longitude else { return nil }
        return StaticSourceSettings(
            coordinate: Coordinate(latitude: latitude, longitude: longitude), horizontalAccuracy: accuracy,
            altitude: altitude, movedRadius: movedRadius, movedAfter: movedAfter)
    }

    mutating func simulated(_ table: TableReader) -> SimulatedSourceSettings? {
        var table = table
        var result: SimulatedSourceSettings?
        if !table.has("scenario") {
            result = SimulatedSourceSettings(scenario: nil)
        } else if let scenario = table.nonEmptyString("scenario", errors: &errors) {
            result = SimulatedSourceSettings(scenario: resolve(scenario))
        }
        table.reportUnknownKeys(errors: &errors)
        return result
    }
}
