import PetSpotLocation
import PetSpotPolicy
import PetSpotSettings

extension DaemonConfiguration {
    /// The effective configuration as TOML: every key with its value, defaults
    /// filled in (what `petspot-locationd --check-config` prints).
    ///
    /// The output is deterministic and parses back (with
    /// ``ConfigurationLoader/parse(text:baseDirectory:)``) to an equal
    /// configuration. Optional keys that are unset appear as comments.
    public func renderTOML() -> String {
        var out = TOMLWriter()
        out.section("daemon")
        out.key("socket", string: daemon.socket)
        out.key("socket_mode", string: daemon.socketModeString)
        out.optional("socket_group", daemon.socketGroup.map(TOMLWriter.quote))
        out.key("state_dir", string: daemon.stateDirectory)
        out.key("max_clients", raw: String(daemon.maxClients))
        out.key("audit_log", string: daemon.auditLog)
        out.key("audit_log_max_bytes", raw: String(daemon.auditLogMaxBytes))
        out.key("audit_log_generations", raw: String(daemon.auditLogGenerations))
        if let share = daemon.maxClientsPerUidSetting {
            out.key("max_clients_per_uid", raw: String(share))
        } else {
            out.comment("max_clients_per_uid is not set: a quarter of max_clients (\(daemon.maxClientsPerUid))")
        }
        out.key("idle_timeout", raw: TOMLWriter.seconds(daemon.idleTimeout))

        out.section("source")
        out.key("kind", string: source.kind.rawValue)
        out.optional("fallback", source.fallback.map { TOMLWriter.quote($0.rawValue) })
        out.key("min_mode", raw: String(source.minMode.rawValue))

        out.section("source.gpsd")
        out.key("host", string: source.gpsd.host)
        out.key("port", raw: String(source.gpsd.port))
        out.key("reconnect_max", raw: TOMLWriter.seconds(source.gpsd.reconnectMax))
        out.key("device", string: source.gpsd.device ?? "")
        out.key("silence_timeout", raw: TOMLWriter.seconds(source.gpsd.silenceTimeout))
        out.key("owner", string: source.gpsd.owner)

        if let fixed = source.static {
            out.section("source.static")
            out.key("latitude", raw: TOMLWriter.number(fixed.coordinate.latitude))
            out.key("longitude", raw: TOMLWriter.number(fixed.coordinate.longitude))
            out.key("horizontal_accuracy", raw: TOMLWriter.number(fixed.horizontalAccuracy))
            out.optional("altitude", fixed.altitude.map(TOMLWriter.number))
            out.key("moved_radius_m", raw: TOMLWriter.number(fixed.movedRadius))
            out.key("moved_after", raw: TOMLWriter.seconds(fixed.movedAfter))
        } else {
            out.comment("[source.static] is not configured")
        }
        if let simulated = source.simulated {
            out.section("source.simulated")
            if let scenario = simulated.scenario {
                out.key("scenario", string: scenario)
            } else {
                out.comment("scenario is not set: the built-in demo walk plays")
            }
        } else {
            out.comment("[source.simulated] is not configured")
        }

        out.section("policy")
        out.key("default", string: policy.defaultStatus.rawValue)
        out.key("prompt", string: policy.prompt.rawValue)
        out.key("prompt_timeout", raw: TOMLWriter.seconds(policy.promptTimeout))
        out.key("reduced_accuracy_m", raw: TOMLWriter.number(policy.reducedAccuracyMeters))
        out.key("reduced_update_interval", raw: TOMLWriter.seconds(policy.reducedUpdateInterval))
        for (name, set) in [("agent", policy.agent), ("admin", policy.admin)] {
            out.section("policy.\(name)")
            out.key("users", raw: TOMLWriter.strings(set.users))
            out.key("groups", raw: TOMLWriter.strings(set.groups))
        }
        for rule in policy.rules {
            out.arrayTable("policy.rules")
            if let user = rule.user { out.key("user", string: user) }
            if let uid = rule.uid { out.key("uid", raw: String(uid)) }
            if let group = rule.group { out.key("group", string: group) }
            if let gid = rule.gid { out.key("gid", raw: String(gid)) }
            if let unit = rule.unit { out.key("unit", string: unit) }
            if let executable = rule.executable { out.key("executable", string: executable) }
            out.key("status", string: rule.status.rawValue)
            if rule.status == .authorized { out.key("accuracy", string: (rule.accuracy ?? .full).rawValue) }
        }

        out.section("metrics")
        out.optional("textfile", metrics.textfile.map(TOMLWriter.quote))
        out.key("interval", raw: TOMLWriter.seconds(metrics.interval))

        if let nmea {
            out.section("nmea")
            out.key("socket", string: nmea.socket)
            out.key("socket_mode", string: DaemonSettings.octal(nmea.socketMode))
            out.optional("socket_group", nmea.socketGroup.map(TOMLWriter.quote))
            out.key("max_clients", raw: String(nmea.maxClients))
        } else {
            out.comment("[nmea] is not configured: no NMEA socket")
        }
        return out.text
    }
}
