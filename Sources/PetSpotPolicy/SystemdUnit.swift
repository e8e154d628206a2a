/// Parsing the systemd unit out of `/proc/PID/cgroup`.
public enum SystemdUnit {
    /// The unit a process runs in, from the text of its `/proc/PID/cgroup`.
    ///
    /// Uses the cgroup v2 line (`0::/…`) when there is one, else the v1
    /// `name=systemd` line. The unit reported is the *innermost* path
    /// component ending in `.service` or `.scope`: for
    /// `0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-foo.scope`
    /// that is `app-foo.scope` (not `user@1000.service`), and for
    /// `0::/system.slice/foo.service/payload` it is `foo.service`. Slices are
    /// never reported. `nil` when no such component exists (e.g. `0::/`).
    public static func parse(cgroup text: String) -> String? {
        var v2Path: String?
        var systemdV1Path: String?
        for line in text.split(whereSeparator: { $0 == "\n" }) {
            // hierarchy-ID:controller-list:cgroup-path; the path may itself contain ':'.
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[0] == "0" && fields[1].isEmpty {
                v2Path = String(fields[2])
            } else if fields[1] == "name=systemd" {
                systemdV1Path = String(fields[2])
            }
        }
        // Hybrid setups may leave the v2 line at `/`; then the v1 line names the unit.
        return v2Path.flatMap(unit(inPath:)) ?? systemdV1Path.flatMap(unit(inPath:))
    }

    /// The innermost `.service` or `.scope` component of a cgroup path.
    public static func unit(inPath path: String) -> String? {
        path.split(separator: "/").last { component in
            (component.hasSuffix(".service") && component.count > ".service".count)
                || (component.hasSuffix(".scope") && component.count > ".scope".count)
        }.map(String.init)
    }
}
