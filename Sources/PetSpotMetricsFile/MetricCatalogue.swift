/// Every figure the daemon and the kiosk write, with its meaning: the one
/// place the `# HELP` text comes from. docs/OPERATIONS.md "The figures"
/// shows the same meanings (a test holds the two equal), so a Prometheus
/// user reads in the exposition what the operator reads in the docs.
///
/// A figure created under a name missing here is still written, without
/// `# HELP`; `promtool check metrics` (run on both programs' files by the
/// integration tests) then fails.
public enum MetricCatalogue {
    /// The meaning of each figure, by name (without labels).
    public static let help: [String: String] = [
        // The daemon's source, clients and watchers (DaemonGauges).
        "petspot_source_connected":
            "1 while the position source is reachable (gpsd connected, the scenario playing, the static position)",
        "petspot_source_has_fix":
            "1 while the newest valid fix is at most 5 s old (a location.get with the default maxAge is answered at once)",
        "petspot_source_fix_age_seconds":
            "seconds since the newest valid fix; since the start while there was none; 0 for the static source",
        "petspot_source_fix_mode": "2 or 3: the newest fix's mode; 0 with none",
        "petspot_source_fixes_total": "valid fixes received",
        "petspot_source_rejected_total":
            "reports dropped: invalid coordinates, below min_mode, another device's, unparseable",
        "petspot_source_reconnects_total": "successful reconnections of the source (a gpsd restart counts one)",
        // The daemon's requests (DaemonMetrics, PromptAgentDesk, AuditLog, StationWatch).
        "petspot_requests_total":
            "requests answered, by method (unknown for others) and outcome (ok, error)",
        "petspot_errors_total": "error answers by JSON-RPC code (SPEC §5), including lines that named no method",
        "petspot_authorizations_total":
            "how requests for a position were judged (each location.get, each location.watch and its re-checks)",
        "petspot_prompts_total":
            "prompts sent to the agent (asked) and how they ended: answered, timedOut, unanswered (declined, malformed, the agent left, nobody waited any more)",
        "petspot_clients": "connections open now",
        "petspot_watchers": "watches open now",
        "petspot_held_update_bytes":
            "bytes of updates held for watchers that do not read (newest only, one per subscription)",
        "petspot_audit_write_failures_total":
            "audit records that could not be written (the daemon goes on serving; see the log)",
        "petspot_station_displacement_meters":
            "with the moved-station alarm: the newest live fix's distance from the configured position (a distance, never a position)",
        "petspot_station_moved":
            "with the moved-station alarm: 1 once the station counts as moved (moved_radius_m exceeded by every fix for moved_after), 0 once it is back",
        // Both programs (MetricsTextfile).
        "petspot_metrics_write_failures_total": "writes of the metrics file that failed",
        "petspot_context_switches_total":
            "times the program's threads gave up or lost the CPU (voluntary and involuntary context switches, getrusage): its wake-ups",
        // The kiosk (VisitStore, StationPeers, OutboxGauges, DeliverySender).
        "petspot_kiosk_visits_total":
            "visits opened: one per person at the screen (a new visit starts after a report, a cancel or the idle reset)",
        "petspot_kiosk_reports_submitted_total": "visits that ended with a report in the outbox",
        "petspot_kiosk_refused_connections_total":
            "connections refused at accept: not_allowed (a local user not in allowed_users), unknown_peer (no kernel-known owner), too_many_connections (64 open); a steady rise of not_allowed is someone on the station trying the kiosk (docs/KIOSK.md \"Who may use the kiosk\")",
        "petspot_outbox_reports":
            "reports now pending, delivering, delivered (until the retention purge) and rejected (waiting for the operator)",
        "petspot_outbox_oldest_undelivered_age_seconds":
            "how long the oldest report not yet delivered has waited; 0 with none",
        "petspot_outbox_readable": "1 when the last write could read the outbox, else 0",
        "petspot_delivery_attempts_total":
            "uploads by what the answer meant: delivered, retry (no answer, 408, 429, 5xx), rejected (other 4xx), interrupted (cut short by the stop)",
    ]
}
