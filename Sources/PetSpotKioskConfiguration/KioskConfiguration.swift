public import PetSpotDelivery
import PetSpotLocation
public import PetSpotSettings

/// The kiosk station's configuration (`config/kiosk.toml`): the web UI, the
/// location daemon it asks, the report outbox, and delivery to the backend.
///
/// ```toml
/// [kiosk]
/// listen = "127.0.0.1:8080"     # host:port, loopback (the kiosk browser)
/// idle_reset = 120              # seconds without input before a visit is wiped
/// language = "en"               # en | pl
/// photo_sources = ["camera"]    # camera, file: how a visitor adds the photo
/// allowed_users = ["petspot-browser"]  # who may use it (plus root and the kiosk's own account)
///
/// [location]
/// socket = "/run/petspot/locationd.sock"
/// gps_timeout = 10              # seconds "Use GPS" waits for a fix
///
/// [outbox]
/// path = "/var/lib/petspot-kiosk/outbox"
///
/// [delivery]                    # optional: without it reports stay queued
/// endpoint = "https://api.petspot.example/v1"
/// token_file = "/etc/petspot/backend.token"
/// timeout = 60                  # seconds per request
/// retention = "7d"              # delivered reports' photo and personal data
/// max_in_flight = 1
/// retry_initial = 2             # seconds: first retry delay
/// retry_max = 300               # seconds: cap of the exponential backoff
/// ```
///
/// Durations are seconds (integer or float) or a string with a unit:
/// `"90s"`, `"15m"`, `"12h"`, `"7d"`.
public struct KioskConfiguration: Sendable, Hashable {
    public var kiosk = KioskSettings()
    public var location = KioskLocationSettings()
    public var outbox = OutboxSettings()
    /// `nil` when the file has no `[delivery]` table: nothing is sent.
    public var delivery: DeliverySettings?
    /// `[metrics]`, as in the daemon's file (``MetricsSettings``).
    public var metrics = MetricsSettings()

    public init(
        kiosk: KioskSettings = KioskSettings(), location: KioskLocationSettings = KioskLocationSettings(),
        outbox: OutboxSettings = OutboxSettings(), delivery: DeliverySettings? = nil,
        metrics: MetricsSettings = MetricsSettings()
    ) {
        self.kiosk = kiosk
        self.location = location
        self.outbox = outbox
        self.delivery = delivery
        self.metrics = metrics
    }
}

/// `[kiosk]`: the web UI.
public struct KioskSettings: Sendable, Hashable {
    /// The UI's languages.
    public enum Language: String, Sendable, Hashable, CaseIterable {
        case en, pl
    }

    /// `listen`: host (or `[v6]`) and port; default `127.0.0.1:8080`.
    public var host = "127.0.0.1"
    public var port = 8080
    /// `idle_reset`: default 120 s.
    public var idleReset: Duration = .seconds(120)
    /// `language`: default `en`.
    public var language: Language = .en

    /// Where a visitor's photo can come from.
    public enum PhotoSource: String, Sendable, Hashable, CaseIterable {
        /// The station's camera, in a live view in the page (getUserMedia).
        case camera
        /// A file chooser (`animalPhoto.browse`): for stations with a card
        /// reader or a phone cable, never needed on a plain touch station.
        case file
    }

    /// `photo_sources`: default `["camera"]`; not empty, no repeats.
    public var photoSources: [PhotoSource] = [.camera]

    /// `allowed_users`: the accounts whose connections the kiosk serves,
    /// by the kernel-known owner of each loopback connection (SPEC §7 "kiosk
    /// peers"); default `["petspot-browser"]`, the kiosk browser's account.
    /// Root and the kiosk's own account are always served. Everyone else is
    /// refused before any page, visit or GPS call.
    public var allowedUsers: [String] = ["petspot-browser"]

    /// Whether `name` is a user name `useradd` accepts: letters, digits,
    /// `_`, `-`, `.`, not starting with `-`, at most 32 characters.
    public static func isUserName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first != "-", name.utf8.count <= 32 else { return false }
        return name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0))
        }
    }

    public init() {}
}

/// `[location]`: the location daemon.
public struct KioskLocationSettings: Sendable, Hashable {
    /// `socket`: default `/run/petspot/locationd.sock`.
    public var socket = DaemonSocket.defaultPath
    /// `gps_timeout`: default 10 s (1-300).
    public var gpsTimeout: Duration = .seconds(10)

    public init() {}
}

/// `[outbox]`: where submitted reports wait for delivery.
public struct OutboxSettings: Sendable, Hashable {
    /// `path`: a directory holding `outbox.sqlite` and `photos/`; default
    /// `/var/lib/petspot-kiosk/outbox`. JSON + photo pairs found directly in it
    /// (the format `petspot-report found --outbox` writes) are imported once.
    public var path = "/var/lib/petspot-kiosk/outbox"

    public init() {}
}
