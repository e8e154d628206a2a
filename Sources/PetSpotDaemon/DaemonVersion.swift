/// The daemon's version, reported by `daemon.status` and `--version`.
public enum DaemonVersion {
    public static let current = "0.1.0"
}
