/// Parsing the systemd unit out of `/proc/PID/cgroup`.
public enum SystemdUnit {
    /// The unit a process runs in, from the text of its `/proc/PID/cgroup`.
    ///
    /// Uses the cgroup v2 line (`0::/…`) when there is one, else the v1
    /// `name=systemd` line. The unit is the one the *system manager* placed
    /// the process in: the first path component below the slices. Whatever a
    /// unit with delegation (or a user) creates beneath it cannot rename it:
    /// `0::/system.slice/evil.service/kiosk.service` is `evil.service`.
    ///
    /// A process of a user's own manager is reported as
    /// `user@UID.service/NAME` (NAME the first unit below the user's slices),
    /// so `systemd-run --user --unit=kiosk.service` is never taken for the
    /// system unit `kiosk.service` (SPEC §3: `unit` rules match system units).
    /// Slices are never reported. `nil` when no unit is found (e.g. `0::/`).
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

    /// The unit of a cgroup path: the first component below the slices, and
    /// for a user manager (`user@UID.service`) the first unit below its slices too.
    public static func unit(inPath path: String) -> String? {
        var components = path.split(separator: "/")[...]
        guard let unit = firstUnit(&components) else { return nil }
        guard isUserManager(unit) else { return unit }
        guard let inner = firstUnit(&components) else { return unit }
        return "\(unit)/\(inner)"
    }

    /// Skips slices; the next component when it is a unit (`.service` or `.scope`), consumed.
    private static func firstUnit(_ components: inout ArraySlice<Substring>) -> String? {
        while let component = components.first, component.hasSuffix(".slice") { components.removeFirst() }
        guard let component = components.popFirst(), isUnitName(component) else { return nil }
        return String(component)
    }

    private static func isUnitName(_ component: Substring) -> Bool {
        (component.hasSuffix(".service") && component.count > ".service".count)
            || (component.hasSuffix(".scope") && component.count > ".scope".count)
    }

    /// `user@UID.service`: a user's own service manager.
    static func isUserManager(_ unit: String) -> Bool {
        guard unit.hasPrefix("user@"), unit.hasSuffix(".service") else { return false }
        let uid = unit.dropFirst("user@".count).dropLast(".service".count)
        return !uid.isEmpty && uid.allSatisfy(\.isNumber)
    }
}
