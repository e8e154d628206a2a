import PetSpotLocation
import PetSpotPOSIX
import PetSpotSettings

extension TableReader {
    /// Reads a `[metrics]` table (see ``MetricsSettings``).
    package mutating func metricsSettings(
        relativeTo baseDirectory: String?, errors: inout [ConfigurationError]
    ) -> MetricsSettings {
        var settings = MetricsSettings()
        if let path = nonEmptyString("textfile", errors: &errors) {
            let name = PathName.name(of: path)
            if name.hasSuffix(".prom") && name != ".prom" && !path.hasSuffix("/") {
                settings.textfile = ConfigurationLoader.resolve(path, against: baseDirectory)
            } else {
                fail(
                    "textfile",
                    "must name a file ending in \".prom\" (node_exporter's textfile collector reads only those), found \"\(path)\"",
                    into: &errors)
            }
        }
        if let seconds = number(
            "interval", requirement: "a number of seconds from 1 to 3600", errors: &errors, { $0 >= 1 && $0 <= 3600 })
        {
            settings.interval = .fromSeconds(seconds)
        }
        reportUnknownKeys(errors: &errors)
        return settings
    }
}
