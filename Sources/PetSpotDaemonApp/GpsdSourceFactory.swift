import Logging
import PetSpotConfiguration
import PetSpotFixHub
import PetSpotGpsd
import PetSpotSettings

/// The live gpsd reader for `[source.gpsd]`.
enum GpsdSourceFactory {
    static func producer(_ settings: GpsdSettings, logger: Logger) -> any FixProducer {
        GpsdFixProducer(settings: settings, logger: logger)
    }
}
