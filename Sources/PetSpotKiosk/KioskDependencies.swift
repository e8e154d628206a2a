import FoundationEssentials
import PetSpotLocation
import PetSpotReport

/// What the kiosk app talks to, injected so tests can swap each part.
public struct KioskDependencies: Sendable {
    /// Where the GPS button gets the station's position (the daemon's client in production).
    public var location: any LocationService
    /// Where submitted reports go (the delivery outbox in production).
    public var reports: any FoundPetReportSink
    /// The cache directory photo drafts are made under (as `XDG_CACHE_HOME`).
    public var draftsBase: URL
    /// `location.gps_timeout`: how long the GPS button waits for a fix.
    public var gpsTimeout: Duration
    /// Today's date on the station (the date-found default and its upper bound).
    public var today: @Sendable () -> CalendarDate
    /// The monotonic clock of the idle reset.
    public var clock: KioskClock
    /// The figures `/admin/status` shows (the outbox's summary in production).
    public var stationStatus: @Sendable () async -> StationStatus
    /// Called when the last open visit ends (the station is idle): the
    /// program releases what the visits made resident (``VisitStore``).
    public var whenIdle: @Sendable () -> Void

    public init(
        location: any LocationService, reports: any FoundPetReportSink, draftsBase: URL,
        gpsTimeout: Duration = .seconds(10),
        today: @escaping @Sendable () -> CalendarDate = { CalendarDate.day(of: Date()) },
        clock: KioskClock = .continuous,
        stationStatus: @escaping @Sendable () async -> StationStatus = {
            StationStatus(outbox: .failure(.init(reason: "this kiosk was started without an outbox")))
        },
        whenIdle: @escaping @Sendable () -> Void = {}
    ) {
        self.whenIdle = whenIdle
        self.location = location
        self.reports = reports
        self.draftsBase = draftsBase
        self.gpsTimeout = gpsTimeout
        self.today = today
        self.clock = clock
        self.stationStatus = stationStatus
    }
}
