/// Where `petspot-locationd` listens unless configured otherwise: the one
/// place the default is written. The daemon's `daemon.socket`, the kiosk's
/// `location.socket`, and every client's `--socket` default to it.
public enum DaemonSocket {
    /// `/run/petspot/locationd.sock` (systemd's `petspot-locationd.socket`
    /// makes it; the packaged configuration names it too).
    public static let defaultPath = "/run/petspot/locationd.sock"
}
