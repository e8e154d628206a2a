import PetSpotConfiguration
import PetSpotDelivery
import PetSpotSettings

extension KioskConfiguration {
    /// The effective configuration as TOML, every key with defaults filled
    /// in (what `petspot-kiosk --check-config` prints). It parses back (with
    /// ``KioskConfigurationLoader``) to an equal configuration, whatever its
    /// strings hold: they are quoted by ``TOMLWriter/quote(_:)``, the
    /// daemon's quoter.
    public func renderTOML() -> String {
        var out = TOMLWriter()
        out.section("kiosk")
        let host = kiosk.host.contains(":") ? "[\(kiosk.host)]" : kiosk.host
        out.key("listen", string: "\(host):\(kiosk.port)")
        out.key("idle_reset", raw: TOMLWriter.seconds(kiosk.idleReset))
        out.key("language", string: kiosk.language.rawValue)
        out.key("photo_sources", raw: TOMLWriter.strings(kiosk.photoSources.map(\.rawValue)))
        out.key("allowed_users", raw: TOMLWriter.strings(kiosk.allowedUsers))
        out.section("location")
        out.key("socket", string: location.socket)
        out.key("gps_timeout", raw: TOMLWriter.seconds(location.gpsTimeout))
        out.section("outbox")
        out.key("path", string: outbox.path)
        if let delivery {
            out.section("delivery")
            out.key("endpoint", string: delivery.endpoint)
            out.key("token_file", string: delivery.tokenFile)
            out.key("timeout", raw: TOMLWriter.seconds(delivery.timeout))
            out.key("retention", raw: TOMLWriter.seconds(delivery.retention))
            out.key("max_in_flight", raw: String(delivery.maxInFlight))
            out.key("retry_initial", raw: TOMLWriter.seconds(delivery.retryInitial))
            out.key("retry_max", raw: TOMLWriter.seconds(delivery.retryMax))
        }
        out.section("metrics")
        out.optional("textfile", metrics.textfile.map(TOMLWriter.quote))
        out.key("interval", raw: TOMLWriter.seconds(metrics.interval))
        return out.text
    }
}
