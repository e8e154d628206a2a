/// `[delivery]` of the kiosk's configuration: the PetSpot backend (SPEC §8),
/// as ``DeliverySender`` reads it. The TOML reader
/// (PetSpotKioskConfiguration) fills it; the sender has no settings type of
/// its own, and knows nothing of TOML.
public struct DeliverySettings: Sendable, Hashable {
    /// `endpoint` (required): the API's base URL; reports go to
    /// `{endpoint}/announcements`. `https://`, or `http://` for a loopback host.
    public var endpoint: String
    /// `token_file` (required): a file holding the bearer token (never the
    /// token itself in this file).
    public var tokenFile: String
    /// `timeout`: one request, from connecting to the answer's last byte; default 60 s.
    public var timeout: Duration = .seconds(60)
    /// `retention`: how long a delivered report's photo and personal data
    /// stay on the station; default 7 days.
    public var retention: Duration = .seconds(7 * 86_400)
    /// `max_in_flight`: reports sent at once; default 1.
    public var maxInFlight = 1
    /// `retry_initial`: the first retry's delay; default 2 s.
    public var retryInitial: Duration = .seconds(2)
    /// `retry_max`: the backoff's cap; default 300 s.
    public var retryMax: Duration = .seconds(300)

    /// Most answer bytes read (not a configuration key).
    public var responseLimit = 64 << 10
    /// How often an idle sender looks for reports queued by other processes
    /// (not a configuration key).
    public var pollInterval: Duration = .seconds(1)
    /// How often delivered reports past their retention are purged (not a
    /// configuration key).
    public var purgeInterval: Duration = .seconds(600)

    public init(endpoint: String, tokenFile: String) {
        self.endpoint = endpoint
        self.tokenFile = tokenFile
    }
}
