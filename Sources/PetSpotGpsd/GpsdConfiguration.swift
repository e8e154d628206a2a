/// Settings of the gpsd source (`[source.gpsd]`).
///
/// Keys, types and defaults:
/// - `host` (`String`, `"127.0.0.1"`): where gpsd listens.
/// - `port` (`Int`, `2947`): gpsd's TCP port.
/// - `reconnect_max` (``reconnectMax``, `Duration`, 5 s): cap of the reconnect backoff.
/// - `device` (`String?`, none): only TPV reports from this device path count;
///   an empty string means no filter.
/// - `silence_timeout` (``silenceTimeout``, `Duration`, 10 s): a connected gpsd that
///   sends no complete line (of any content) for this long is treated as down.
///
/// - `owner` (`String`, `"gpsd"`): a gpsd reached over loopback must own its
///   socket as root or this user (``GpsdSocketOwner``); over any other
///   address the owner cannot be checked.
///
/// One tuning value is not a configuration key: ``initialReconnectDelay``
/// (250 ms, the first backoff step).
public struct GpsdConfiguration: Sendable, Hashable {
    /// gpsd's host name or address.
    public var host: String
    /// gpsd's TCP port.
    public var port: Int
    /// The cap of the exponential reconnect backoff.
    public var reconnectMax: Duration
    /// Only reports from this device path are used; `nil` takes every device.
    public var device: String?
    /// A connected gpsd that sends no complete line for this long is treated as down.
    public var silenceTimeout: Duration
    /// The first reconnect delay; each failed attempt doubles it up to ``reconnectMax``.
    public var initialReconnectDelay: Duration
    /// Besides root, the user a loopback gpsd's socket may belong to.
    public var owner: String

    /// Creates a configuration; every parameter has the documented default.
    /// - Parameters:
    ///   - host: gpsd's host (default `127.0.0.1`).
    ///   - port: gpsd's port (default 2947).
    ///   - reconnectMax: backoff cap (default 5 s).
    ///   - device: device filter; `nil` or `""` for none.
    ///   - silenceTimeout: no-data watchdog (default 10 s).
    ///   - initialReconnectDelay: first backoff step (default 250 ms).
    ///   - owner: the user besides root a loopback gpsd may run as (default `gpsd`).
    public init(
        host: String = "127.0.0.1",
        port: Int = 2947,
        reconnectMax: Duration = .seconds(5),
        device: String? = nil,
        silenceTimeout: Duration = .seconds(10),
        initialReconnectDelay: Duration = .milliseconds(250),
        owner: String = "gpsd"
    ) {
        self.owner = owner
        self.host = host
        self.port = port
        self.reconnectMax = reconnectMax
        self.device = (device?.isEmpty ?? true) ? nil : device
        self.silenceTimeout = silenceTimeout
        self.initialReconnectDelay = initialReconnectDelay
    }
}
