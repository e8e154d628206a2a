import Logging
import PetSpotConfiguration
import PetSpotDaemon
import PetSpotFixHub
import PetSpotLocation
import PetSpotSettings
import PetSpotSimulatedSource
import PetSpotStaticSource

/// Builds the configured position source (`[source]`). The only place that
/// knows every kind of source, and the one place that chooses between a
/// ``FixedPosition`` (static) and a ``LiveFixHub`` (simulated, gpsd); the
/// daemon library sees a ``DaemonSource`` and its ``PositionSource``.
package enum SourceFactory {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// - Parameter sleeper: where the source's waits are timed: the daemon's
    ///   event loops (``Sleeper/eventLoops(_:)``), so that no timer of the
    ///   source reaches Swift's global pool.
    package static func make(
        _ settings: SourceSettings, logger: Logger, sleeper: Sleeper = .eventLoops()
    ) throws -> DaemonSource {
        let fallback = try settings.fallback.map { _ in try staticPosition(settings).fallback }
        switch settings.kind {
        case .static:
            let ticker = StaticFixProducer(position: try staticPosition(settings), sleeper: sleeper)
            let position = ticker.makePosition()
            return DaemonSource(position) { await ticker.run(reportingTo: position) }
        case .simulated:
            return .live(
                ScenarioPlayer(scenario: try scenario(settings)), minimumMode: settings.minMode, fallback: fallback,
                sleeper: sleeper)
        case .gpsd:
            return .live(
                GpsdSourceFactory.producer(settings.gpsd, logger: logger), minimumMode: settings.minMode,
                fallback: fallback, sleeper: sleeper)
        }
    }

    /// Reads and checks everything ``make(_:logger:)`` would, starting nothing
    /// (`--check-config`): the scenario file, the static position.
    static func check(_ settings: SourceSettings) throws {
        if settings.kind == .static || settings.fallback != nil { _ = try staticPosition(settings) }
        if settings.kind == .simulated { _ = try scenario(settings) }
    }

    /// The simulated source's scenario: the configured file, else the demo walk.
    static func scenario(_ settings: SourceSettings) throws -> Scenario {
        guard let path = settings.simulated?.scenario ?? nil else { return DemoConfiguration.scenario }
        do {
            return try Scenario.load(contentsOf: path)
        } catch {
            throw Failure(description: "source.simulated.scenario: \(error.description)")
        }
    }

    static func staticPosition(_ settings: SourceSettings) throws -> StaticPosition {
        guard let position = settings.static else {
            throw Failure(description: "source.static: latitude and longitude are required")
        }
        do {
            return try StaticPosition(
                latitude: position.coordinate.latitude, longitude: position.coordinate.longitude,
                horizontalAccuracy: position.horizontalAccuracy, altitude: position.altitude)
        } catch {
            throw Failure(description: "source.static: \(error)")
        }
    }
}
